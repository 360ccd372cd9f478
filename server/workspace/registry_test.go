package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// noListing is the KV store with listing refused: the sweep must find every
// workspace through the registry.
type noListing struct{ kvstore.KV }

func (noListing) ListKeys(string, int, int) ([]string, bool, error) {
	return nil, false, errors.New("listed every key of the plugin")
}

func registered(t *testing.T, s *Store, user string) bool {
	t.Helper()
	spaces, _, err := s.registry(registryShard(spaceOf(user)))
	if err != nil {
		t.Fatal(err)
	}
	_, ok := spaces[spaceOf(user)]
	return ok
}

func TestTheSweepWalksTheRegistryWithoutListingKeys(t *testing.T) {
	s, now := newStore(t, roomy)
	s.kv = noListing{s.kv}
	write(t, s, alice, "a.txt", []byte("a"))
	write(t, s, bob, "b.txt", []byte("b"))
	*now = now.Add(Retention)
	removed, err := s.Sweep(*now)
	if err != nil || removed != 2 {
		t.Fatalf("removed %d, err %v", removed, err)
	}
	if raw, _ := s.kv.Get(indexKey(spaceOf(alice))); raw != nil {
		t.Fatal("alice's expired file is still indexed")
	}
}

func TestAWorkspaceLeftWithoutFilesLeavesTheRegistryAfterItsGrace(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "a.txt", []byte("a"))
	if err := s.Delete(alice, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sweep(*now); err != nil || !registered(t, s, alice) {
		t.Fatalf("alice's workspace left the registry within its grace (%v)", err)
	}
	*now = now.Add(registryGrace + time.Second)
	if _, err := s.Sweep(*now); err != nil || registered(t, s, alice) {
		t.Fatalf("alice's empty workspace stays registered (%v)", err)
	}
	if raw, _ := s.kv.Get(registryKey(registryShard(spaceOf(alice)))); raw != nil {
		t.Fatalf("an empty shard is kept: %s", raw)
	}
}

func TestAWorkspaceRegisteredJustBeforeItsIndexIsWrittenStaysThroughASweep(t *testing.T) {
	s, now := newStore(t, roomy)
	// A write registered alice's workspace and is about to write its index.
	if err := s.register(spaceOf(alice)); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(registryGrace / 2)
	if _, err := s.Sweep(*now); err != nil || !registered(t, s, alice) {
		t.Fatalf("the sweep forgot a workspace being written (%v)", err)
	}
}

func TestAWriteRefreshesAnOldRegistration(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "a.txt", []byte("a"))
	*now = now.Add(registryGrace)
	write(t, s, alice, "b.txt", []byte("b"))
	spaces, _, _ := s.registry(registryShard(spaceOf(alice)))
	if got := time.Unix(spaces[spaceOf(alice)], 0); !got.Equal(*now) {
		t.Fatalf("registered at %v, want %v", got, *now)
	}
}

func TestAFullRegistryRefusesANewWorkspaceAndKeepsNothingOfTheWrite(t *testing.T) {
	s, now := newStore(t, roomy)
	shard := registryShard(spaceOf(alice))
	full := map[string]int64{}
	for i := range registryShardCap {
		full[fmt.Sprintf("other%d", i)] = now.Unix()
	}
	raw, _ := json.Marshal(full)
	if err := s.kv.Set(registryKey(shard), raw, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(t.Context(), alice, "a.txt", strings.NewReader("a"), WriteOptions{}); !errors.Is(err, ErrRegistryFull) {
		t.Fatalf("a write with the registry full: %v", err)
	}
	assertNoChunks(t, s)
	if files, _ := s.List(alice); len(files) != 0 {
		t.Fatalf("alice has %v", files)
	}
}
