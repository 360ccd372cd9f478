package tools

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
)

// slowKV is a store whose writes wait until the gate is opened.
type slowKV struct {
	mu   sync.Mutex
	m    memKV
	gate chan struct{}
}

func (k *slowKV) Get(key string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m.Get(key)
}

func (k *slowKV) Set(key string, v []byte, ttl time.Duration) error {
	<-k.gate
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m.Set(key, v, ttl)
}

func (k *slowKV) CompareAndSet(key string, old, v []byte, ttl time.Duration) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m.CompareAndSet(key, old, v, ttl)
}

func (k *slowKV) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m.Delete(key)
}

func TestATextKeptAfterItsAnswerHoldsItsMemoryUntilWrittenAndNoneWhenNoneIsFree(t *testing.T) {
	kv := &slowKV{m: memKV{}, gate: make(chan struct{})}
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
