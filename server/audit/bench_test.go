package audit

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

type quietLog struct{}

func (quietLog) Info(string, ...any)  {}
func (quietLog) Warn(string, ...any)  {}
func (quietLog) Error(string, ...any) {}

// person is one of 100 people by i, bob for every hundredth: a day at its
// cap as a hundred people fill it, each within their share.
func person(i int) string {
	if i%100 == 0 {
		return "bob"
	}
	return fmt.Sprintf("person%02d", i%100)
}

// BenchmarkRecord is what an action pays to record: queueing, never the
// store (the writer stores in the background; the queue is drained as the
// benchmark goes so it never fills).
func BenchmarkRecord(b *testing.B) {
	trail := NewTrail(Options{Store: NewStore(kvtest.New()), Log: quietLog{}})
	defer trail.Close()
	e := ev(day0, "alice", "create_post", OutcomeAsked)
	b.ReportAllocs()
	for b.Loop() {
		trail.Record(e)
	}
}

// BenchmarkAppend is what the writer pays per entry, in batches as it takes
// them from the queue.
func BenchmarkAppend(b *testing.B) {
	s := NewStore(kvtest.New())
	batch := make([]Event, maxBatch)
	for i := range batch {
		batch[i] = ev(day0, person(i), "create_post", OutcomeAsked)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		// A new day before the cap, so every batch is stored.
		day := Day(day0.AddDate(0, 0, n/(DayCap/maxBatch)))
		n++
		if _, err := s.Append(day, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*maxBatch), "ns/entry")
}

// aFullDay is a store holding a day at its cap, over a KV store that
// counts its reads.
func aFullDay(b *testing.B) (*countingKV, *Store) {
	b.Helper()
	kv := &countingKV{KV: kvtest.New()}
	s := NewStore(kv)
	batch := make([]Event, DayCap)
	for i := range batch {
		batch[i] = ev(day0.Add(time.Duration(i)*time.Second), person(i), "create_post", OutcomeAsked)
	}
	if _, err := s.Append(Day(day0), batch); err != nil {
		b.Fatal(err)
	}
	return kv, s
}

// BenchmarkQueryAFullDay is a query that reads a whole day at its cap and
// finds one person's entries in it.
func BenchmarkQueryAFullDay(b *testing.B) {
	kv, s := aFullDay(b)
	b.ReportAllocs()
	kv.reads.Store(0)
	n := 0
	for b.Loop() {
		p, err := s.Query(Filter{UserID: "bob"})
		if err != nil || len(p.Entries) != DefaultPerPage {
			b.Fatalf("%d entries, %v", len(p.Entries), err)
		}
		n++
	}
	b.ReportMetric(float64(kv.reads.Load())/float64(n), "reads/op")
}

// BenchmarkQueryAFullDayForSomeoneWithNoEntries is what /mine costs a
// person with nothing on a day at its cap.
func BenchmarkQueryAFullDayForSomeoneWithNoEntries(b *testing.B) {
	kv, s := aFullDay(b)
	b.ReportAllocs()
	kv.reads.Store(0)
	n := 0
	for b.Loop() {
		p, err := s.Query(Filter{UserID: "carol"})
		if err != nil || len(p.Entries) != 0 {
			b.Fatalf("%d entries, %v", len(p.Entries), err)
		}
		n++
	}
	b.ReportMetric(float64(kv.reads.Load())/float64(n), "reads/op")
}
