package secret

import (
	"bytes"
	"testing"

	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestEveryNodeReadsTheKeyTheFirstNodeStored(t *testing.T) {
	kv := mattermost.NewBytesKV(&pluginapi.MemoryStore{})
	a, b := &Shared{KV: kv, Name: "k"}, &Shared{KV: kv, Name: "k"}
	ka, err := a.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	kb, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if len(ka) != Size || !bytes.Equal(ka, kb) {
		t.Fatalf("two nodes hold different keys: %x and %x", ka, kb)
	}
	other, _ := (&Shared{KV: kv, Name: "other"}).Bytes()
	if bytes.Equal(ka, other) {
		t.Fatal("two names share one key")
	}
}

func TestAMalformedStoredKeyIsRefused(t *testing.T) {
	kv := mattermost.NewBytesKV(&pluginapi.MemoryStore{})
	if err := kv.Set("k", []byte("short"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Shared{KV: kv, Name: "k"}).Bytes(); err == nil {
		t.Fatal("a 5-byte key was used")
	}
}
