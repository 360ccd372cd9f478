package audit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

type memLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *memLog) add(msg string, kv ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, msg)
}
func (l *memLog) Info(msg string, kv ...any)  { l.add(msg, kv...) }
func (l *memLog) Warn(msg string, kv ...any)  { l.add(msg, kv...) }
func (l *memLog) Error(msg string, kv ...any) { l.add(msg, kv...) }

func TestARecordedEntryIsStoredAndGoesToMattermostsAuditLog(t *testing.T) {
	s := NewStore(kvtest.New())
	var mu sync.Mutex
	var sunk []Event
	trail := NewTrail(Options{Store: s, Log: &memLog{}, Sink: func(e Event) { mu.Lock(); sunk = append(sunk, e); mu.Unlock() },
		Now: func() time.Time { return day0 }})
	trail.Record(Event{Kind: KindPresignedURL, UserID: "alice", Tool: "files_presign", Outcome: OutcomeIssued})
	if err := trail.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := s.Query(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 1 || !p.Entries[0].At.Equal(day0) || p.Entries[0].Tool != "files_presign" {
		t.Fatalf("stored %+v", p.Entries)
	}
	if len(sunk) != 1 || sunk[0].Tool != "files_presign" {
		t.Fatalf("Mattermost's audit log got %+v", sunk)
	}
}

func TestRecordingAfterCloseLogsTheEntryInsteadOfFailing(t *testing.T) {
	log := &memLog{}
	trail := NewTrail(Options{Store: NewStore(kvtest.New()), Log: log})
	_ = trail.Close()
	trail.Record(Event{Kind: KindWrite, UserID: "alice", Outcome: OutcomeAsked})
	if len(log.lines) != 1 || !strings.Contains(log.lines[0], "only in the server log") {
		t.Fatalf("logged %q", log.lines)
	}
}

func TestAnEntryTheStoreCannotTakeIsLogged(t *testing.T) {
	log := &memLog{}
	kv := kvtest.New()
	trail := NewTrail(Options{Store: NewStore(brokenKV{kv}), Log: log})
	trail.Record(Event{Kind: KindWrite, UserID: "alice", Outcome: OutcomeAsked})
	_ = trail.Close()
	if len(log.lines) < 2 || !strings.Contains(strings.Join(log.lines, "\n"), "could not be stored") {
		t.Fatalf("logged %q", log.lines)
	}
}

func TestUsageCountsPeopleAndTheirClientsOverTheLastDays(t *testing.T) {
	kv := kvtest.New()
	now := day0
	u := &Usage{KV: kv}
	trail := NewTrail(Options{Store: NewStore(kv), Usage: u, Log: &memLog{}, Now: func() time.Time { return now }})
	trail.Used("alice", "claude-code")
	trail.Used("alice", "claude-code")
	trail.Used("alice", "cursor")
	trail.Used("bob", "claude-code")
	trail.Used("carol", "")
	_ = trail.Close()
	// A use eight days ago is outside the last seven.
	if err := u.note(now.AddDate(0, 0, -7), "dave", "vscode"); err != nil {
		t.Fatal(err)
	}
	sum, err := u.Summary(now, 7)
	if err != nil {
		t.Fatal(err)
	}
	if sum.People != 3 {
		t.Fatalf("%d people, want 3", sum.People)
	}
	want := []ClientCount{{"claude-code", 2}, {"(unnamed client)", 1}, {"cursor", 1}}
	if len(sum.Clients) != len(want) {
		t.Fatalf("clients %+v", sum.Clients)
	}
	for i := range want {
		if sum.Clients[i] != want[i] {
			t.Fatalf("clients %+v, want %+v", sum.Clients, want)
		}
	}
}

func TestAUsageShardStaysSmallAtTenThousandPeople(t *testing.T) {
	kv := kvtest.New()
	u := &Usage{KV: kv}
	for i := range 10000 {
		id := fmt.Sprintf("%026d", i) // a Mattermost id's length
		if err := u.note(day0, id, "claude-code"); err != nil {
			t.Fatal(err)
		}
	}
	biggest := 0
	for _, k := range kv.Keys(prefixUsage) {
		raw, _ := kv.Get(k)
		biggest = max(biggest, len(raw))
	}
	if biggest > 64<<10 {
		t.Fatalf("the largest shard is %d bytes", biggest)
	}
	sum, _ := u.Summary(day0, 1)
	if sum.People != 10000 {
		t.Fatalf("%d people", sum.People)
	}
}

type brokenKV struct{ *kvtest.Store }

func (brokenKV) CompareAndSet(string, []byte, []byte, time.Duration) (bool, error) {
	return false, errBroken
}

var errBroken = errorString("the database is away")

type errorString string

func (e errorString) Error() string { return string(e) }
