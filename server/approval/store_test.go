package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// memKV is the plugin KV store in memory, with a count of what it holds.
type memKV struct{ *kvtest.Store }

func newMemKV() *memKV { return &memKV{kvtest.New()} }

// count is how many keys start with prefix.
func (k *memKV) count(prefix string) int { return len(k.Keys(prefix)) }

func newStore() *Store { return &Store{KV: newMemKV(), Now: time.Now} }

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

// tickingStore is a store whose clock moves a second per reading, so
// records are ordered by creation.
func tickingStore() (*Store, *memKV) {
	kv := newMemKV()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	return &Store{KV: kv, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}}, kv
}

func TestThePersonsNextWriteAfterTheCapIsRefusedPointingToGetPending(t *testing.T) {
	s, kv := tickingStore()
	for i := range MaxPendingPerPerson {
		if _, err := s.Create("alice", fmt.Sprint("Post ", i), plan(), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Create("alice", "One more", plan(), nil)
	if r, ok := refusal.As(err); !ok || !strings.Contains(r.Error(), "get_pending") || !strings.Contains(r.Error(), fmt.Sprint(MaxPendingPerPerson)) {
		t.Fatalf("the write past the cap: %v", err)
	}
	if n := kv.count(keyPrefix + "alice_"); n != MaxPendingPerPerson {
		t.Fatalf("%d records stored, want %d", n, MaxPendingPerPerson)
	}
	// Bob's writes are his own.
	if _, err := s.Create("bob", "Post", plan(), nil); err != nil {
		t.Fatalf("bob's first write: %v", err)
	}
}

func TestAnAnsweredWriteMakesRoomForTheNext(t *testing.T) {
	s, _ := tickingStore()
	var first Record
	for i := range MaxPendingPerPerson {
		rec, err := s.Create("alice", "Post", plan(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = rec
		}
	}
	if _, err := s.Decline("alice", first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create("alice", "Post", plan(), nil); err != nil {
		t.Fatalf("the write after one was answered: %v", err)
	}
}

func TestWritesAskedAtOnceStopAtTheCap(t *testing.T) {
	s, kv := tickingStore()
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored := 0
	for range 3 * MaxPendingPerPerson {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Create("alice", "Post", plan(), nil)
			_, refused := refusal.As(err)
			switch {
			case err == nil:
				mu.Lock()
				stored++
				mu.Unlock()
			case !refused:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if stored != MaxPendingPerPerson || kv.count(keyPrefix+"alice_") != MaxPendingPerPerson {
		t.Fatalf("%d writes stored at once (%d records), want %d", stored, kv.count(keyPrefix+"alice_"), MaxPendingPerPerson)
	}
}

func TestTheListShowsTheWriteAfterTwentyThousandOtherKeys(t *testing.T) {
	s, kv := tickingStore()
	// Sessions and mailboxes sort before pending writes; the list does not
	// scan keys, so however many there are it finds the person's.
	for i := range 25000 {
		_ = kv.Set(fmt.Sprintf("mcpsession_%06d", i), []byte("{}"), 0)
		_ = kv.Set(fmt.Sprintf("%s%06d_x", keyPrefix, i), []byte("{}"), 0)
	}
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.Sorted("alice")
	if err != nil || len(recs) != 1 || recs[0].ID != rec.ID {
		t.Fatalf("alice's list: %+v %v", recs, err)
	}
}

func TestAnExpiredWriteLeavesThePersonsIndex(t *testing.T) {
	s, kv := tickingStore()
	gone, _ := s.Create("alice", "Gone", plan(), nil)
	kept, _ := s.Create("alice", "Kept", plan(), nil)
	_ = kv.Delete(key("alice", gone.ID)) // as the KV store does when it expires
	recs, err := s.List("alice")
	if err != nil || len(recs) != 1 || recs[0].ID != kept.ID {
		t.Fatalf("list: %+v %v", recs, err)
	}
	var ids []string
	raw, _ := kv.Get(indexKey("alice"))
	if err := json.Unmarshal(raw, &ids); err != nil || len(ids) != 1 || ids[0] != kept.ID {
		t.Fatalf("index: %v %v", ids, err)
	}
}

func TestOnlyTheNewestOutcomesStayPastTheIndexBound(t *testing.T) {
	s, kv := tickingStore()
	var first Record
	for i := range maxIndexed + 10 {
		rec, err := s.Create("alice", "Post", plan(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = rec
		}
		if _, err := s.Decline("alice", rec.ID); err != nil {
			t.Fatal(err)
		}
	}
	waiting, err := s.Create("alice", "Waiting", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.Sorted("alice")
	if err != nil || len(recs) != maxIndexed || recs[0].ID != waiting.ID {
		t.Fatalf("alice lists %d records (first %+v), want %d with the waiting one first: %v", len(recs), recs[0].ID, maxIndexed, err)
	}
	if n := kv.count(keyPrefix + "alice_"); n != maxIndexed {
		t.Fatalf("%d of alice's records are stored, want %d", n, maxIndexed)
	}
	if _, err := s.Load("alice", first.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the oldest outcome is still stored: %v", err)
	}
}

func TestCountingThePersonsWritesReadsNoPlan(t *testing.T) {
	s, _ := tickingStore()
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	heads, err := s.records("alice", []string{rec.ID}, false)
	if err != nil || len(heads) != 1 || heads[0].Plan != nil || heads[0].State != StatePending || !heads[0].CreatedAt.Equal(rec.CreatedAt) {
		t.Fatalf("heads %+v %v", heads, err)
	}
	if full, _ := s.List("alice"); len(full) != 1 || full[0].Plan == nil || full[0].Plan.Files[0].Content != "secret text" {
		t.Fatalf("the list lost the plan: %+v", full)
	}
}

func TestTheSessionsOfWritesStillWaitingAreTheOnesAskedAndNotAnsweredAndOnlyThePersonsOwn(t *testing.T) {
	s := newStore()
	waiting, err := s.CreateFor("alice", "Post", plan(), nil, Origin{Session: "s-waits"})
	if err != nil {
		t.Fatal(err)
	}
	declined, err := s.CreateFor("alice", "Post", plan(), nil, Origin{Session: "s-declined"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline("alice", declined.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateFor("alice", "Post", plan(), nil, Origin{}); err != nil { // sessionless
		t.Fatal(err)
	}
	if _, err := s.CreateFor("bob", "Post", plan(), nil, Origin{Session: "s-bobs"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.WaitingSessions("alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got["s-waits"] {
		t.Fatalf("alice's sessions waiting: %v, want only the one of %s", got, waiting.ID)
	}
}

// receivedPlan is a post with a file already received into Mattermost for
// it.
func receivedPlan(fileID string) posting.Plan {
	p := plan()
	p.Dest = posting.Destination{ChannelID: "town"}
	p.Files = append(p.Files, posting.Staged{Kind: posting.KindUploaded, Ref: fileID, Name: "plan.pdf", Size: 10})
	return p
}

func TestFilesReceivedForAWriteAreDiscardedWhenItIsDeclinedWithdrawnOrExpiresAndKeptWhileItWaits(t *testing.T) {
	s := newStore()
	var discarded []string
	s.Discard = func(userID string, ids []string) {
		for _, id := range ids {
			discarded = append(discarded, userID+"/"+id)
		}
	}
	a := &Approvals{store: s}
	declined, _ := s.Create("alice", "Post", receivedPlan("f-declined"), nil)
	withdrawn, _ := s.Create("alice", "Post", receivedPlan("f-withdrawn"), nil)
	expired, _ := s.Create("alice", "Post", receivedPlan("f-expired"), nil)
	waiting, err := s.Create("alice", "Post", receivedPlan("f-waiting"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline("alice", declined.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Withdraw("alice", withdrawn.ID); err != nil {
		t.Fatal(err)
	}
	// Answered twice: the second answer discards nothing again.
	if _, err := s.Decline("alice", declined.ID); !errors.Is(err, ErrDecided) {
		t.Fatalf("second answer: %v", err)
	}
	// The KV store drops the unanswered record when its time is up.
	if err := s.KV.Delete(key("alice", expired.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExpireWrites(time.Now().Add(PendingLifetime + time.Second)); err != nil {
		t.Fatal(err)
	}
	want := "alice/f-declined,alice/f-withdrawn,alice/f-expired"
	if got := strings.Join(discarded, ","); got != want {
		t.Fatalf("discarded %s, want %s", got, want)
	}
	if got, err := s.Load("alice", waiting.ID); err != nil || got.State != StatePending || len(got.Plan.Uploads()) != 1 {
		t.Fatalf("the waiting write: %+v %v", got, err)
	}
}
