package audit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

const malloryID = "mallorymallorymallorymallo"

// figures are what a page of the API says beside its entries.
type figures struct {
	Dropped  int            `json:"dropped"`
	Cut      map[string]int `json:"cut"`
	Repeated int            `json:"repeated"`
}

// figuresOf reads the figures of a page as the API answers them.
func figuresOf(t *testing.T, p Page) figures {
	t.Helper()
	raw, err := json.Marshal(p)
	var f figures
	if err != nil || json.Unmarshal(raw, &f) != nil {
		t.Fatalf("%s %v", raw, err)
	}
	return f
}

// flood appends n entries of one person in the writer's batches.
func flood(t *testing.T, s *Store, user string, n int) {
	t.Helper()
	for i := 0; i < n; i += maxBatch {
		batch := make([]Event, min(maxBatch, n-i))
		for j := range batch {
			batch[j] = Event{At: day0.Add(time.Duration(i+j) * time.Millisecond), Kind: KindConnection, UserID: user,
				ClientName: fmt.Sprintf("client-%d", i+j), Outcome: OutcomeDone, Reason: "connected"}
		}
		if _, err := s.Append(Day(day0), batch); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOnePersonsFloodLeavesOtherPeoplesLaterWritesReadableAndSaysWhoseWereCut(t *testing.T) {
	s := NewStore(kvtest.New())
	const flooded = DayCap + 500
	flood(t, s, malloryID, flooded)
	later := day0.Add(time.Hour)
	appendAll(t, s, ev(later, aliceID, "create_post", OutcomeAsked), ev(later.Add(time.Second), bobID, "add_reaction", OutcomeAccepted))

	r := mux.NewRouter()
	(&Routes{Store: s, Log: &memLog{}, IsAdmin: func(id string) bool { return id == adminID }}).Register(r)
	for _, who := range []string{aliceID, bobID} {
		if got := entries(t, get(r, adminID, APIPath+"?kind=write&user="+who)); len(got) != 1 || got[0].UserID != who {
			t.Fatalf("the admin reads %s's write after the flood: %+v", who, got)
		}
		if got := entries(t, get(r, who, MinePath)); len(got) != 1 {
			t.Fatalf("%s reads their own write after the flood: %+v", who, got)
		}
	}
	sum, err := s.Summary(day0, day0)
	if err != nil {
		t.Fatal(err)
	}
	stored := sum[0].Stored - 2
	var page figures
	if w := get(r, adminID, APIPath); w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &page) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if page.Cut[malloryID] != flooded-stored || page.Dropped != flooded-stored || len(page.Cut) != 1 {
		t.Fatalf("the trail says %+v of the flood was cut; %d of %d were stored", page, stored, flooded)
	}
	if sum[0].Counts["connection/done"] != flooded {
		t.Fatalf("the day counts %d connections, %d were made", sum[0].Counts["connection/done"], flooded)
	}
	// Mallory's own view says so too, and alice's does not name her.
	var mine, alices figures
	if w := get(r, malloryID, MinePath); json.Unmarshal(w.Body.Bytes(), &mine) != nil || mine.Cut[malloryID] != flooded-stored {
		t.Fatalf("mallory's own view: %s", w.Body)
	}
	if w := get(r, aliceID, MinePath); json.Unmarshal(w.Body.Bytes(), &alices) != nil || len(alices.Cut) != 0 {
		t.Fatalf("alice's own view names others' cuts: %s", w.Body)
	}
}

func TestAPersonsShareOfADayHoldsWithinAWatchOnEachNode(t *testing.T) {
	cases := []struct {
		name      string
		nodes     int
		entries   int
		maxStored int
	}{
		{"under the share, all stored", 1, PersonShare - 1, PersonShare - 1},
		{"one node past the share", 1, 3 * PersonShare, PersonShare},
		{"two nodes past the share", 2, 3 * PersonShare, PersonShare + shareWatch},
		{"three nodes past the share", 3, 3 * PersonShare, PersonShare + 2*shareWatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kv := kvtest.New()
			nodes := make([]*Store, c.nodes)
			for i := range nodes {
				nodes[i] = NewStore(kv)
			}
			// The nodes take turns, a few entries at a time, as a person's
			// requests spread over a cluster.
			cut := 0
			for i := 0; i < c.entries; i += 10 {
				batch := make([]Event, min(10, c.entries-i))
				for j := range batch {
					batch[j] = ev(day0, malloryID, "save_post", OutcomeDone)
				}
				res, err := nodes[(i/10)%c.nodes].Append(Day(day0), batch)
				if err != nil {
					t.Fatal(err)
				}
				cut += len(res.cut)
			}
			sum, _ := nodes[0].Summary(day0, day0)
			if sum[0].Stored > c.maxStored || sum[0].Stored+cut != c.entries || sum[0].Cut[malloryID] != cut {
				t.Fatalf("stored %d (at most %d), cut %d, the day says %+v", sum[0].Stored, c.maxStored, cut, sum[0])
			}
			if c.entries > PersonShare && sum[0].Stored < PersonShare {
				t.Fatalf("stored %d, less than the share", sum[0].Stored)
			}
		})
	}
}

