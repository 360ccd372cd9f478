package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
)

// slowKV is a store whose writes wait until the gate is opened.
type slowKV struct {
	*kvtest.Store
	gate chan struct{}
}

func (k *slowKV) Set(key string, v []byte, ttl time.Duration) error {
	<-k.gate
	return k.Store.Set(key, v, ttl)
}

func TestATextKeptAfterItsAnswerHoldsItsMemoryUntilWrittenAndNoneWhenNoneIsFree(t *testing.T) {
	kv := &slowKV{Store: kvtest.New(), gate: make(chan struct{})}
	mem := budget.New(64 << 20)
	d := Deps{Conversions: mem, Views: &viewcache.Cache{KV: kv}}
	text := &fileview.Text{Body: strings.Repeat("a line of the report\n", 100_000)}
	d.keepLater(mem, "alice", viewcache.Key{Source: "attachment", ID: "f1"}, text)
	if _, used, _ := mem.Status(); used != viewcache.KeepBytes(len(text.Body)) {
		t.Fatalf("a keep being written holds %d bytes of the budget, want %d", used, viewcache.KeepBytes(len(text.Body)))
	}
	close(kv.gate)
	d.Views.Wait()
	if _, used, _ := mem.Status(); used != 0 {
		t.Fatalf("a written keep still holds %d bytes", used)
	}
	if _, ok := (&viewcache.Cache{KV: kv}).Open(viewcache.Key{Source: "attachment", ID: "f1"}); !ok {
		t.Fatal("the text is not in the store")
	}

	// With the budget all taken, nothing is kept and nothing is held.
	taken, _ := mem.TryAcquire(64 << 20)
	defer taken()
	other := viewcache.Key{Source: "attachment", ID: "f2"}
	d.keepLater(mem, "alice", other, text)
	d.Views.Wait()
	if _, ok := d.Views.Open(other); ok {
		t.Fatal("a text was kept without memory for it")
	}
}
