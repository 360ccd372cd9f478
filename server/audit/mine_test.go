package audit

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

// countingKV counts the reads of the store under it.
type countingKV struct {
	kvstore.KV
	reads atomic.Int64
}

func (c *countingKV) Get(key string) ([]byte, error) {
	c.reads.Add(1)
	return c.KV.Get(key)
}

// fullDay is a day at its cap filled by a hundred people, with carol's
// entries at the places given.
func fullDay(t testing.TB, s *Store, carolAt ...int) {
	t.Helper()
	batch := make([]Event, DayCap)
	for i := range batch {
		batch[i] = ev(day0.Add(time.Duration(i)*time.Second), person(i), "create_post", OutcomeAsked)
	}
	for _, i := range carolAt {
		batch[i].UserID = "carol"
	}
	for i := 0; i < len(batch); i += maxBatch {
		if _, err := s.Append(Day(day0), batch[i:i+maxBatch]); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAPersonWithNoEntriesOnAFullDayReadsAFewKeysNotItsChunks(t *testing.T) {
	kv := &countingKV{KV: kvtest.New()}
	s := NewStore(kv)
	fullDay(t, s)
	kv.reads.Store(0)
	p, err := s.Query(Filter{UserID: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	// The days, the day's head, carol's shard of its people.
	if n := kv.reads.Load(); n > 3 || len(p.Entries) != 0 {
		t.Fatalf("%d reads, %d entries", n, len(p.Entries))
	}
}

func TestAPersonsQueryReadsOnlyTheChunksHoldingTheirEntriesAndPagesThroughThem(t *testing.T) {
	kv := &countingKV{KV: kvtest.New()}
	s := NewStore(kv)
	// 120 of carol's entries in six chunks.
	var at []int
	for c := range 6 {
		for i := range 20 {
			at = append(at, c*3000+i*7)
		}
	}
	fullDay(t, s, at...)
	seen := map[time.Time]bool{}
	last := day0.AddDate(0, 0, 1)
	for page := 0; ; page++ {
		kv.reads.Store(0)
		p, err := s.Query(Filter{UserID: "carol", Page: page})
		if err != nil {
			t.Fatal(err)
		}
		if n := kv.reads.Load(); n > 3+6 {
			t.Fatalf("page %d read %d keys, more than the days, the head, carol's shard and her six chunks", page, n)
		}
		for _, e := range p.Entries {
			if e.UserID != "carol" || seen[e.At] || !e.At.Before(last) {
				t.Fatalf("page %d holds %+v out of turn", page, e)
			}
			seen[e.At], last = true, e.At
		}
		if !p.More {
			break
		}
	}
	if len(seen) != len(at) {
		t.Fatalf("the pages held %d of carol's %d entries", len(seen), len(at))
	}
}

func TestADayBegunBeforeTheIndexOfPeopleIsReadWhole(t *testing.T) {
	kv := kvtest.New()
	s := NewStore(kv)
	appendAll(t, s, ev(day0, "carol", "create_post", OutcomeAsked), ev(day0, aliceID, "create_post", OutcomeAsked))
	// The day as a store without the index left it: no index, no mark.
	for _, k := range kv.Keys(prefixPeople) {
		_ = kv.Delete(k)
	}
	_ = kv.Set(headKey(Day(day0)), []byte(`{"n":2}`), 0)
	// Appended to by this store from then on.
	later := NewStore(kv)
	appendAll(t, later, ev(day0.Add(time.Minute), "carol", "create_post", OutcomeDone))
	p, err := later.Query(Filter{UserID: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 {
		t.Fatalf("carol's entries of a day begun before the index: %+v", p.Entries)
	}
}

func TestAPersonsQueryReadsAtMostAMonthOfDaysAndSaysWhereToGoOn(t *testing.T) {
	kv := &countingKV{KV: kvtest.New()}
	s := NewStore(kv)
	for d := range 40 {
		appendAll(t, s, ev(day0.AddDate(0, 0, -d), aliceID, "create_post", OutcomeAsked))
	}
	kv.reads.Store(0)
	p, err := s.Query(Filter{UserID: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	if n := kv.reads.Load(); p.NextUntil == nil || n > 1+2*maxDaysRead {
		t.Fatalf("read %d keys, next_until %v", n, p.NextUntil)
	}
	want := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -maxDaysRead+1)
	if !p.NextUntil.Equal(want) {
		t.Fatalf("next_until %v, want %v: the start of the oldest day read", p.NextUntil, want)
	}
	p, err = s.Query(Filter{UserID: aliceID, Until: *p.NextUntil, PerPage: MaxPerPage})
	if err != nil || len(p.Entries) != 40-maxDaysRead || p.NextUntil != nil {
		t.Fatalf("going on from next_until: %d entries, %v, %v", len(p.Entries), p.NextUntil, err)
	}
}
