package kvstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

var _ kvstore.KV = kvtest.New()

// appendTo is a change that adds item to the JSON list stored at the key.
func appendTo(item string, runs *atomic.Int64) func(old []byte) (kvstore.Change, error) {
	return func(old []byte) (kvstore.Change, error) {
		if runs != nil {
			runs.Add(1)
		}
		var list []string
		if old != nil {
			if err := json.Unmarshal(old, &list); err != nil {
				return kvstore.Change{}, err
			}
		}
		next, err := json.Marshal(append(list, item))
		return kvstore.Change{Value: next, TTL: time.Hour}, err
	}
}

func listAt(t *testing.T, kv *kvtest.Store, key string) []string {
	t.Helper()
	raw, _ := kv.Get(key)
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("stored %q: %v", raw, err)
	}
	return list
}

func TestManyWritersUpdatingOneRecordAtOnceAllLand(t *testing.T) {
	kv := kvtest.New()
	// Every writer yields between its read and its write, so that the
	// others read the same value and one of them loses.
	kv.BeforeWrite = func(string) { runtime.Gosched() }
	const writers, each = 12, 8
	var wg sync.WaitGroup
	var runs atomic.Int64
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := kvstore.Update(kv, "idx_alice", appendTo(fmt.Sprintf("%d-%d", w, i), &runs)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := listAt(t, kv, "idx_alice")
	seen := map[string]bool{}
	for _, item := range got {
		seen[item] = true
	}
	if len(got) != writers*each || len(seen) != writers*each {
		t.Fatalf("%d items stored (%d distinct), want %d: a change was lost or applied twice", len(got), len(seen), writers*each)
	}
	t.Logf("%d updates from %d writers at once: %d tries lost to another writer", writers*each, writers, runs.Load()-writers*each)
}

func TestAnUpdateThatLosesToAnotherWriterRunsItsChangeAgainOnTheirValue(t *testing.T) {
	kv := kvtest.New()
	rivalWrote := false
	kv.BeforeWrite = func(key string) {
		if !rivalWrote {
			rivalWrote = true
			// Another node stores its item between our read and our write.
			_ = kv.Set(key, []byte(`["theirs"]`), 0)
		}
	}
	var runs atomic.Int64
	if err := kvstore.Update(kv, "idx_alice", appendTo("ours", &runs)); err != nil {
		t.Fatal(err)
	}
	if got := listAt(t, kv, "idx_alice"); strings.Join(got, ",") != "theirs,ours" || runs.Load() != 2 {
		t.Fatalf("stored %v after %d runs of the change, want [theirs ours] after 2", got, runs.Load())
	}
}

func TestAKeyThatKeepsChangingEndsWithAnErrorAfterTheBoundedTries(t *testing.T) {
	kv := kvtest.New()
	n := 0
	kv.BeforeWrite = func(key string) {
		n++
		_ = kv.Set(key, []byte(fmt.Sprintf(`["rival %d"]`, n)), 0)
	}
	var runs atomic.Int64
	err := kvstore.Update(kv, "pci_secretuserid", appendTo("ours", &runs))
	if !errors.Is(err, kvstore.ErrContended) {
		t.Fatalf("got %v, want ErrContended", err)
	}
	if runs.Load() != kvstore.Attempts {
		t.Fatalf("the change ran %d times, want %d", runs.Load(), kvstore.Attempts)
	}
	if msg := err.Error(); !strings.Contains(msg, "pci_") || strings.Contains(msg, "secretuserid") || !strings.Contains(msg, fmt.Sprint(kvstore.Attempts)) {
		t.Fatalf("the error should name the kind of key and the tries, not the key's id: %q", msg)
	}
	if got := listAt(t, kv, "pci_secretuserid"); len(got) != 1 || !strings.HasPrefix(got[0], "rival") {
		t.Fatalf("stored %v: our item was written although every try lost", got)
	}
}

func TestAValueOverTheSizeCapIsRefusedAndNothingIsWritten(t *testing.T) {
	kv := kvtest.New()
	_ = kv.Set("idx_alice", []byte(`["before"]`), 0)
	err := kvstore.Update(kv, "idx_alice", func([]byte) (kvstore.Change, error) {
		return kvstore.Change{Value: make([]byte, kvstore.MaxValueBytes+1)}, nil
	})
	if !errors.Is(err, kvstore.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if got := listAt(t, kv, "idx_alice"); len(got) != 1 || got[0] != "before" {
		t.Fatalf("stored %v, want the value as before", got)
	}
	// At the cap itself the value is stored.
	if err := kvstore.Update(kv, "idx_alice", func([]byte) (kvstore.Change, error) {
		return kvstore.Change{Value: make([]byte, kvstore.MaxValueBytes)}, nil
	}); err != nil {
		t.Fatalf("a value of exactly MaxValueBytes: %v", err)
	}
}

func TestAChangeThatFailsOrIsUnchangedWritesNothing(t *testing.T) {
	kv := kvtest.New()
	_ = kv.Set("idx_alice", []byte(`["before"]`), 0)
	writes := 0
	kv.BeforeWrite = func(string) { writes++ }
	refused := errors.New("the person has too many")
	if err := kvstore.Update(kv, "idx_alice", func([]byte) (kvstore.Change, error) { return kvstore.Change{}, refused }); !errors.Is(err, refused) {
		t.Fatalf("got %v, want the change's own error", err)
	}
	if err := kvstore.Update(kv, "idx_alice", func([]byte) (kvstore.Change, error) { return kvstore.Change{}, kvstore.Unchanged }); err != nil {
		t.Fatalf("Unchanged: %v", err)
	}
	if got := listAt(t, kv, "idx_alice"); writes != 0 || len(got) != 1 || got[0] != "before" {
		t.Fatalf("%d writes, stored %v; want none and the value as before", writes, got)
	}
}

func TestANilValueRemovesTheKey(t *testing.T) {
	kv := kvtest.New()
	_ = kv.Set("idx_alice", []byte(`["before"]`), 0)
	if err := kvstore.Update(kv, "idx_alice", func([]byte) (kvstore.Change, error) { return kvstore.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	if raw, _ := kv.Get("idx_alice"); raw != nil {
		t.Fatalf("still stored: %q", raw)
	}
	// Removing what is not there writes nothing and is no error.
	if err := kvstore.Update(kv, "idx_bob", func([]byte) (kvstore.Change, error) { return kvstore.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
}

func TestTheWaitBeforeARetryGrowsAtRandomWithinItsBound(t *testing.T) {
	for attempt := 1; attempt <= kvstore.Attempts; attempt++ {
		limit := min(time.Duration(attempt)*2*time.Millisecond, kvstore.MaxBackoff)
		for range 50 {
			if d := kvstore.Backoff(attempt); d < 0 || d > limit {
				t.Fatalf("retry %d waits %v, above its bound %v", attempt, d, limit)
			}
		}
	}
}
