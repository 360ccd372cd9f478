package filerequest

import (
	"errors"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestAViewShownAgainGetsADropKeyOfItsOwnWhileTheStoreHoldsOnlyHashes(t *testing.T) {
	kv := mattermost.NewBytesKV(&pluginapi.MemoryStore{})
	s := &Store{KV: kv}
	const alice = "aliceaaaaaaaaaaaaaaaaaaaaa"
	first, err := s.Create(alice, Ask{Purpose: "the plan", MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	back, _ := s.Load(alice, first.ID)
	if back.DropKey != "" || DropURL("https://mm.example/plugins/mcp-server", back) != "" {
		t.Fatal("a request read back tells a drop key the store should not hold")
	}
	var keys []string
	for range maxLaterDropKeys + 1 {
		again, err := s.NewDropKey(alice, first.ID)
		if err != nil || again.DropKey == "" || again.DropKey == first.DropKey {
			t.Fatalf("a later drop key: %v %q", err, again.DropKey)
		}
		keys = append(keys, again.DropKey)
	}
	raw, _ := kv.Get(key(alice))
	for _, k := range append(keys, first.DropKey) {
		if strings.Contains(string(raw), k) {
			t.Fatal("the store holds a drop key itself")
		}
	}
	now, _ := s.Load(alice, first.ID)
	if !now.DropKeyOpens(first.DropKey) || !now.DropKeyOpens(keys[len(keys)-1]) {
		t.Error("the first key or the newest does not open the request")
	}
	if now.DropKeyOpens(keys[0]) {
		t.Errorf("the oldest of more than %d later keys still opens", maxLaterDropKeys)
	}
	if now.DropKeyOpens(strings.Repeat("0", 64)) {
		t.Error("a made-up key opens the request")
	}
	if _, err := s.Cancel(alice, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewDropKey(alice, first.ID); !errors.Is(err, ErrAnswered) {
		t.Errorf("a withdrawn request handed out a key: %v", err)
	}
}
