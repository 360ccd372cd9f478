package approval

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

type memKV struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (k *memKV) Get(key string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[key], nil
}

func (k *memKV) Set(key string, v []byte, _ time.Duration) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = v
	return nil
}

func (k *memKV) CompareAndSet(key string, old, v []byte, _ time.Duration) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !bytes.Equal(k.m[key], old) {
		return false, nil
	}
	k.m[key] = v
	return true, nil
}

func (k *memKV) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, key)
	return nil
}

func (k *memKV) ListKeys(prefix string, _, _ int) ([]string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for key := range k.m {
		if strings.HasPrefix(key, prefix) {
			out = append(out, key)
		}
	}
	return out, false, nil
}

func newStore() *Store { return &Store{KV: &memKV{m: map[string][]byte{}}, Now: time.Now} }

func plan() posting.Plan {
	return posting.Plan{CallerID: "alice", Message: "hi", Files: []posting.Staged{{Kind: posting.KindWritten, Name: "a.txt", Content: "secret text"}}}
}

func TestAnotherUsersConfirmationIsNotFound(t *testing.T) {
	s := newStore()
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, probe := range []func() error{
		func() error { _, err := s.Load("bob", rec.ID); return err },
		func() error { _, err := s.Claim("bob", rec.ID); return err },
		func() error { _, err := s.Decline("bob", rec.ID); return err },
	} {
		if err := probe(); !errors.Is(err, ErrNotFound) {
			t.Fatalf("bob reached alice's record: %v", err)
		}
	}
	if recs, _ := s.List("bob"); len(recs) != 0 {
		t.Fatalf("bob lists %d of alice's records", len(recs))
	}
}

func TestOnlyOneOfManyConcurrentAnswersWins(t *testing.T) {
	s := newStore()
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = s.Claim("alice", rec.ID)
			} else {
				_, err = s.Decline("alice", rec.ID)
			}
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, ErrDecided) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d answers won", wins)
	}
}

func TestADeclinedRecordKeepsOnlyTheOutcome(t *testing.T) {
	s := newStore()
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline("alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	raw, _ := s.KV.Get(key("alice", rec.ID))
	if bytes.Contains(raw, []byte("secret text")) {
		t.Fatal("the declined record still holds the model's text")
	}
	got, err := s.Load("alice", rec.ID)
	if err != nil || got.State != StateDeclined || got.Plan != nil {
		t.Fatalf("after decline: %+v %v", got, err)
	}
}
