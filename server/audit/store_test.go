package audit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

var day0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func ev(at time.Time, user, tool, outcome string) Event {
	return Event{At: at, Kind: KindWrite, UserID: user, Tool: tool, Outcome: outcome, ClientName: "claude-code", ClientVersion: "2.1",
		Targets: map[string]string{"channel_id": strings.Repeat("c", 26)}}
}

func appendAll(t *testing.T, s *Store, evs ...Event) {
	t.Helper()
	byDay := map[string][]Event{}
	var days []string
	for _, e := range evs {
		d := Day(e.At)
		if byDay[d] == nil {
			days = append(days, d)
		}
		byDay[d] = append(byDay[d], e)
	}
	for _, d := range days {
		if _, err := s.Append(d, byDay[d]); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAQueryFindsEntriesByPersonToolOutcomeKindAndTimeNewestFirst(t *testing.T) {
	s := NewStore(kvtest.New())
	own := Event{At: day0.Add(3 * time.Minute), Kind: KindOwnView, UserID: "bob", Tool: "save_post", Outcome: OutcomeDone}
	appendAll(t, s,
		ev(day0, "alice", "create_post", OutcomeAsked),
		ev(day0.Add(time.Minute), "alice", "create_post", OutcomeAccepted),
		ev(day0.Add(2*time.Minute), "bob", "add_reaction", OutcomeDeclined),
		own,
		ev(day0.AddDate(0, 0, 1), "alice", "create_post", OutcomeDone),
	)
	cases := []struct {
		name string
		f    Filter
		want []string // tool/outcome, newest first
	}{
		{"everything", Filter{}, []string{"create_post/done", "save_post/done", "add_reaction/declined", "create_post/accepted", "create_post/asked"}},
		{"by person", Filter{UserID: "bob"}, []string{"save_post/done", "add_reaction/declined"}},
		{"by tool", Filter{Tool: "create_post"}, []string{"create_post/done", "create_post/accepted", "create_post/asked"}},
		{"by outcome", Filter{Outcome: OutcomeDone}, []string{"create_post/done", "save_post/done"}},
		{"by kind", Filter{Kind: KindOwnView}, []string{"save_post/done"}},
		{"since inclusive", Filter{Since: day0.Add(2 * time.Minute)}, []string{"create_post/done", "save_post/done", "add_reaction/declined"}},
		{"until exclusive", Filter{Until: day0.Add(time.Minute)}, []string{"create_post/asked"}},
		{"a range across days", Filter{Since: day0.Add(3 * time.Minute), Until: day0.AddDate(0, 0, 2)}, []string{"create_post/done", "save_post/done"}},
		{"nothing matches", Filter{UserID: "carol"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := s.Query(c.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p.Entries {
				got = append(got, e.Tool+"/"+e.Outcome)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestPagesFollowEachOtherWithoutGapsOrRepeats(t *testing.T) {
	s := NewStore(kvtest.New())
	var evs []Event
	for i := range 450 {
		evs = append(evs, ev(day0.Add(time.Duration(i)*time.Second), "alice", "create_post", OutcomeAsked))
	}
	appendAll(t, s, evs...)
	seen := map[time.Time]bool{}
	last := day0.Add(time.Hour)
	for page := 0; ; page++ {
		p, err := s.Query(Filter{Page: page, PerPage: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entries {
			if seen[e.At] || !e.At.Before(last) {
				t.Fatalf("page %d repeats or misorders %v", page, e.At)
			}
			seen[e.At], last = true, e.At
		}
		if !p.More {
			break
		}
	}
	if len(seen) != 450 {
		t.Fatalf("pages held %d entries, want 450", len(seen))
	}
}

func TestAPageBeyondTheCapIsRefused(t *testing.T) {
	s := NewStore(kvtest.New())
	for _, f := range []Filter{{PerPage: MaxPerPage + 1}, {Page: -1}, {Page: MaxPage + 1}} {
		if _, err := s.Query(f); err == nil {
			t.Errorf("%+v was accepted", f)
		}
	}
}

func TestADayPastItsCapCountsWhatItLeftOut(t *testing.T) {
	s := NewStore(kvtest.New())
	batch := make([]Event, DayCap+7)
	for i := range batch {
		batch[i] = ev(day0, person(i), "create_post", OutcomeAsked)
	}
	res, err := s.Append(Day(day0), batch)
	if err != nil {
		t.Fatal(err)
	}
	if res.stored != DayCap || len(res.dropped) != 7 {
		t.Fatalf("stored %d, dropped %d; want %d and 7", res.stored, len(res.dropped), DayCap)
	}
	sum, err := s.Summary(day0, day0)
	if err != nil {
		t.Fatal(err)
	}
	if sum[0].Stored != DayCap || sum[0].Dropped != 7 || sum[0].Counts["write/asked"] != DayCap+7 {
		t.Fatalf("summary %+v", sum[0])
	}
	p, err := s.Query(Filter{PerPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dropped != 7 {
		t.Fatalf("the query says %d were left out, want 7", p.Dropped)
	}
}

func TestTwoNodesAppendingAtOnceBothLand(t *testing.T) {
	kv := kvtest.New()
	a, b := NewStore(kv), NewStore(kv)
	// Node b appends between node a's read and write of every key, once.
	var once sync.Map
	kv.BeforeWrite = func(key string) {
		if _, done := once.LoadOrStore(key, true); !done {
			if _, err := b.Append(Day(day0), []Event{ev(day0, "bob", "add_reaction", OutcomeAsked)}); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := a.Append(Day(day0), []Event{ev(day0, "alice", "create_post", OutcomeAsked)}); err != nil {
		t.Fatal(err)
	}
	kv.BeforeWrite = nil
	p, err := a.Query(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	users := map[string]int{}
	for _, e := range p.Entries {
		users[e.UserID]++
	}
	if users["alice"] != 1 || users["bob"] < 1 {
		t.Fatalf("entries by person %v: one append was lost", users)
	}
	sum, _ := a.Summary(day0, day0)
	if sum[0].Stored != len(p.Entries) {
		t.Fatalf("the head counts %d, the chunks hold %d", sum[0].Stored, len(p.Entries))
	}
}

func TestTheSweepRemovesWholeDaysOlderThanTheRetention(t *testing.T) {
	kv := kvtest.New()
	s := NewStore(kv)
	now := day0
	appendAll(t, s,
		ev(now.AddDate(0, 0, -31), "alice", "create_post", OutcomeAsked),
		ev(now.AddDate(0, 0, -30), "alice", "create_post", OutcomeAsked),
		ev(now, "alice", "create_post", OutcomeDone),
	)
	removed, err := s.Sweep(now, 30)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 1 {
		t.Fatalf("removed %d days, want 1", removed)
	}
	if left := kv.Keys(prefixChunk + Day(now.AddDate(0, 0, -31))); len(left) > 0 {
		t.Fatalf("left %v", left)
	}
	if kv.Keys(headKey(Day(now.AddDate(0, 0, -31)))) != nil {
		t.Fatal("the old day's head is left")
	}
	days, _ := s.Days()
	if fmt.Sprint(days) != fmt.Sprint([]string{Day(now.AddDate(0, 0, -30)), Day(now)}) {
		t.Fatalf("days left %v", days)
	}
	p, _ := s.Query(Filter{})
	if len(p.Entries) != 2 {
		t.Fatalf("%d entries left, want 2", len(p.Entries))
	}
}

func TestAQueryReadsABoundedNumberOfDaysAndSaysWhereToGoOn(t *testing.T) {
	s := NewStore(kvtest.New())
	// Three full days: more chunks than one query reads.
	for d := range 3 {
		at := day0.AddDate(0, 0, -d)
		batch := make([]Event, DayCap)
		for i := range batch {
			batch[i] = ev(at, person(i), "create_post", OutcomeAsked)
		}
		if _, err := s.Append(Day(at), batch); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.Query(Filter{Tool: "no_such_tool"})
	if err != nil {
		t.Fatal(err)
	}
	if p.NextUntil == nil || !p.NextUntil.Equal(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("next_until %v, want the start of the day read", p.NextUntil)
	}
}

func TestAnEntryIsCutToItsBoundsBeforeItIsStored(t *testing.T) {
	targets := map[string]string{}
	for i := range 20 {
		targets[fmt.Sprintf("user_id_%02d", i)] = strings.Repeat("u", 200)
	}
	b := Bounded(Event{ClientName: strings.Repeat("é", 300), ClientVersion: strings.Repeat("9", 300), Targets: targets, Outcome: "x\xffy"})
	if len(b.ClientName) > maxClientNameBytes || !strings.HasPrefix(b.ClientName, "é") || len(b.ClientVersion) > maxFieldBytes {
		t.Fatalf("client %q %q", b.ClientName, b.ClientVersion)
	}
	if len(b.Targets) != maxTargets || b.Targets["more_targets"] != "13" {
		t.Fatalf("targets %v", b.Targets)
	}
	for _, v := range b.Targets {
		if len(v) > maxTargetValueBytes {
			t.Fatalf("a target of %d bytes", len(v))
		}
	}
	if b.Outcome != "x\uFFFDy" {
		t.Fatalf("outcome %q", b.Outcome)
	}
	raw, err := encodeChunk([]stored{toStored(Event{ClientName: strings.Repeat("\"", 300), Targets: targets})})
	if err != nil || len(raw) > maxEntryBytes {
		t.Fatalf("an entry at its bounds takes %d bytes, over maxEntryBytes %d (%v)", len(raw), maxEntryBytes, err)
	}
}

func TestAChunkThatIsNotOneIsRefusedNotTrusted(t *testing.T) {
	for _, raw := range []string{"", "null", "[]", `{"v":2,"e":[]}`, `{"v":1,"e":[{"t":"x"}]}`, strings.Repeat("[", 10000)} {
		if _, err := decodeChunk([]byte(raw)); err == nil && raw != "" {
			t.Errorf("%.20q decoded", raw)
		}
	}
}