func TestTheHeadCountsOnlyPeopleNearingTheirShare(t *testing.T) {
	s := NewStore(kvtest.New())
	batch := make([]Event, DayCap)
	for i := range batch {
		batch[i] = ev(day0, fmt.Sprintf("person%04d", i%1000), "create_post", OutcomeAsked) // 20 each
	}
	batch = append(batch[:DayCap-shareWatch], make([]Event, shareWatch)...)
	for i := DayCap - shareWatch; i < DayCap; i++ {
		batch[i] = ev(day0, malloryID, "create_post", OutcomeAsked)
	}
	if _, err := s.Append(Day(day0), batch); err != nil {
		t.Fatal(err)
	}
	raw, _ := s.KV.Get(headKey(Day(day0)))
	h := readHead(raw)
	if len(h.People) != 1 || h.People[malloryID] != shareWatch || len(raw) > 4<<10 {
		t.Fatalf("the head counts %v in %d bytes", h.People, len(raw))
	}
}

func TestConnectionsAreStoredOnceAMinutePerPersonAndClientAndTheRestCounted(t *testing.T) {
	type conn struct {
		after          time.Duration
		user, client   string
		disconnections bool
	}
	names := func(user string, n int, every time.Duration) []conn {
		out := make([]conn, n)
		for i := range out {
			out[i] = conn{after: time.Duration(i) * every, user: user, client: fmt.Sprintf("name-%d", i)}
		}
		return out
	}
	same := func(user, client string, n int, every time.Duration) []conn {
		out := make([]conn, n)
		for i := range out {
			out[i] = conn{after: time.Duration(i) * every, user: user, client: client}
		}
		return out
	}
	cases := []struct {
		name   string
		conns  []conn
		stored int
	}{
		{"200 new names in a minute", names(malloryID, 200, 100*time.Millisecond), MaxConnectionsAMinute},
		{"one client every 10 seconds for a minute", same(aliceID, "claude", 7, 10*time.Second), 2},
		{"one client once a minute", same(aliceID, "claude", 5, time.Minute), 5},
		{"two people with two clients each", append(same(aliceID, "claude", 5, time.Second), append(same(aliceID, "cursor", 5, time.Second),
			append(same(bobID, "claude", 5, time.Second), same(bobID, "cursor", 5, time.Second)...)...)...), 4},
		{"a new name each 20 seconds", names(malloryID, 9, 20*time.Second), 9},
		{"disconnections are not held back", []conn{{user: aliceID, client: "x", disconnections: true}, {user: aliceID, client: "x", disconnections: true}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewStore(kvtest.New())
			trail := NewTrail(Options{Store: s, Log: &memLog{}})
			for _, k := range c.conns {
				reason := "connected"
				if k.disconnections {
					reason = "disconnected"
				}
				trail.Record(Event{At: day0.Add(k.after), Kind: KindConnection, UserID: k.user, ClientName: k.client, Outcome: OutcomeDone, Reason: reason})
			}
			if err := trail.Close(); err != nil {
				t.Fatal(err)
			}
			p, err := s.Query(Filter{Kind: KindConnection, PerPage: MaxPerPage})
			if err != nil {
				t.Fatal(err)
			}
			sum, _ := s.Summary(day0, day0)
			repeated := figuresOf(t, p).Repeated
			if len(p.Entries) != c.stored || repeated != len(c.conns)-c.stored || sum[0].Counts["connection/done"] != len(c.conns) {
				t.Fatalf("stored %d (want %d), repeated %d, counted %d of %d", len(p.Entries), c.stored, repeated,
					sum[0].Counts["connection/done"], len(c.conns))
			}
		})
	}
}
