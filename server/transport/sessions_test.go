package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// Many clients of one person at once: a session in use (a request in
// flight, a stream open, on any node) is never ended, any other one may be,
// least recently used first; the bound is the bytes the person's sessions
// take in the KV store.

// clockStore is a session store over kv whose clock the test moves.
func clockStore(kv *memKV) (*sessionStore, *time.Time) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: func() time.Time { return now }}, &now
}

// tryCreate opens a session of user with its record, as an initialize does.
func (s *sessionStore) tryCreate(user string) (*SessionRecord, error) {
	id, release, err := s.open(user)
	if err != nil {
		return nil, err
	}
	defer release() // the initialize is done
	rec := &SessionRecord{ID: id, UserID: user, CreatedAt: s.now(), SeenAt: s.now()}
	return rec, s.save(rec)
}

func (s *sessionStore) create(t *testing.T, user string) *SessionRecord {
	t.Helper()
	rec, err := s.tryCreate(user)
	if err != nil {
		t.Error(err) // called from goroutines too: no Fatal
	}
	return rec
}

func (m *memKV) index(t *testing.T, user string) []sessionEntry {
	t.Helper()
	var entries []sessionEntry
	if err := json.Unmarshal(m.raw(sessionIndexKey(user)), &entries); err != nil {
		t.Fatalf("the index of %s: %v", user, err)
	}
	return entries
}

func TestThePersonsSessionsTakeAtMostTheStatedBytesInTheKVStore(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	long := strings.Repeat("\x01", 1000) // escaped as \u0001: six bytes each
	for range MaxSessionsPerPerson {
		rec := s.create(t, "alice")
		rec.ClientName, rec.ClientVersion, rec.ProtocolVersion = truncate(long, maxClientNameBytes), truncate(long, maxClientVersionBytes), truncate(long, maxProtocolVersionBytes)
		rec.MattermostSessionID = strings.Repeat("m", 26)
		rec.Choice = config.Choice{Chosen: true, Toolsets: config.AllToolsets, Light: true, ReadOnly: true}
		for len(rec.Choice.Tools) < config.MaxChosenTools { // longer than any tool's name
			rec.Choice.Tools = append(rec.Choice.Tools, strings.Repeat("t", 24))
		}
		if err := s.save(rec); err != nil {
			t.Fatalf("the largest record a client can cause: %v", err)
		}
		*now = now.Add(time.Second)
	}
	// Every session held on as many nodes as an entry keeps leases of.
	ids := kv.sessionsOf("alice")
	for range maxLeasesPerSession {
		n := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
		for _, id := range ids {
			defer n.holdNew("alice", id)()
		}
		if _, err := n.lease("alice", ids); err != nil {
			t.Fatal(err)
		}
	}
	if held := kv.index(t, "alice")[0].Leases; len(held) != maxLeasesPerSession {
		t.Fatalf("a session held on %d nodes has %d leases: %v", maxLeasesPerSession, len(held), held)
	}
	total := len(kv.raw(sessionIndexKey("alice")))
	if total > maxIndexBytes {
		t.Fatalf("the index of %d sessions takes %d bytes, above %d", MaxSessionsPerPerson, total, maxIndexBytes)
	}
	for _, id := range kv.sessionsOf("alice") {
		total += len(kv.raw(sessionKey(id)))
	}
	if bound := MaxSessionsPerPerson*maxSessionRecordBytes + maxIndexBytes; total > bound {
		t.Fatalf("alice's sessions take %d bytes, above %d", total, bound)
	}
	t.Logf("%d sessions of the largest kind take %d KiB with their index", MaxSessionsPerPerson, total>>10)
}

func TestTheLeastRecentlyUsedSessionMakesRoomAtOnceHoweverRecentlyItWasUsed(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	var recs []*SessionRecord
	for range MaxSessionsPerPerson {
		recs = append(recs, s.create(t, "alice"))
		*now = now.Add(time.Second)
	}
	// Each was used seconds ago, and none is in use now: clients that never
	// said goodbye.
	if _, err := s.tryCreate("alice"); err != nil {
		t.Fatalf("a session past the cap, with none in use: %v", err)
	}
	if rec, _ := s.load(recs[0].ID); rec != nil {
		t.Fatal("the least recently used session was kept past the cap")
	}
	if rec, _ := s.load(recs[1].ID); rec == nil {
		t.Fatal("more than one session was ended for one new session")
	}
	if n := len(kv.index(t, "alice")); n != MaxSessionsPerPerson {
		t.Fatalf("alice's index counts %d sessions, want %d", n, MaxSessionsPerPerson)
	}
}

func TestASessionHeldHereOrOnAnotherNodeIsKeptAndTheLeastRecentlyUsedOtherOneEnds(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	other := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	var recs []*SessionRecord
	for range MaxSessionsPerPerson {
		recs = append(recs, s.create(t, "alice"))
		*now = now.Add(time.Second)
	}
	// The two least recently used are in use: one here, one on the other node.
	for _, held := range []struct {
		node *sessionStore
		rec  *SessionRecord
	}{{s, recs[0]}, {other, recs[1]}} {
		release, open := held.node.hold(held.rec)
		if !open {
			t.Fatal("a session in use was taken for ended")
		}
		defer release()
	}
	s.create(t, "alice")
	for i, want := range []bool{true, true, false, true} {
		if rec, _ := s.load(recs[i].ID); (rec != nil) != want {
			t.Fatalf("session %d kept %v, want %v", i, rec != nil, want)
		}
	}
}

func TestASessionWhoseWriteWaitsForThePersonIsNeverEndedToMakeRoomAndTheLeastRecentlyUsedOtherOneIs(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	var recs []*SessionRecord
	for range MaxSessionsPerPerson {
		recs = append(recs, s.create(t, "alice"))
		*now = now.Add(time.Second)
	}
	// The least recently used session asked a write that still waits for
	// alice: its client must still hear of her answer.
	reads := 0
	s.waiting = func(userID string) (map[string]bool, error) {
		reads++
		if userID != "alice" {
			t.Fatalf("the waiting writes of %q were read for alice's session", userID)
		}
		return map[string]bool{recs[0].ID: true}, nil
	}
	if _, err := s.tryCreate("alice"); err != nil {
		t.Fatalf("a session past the cap, with one waiting: %v", err)
	}
	if rec, _ := s.load(recs[0].ID); rec == nil {
		t.Fatal("the session whose write waits for the person was ended to make room")
	}
	if rec, _ := s.load(recs[1].ID); rec != nil {
		t.Fatal("the least recently used session with nothing waiting was kept")
	}
	if reads != 1 {
		t.Fatalf("the waiting writes were read %d times for one new session, want once", reads)
	}
	// Below the cap, nobody's writes are read.
	reads = 0
	if _, err := s.tryCreate("bob"); err != nil || reads != 0 {
		t.Fatalf("bob's first session: %v, the waiting writes read %d times", err, reads)
	}
}

func TestWhenEverySessionWaitsForThePersonTheNextIsRefusedWithAMinutesRetry(t *testing.T) {
	kv := newMemKV()
	s, _ := clockStore(kv)
	all := map[string]bool{}
	for range MaxSessionsPerPerson {
		all[s.create(t, "alice").ID] = true
	}
	s.waiting = func(string) (map[string]bool, error) { return all, nil }
	_, err := s.tryCreate("alice")
	full, ok := err.(*errSessionsInUse)
	if !ok || full.RetryAfter != sessionsWaitRetry {
		t.Fatalf("a session past the cap with every one waiting for the person: %v", err)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored, want all %d", n, MaxSessionsPerPerson)
	}
}

func TestWhenEverySessionIsInUseTheNextIsRefusedAndNoneEndsAndOnceOneIsNotItMakesRoom(t *testing.T) {
	kv := newMemKV()
	s, _ := clockStore(kv)
	var releases []func()
	for range MaxSessionsPerPerson {
		release, open := s.hold(s.create(t, "alice"))
		if !open {
			t.Fatal("a new session was taken for ended")
		}
		releases = append(releases, release)
	}
	_, err := s.tryCreate("alice")
	full, ok := err.(*errSessionsInUse)
	if !ok || full.RetryAfter != sessionsBusyRetry {
		t.Fatalf("a session past the cap with every one in use: %v", err)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored, want all %d", n, MaxSessionsPerPerson)
	}
	releases[7]()
	if _, err := s.tryCreate("alice"); err != nil {
		t.Fatalf("a session past the cap once one is no longer in use: %v", err)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored, want %d", n, MaxSessionsPerPerson)
	}
	for _, release := range releases {
		release()
	}
}

func TestAnotherNodesLeaseKeepsASessionInUseUntilItRunsOutOrThatNodeDropsIt(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	other := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	var releases []func()
	for range MaxSessionsPerPerson {
		release, open := other.hold(other.create(t, "alice"))
		if !open {
			t.Fatal("a new session was taken for ended")
		}
		releases = append(releases, release)
	}
	*now = now.Add(10 * time.Second)
	_, err := s.tryCreate("alice")
	if full, ok := err.(*errSessionsInUse); !ok || full.RetryAfter != sessionLeaseFor-10*time.Second {
		t.Fatalf("every session held on the other node: %v", err)
	}
	// The other node's requests end; at the cap its next write of the
	// index drops its leases of them, and the sessions may end.
	for _, release := range releases {
		release()
	}
	other.create(t, "alice")
	if _, err := s.tryCreate("alice"); err != nil {
		t.Fatalf("after the other node dropped its leases: %v", err)
	}
	// A node that stops (no release, no write) leaves leases that run out.
	stopped := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	var held []func()
	for _, id := range kv.sessionsOf("alice") {
		held = append(held, stopped.holdNew("alice", id))
	}
	if _, err := stopped.lease("alice", kv.sessionsOf("alice")); err != nil {
		t.Fatal(err)
	}
	for _, release := range held {
		release()
	}
	if _, err := s.tryCreate("alice"); err == nil {
		t.Fatal("a session leased by a node that stopped a moment ago was ended")
	}
	*now = now.Add(sessionLeaseFor)
	if _, err := s.tryCreate("alice"); err != nil {
		t.Fatalf("after the stopped node's leases ran out: %v", err)
	}
}

func TestASessionHeldLongerThanItsLeaseIsRenewedAndStaysInUseOnEveryNode(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	other := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	first := other.create(t, "alice")
	release, _ := other.hold(first) // a stream that stays open
	defer release()
	for range MaxSessionsPerPerson - 1 {
		s.create(t, "alice")
	}
	for range 10 { // ten minutes
		*now = now.Add(sessionLeaseRenew)
		other.renewDue()
		*now = now.Add(sessionLeaseRenew)
		other.renewDue()
		s.create(t, "alice")
	}
	if rec, _ := s.load(first.ID); rec == nil {
		t.Fatal("the session held for ten minutes on the other node was ended")
	}
}

func TestARequestInsideItsNodesLeaseWritesNothingAndOneNearItsEndLeasesAgain(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	rec := s.create(t, "alice")
	hold := func() {
		release, open := s.hold(rec)
		if !open {
			t.Fatal("the session was taken for ended")
		}
		release()
	}
	hold() // leases it
	before := string(kv.raw(sessionIndexKey("alice")))
	*now = now.Add(sessionLeaseFor - sessionLeaseRenew - time.Second)
	for range 100 {
		hold()
	}
	if after := string(kv.raw(sessionIndexKey("alice"))); after != before {
		t.Fatalf("requests inside the lease rewrote the index: %s", after)
	}
	*now = now.Add(2 * time.Second)
	release, _ := s.hold(rec)
	defer release()
	e := kv.index(t, "alice")[0]
	if !e.Seen.Equal(seenStamp(*now)) || len(e.Leases) != 1 {
		t.Fatalf("the index after a request near the lease's end: %+v", e)
	}
	for _, end := range e.Leases {
		if end != now.Add(sessionLeaseFor).Unix() {
			t.Fatalf("the lease ends at %d, want %d", end, now.Add(sessionLeaseFor).Unix())
		}
	}
}

func TestClientsOfOnePersonCallingInABurstOnTwoNodesLeaseEachSessionOncePerNode(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	other := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	var recs []*SessionRecord
	for range 10 {
		recs = append(recs, other.create(t, "alice")) // its lease goes in with the initialize
	}
	const calls = 40 // each client's, to either node in turn, the clients' calls interleaved
	_, before := kv.counts()
	for range calls / 2 {
		for _, rec := range recs {
			for _, n := range []*sessionStore{s, other} {
				release, open := n.hold(rec)
				if !open {
					t.Fatal("a session in use was taken for ended")
				}
				*now = now.Add(20 * time.Millisecond)
				release()
			}
		}
	}
	if _, after := kv.counts(); after-before != len(recs) {
		t.Fatalf("%d calls of %d clients wrote the index %d times, want once per session on the node that had no lease", calls*len(recs), len(recs), after-before)
	}
}

func TestLeasesANodeKeptOfIdleSessionsBelowTheCrowdLockNobodyOutWhenAnotherNodeFillsTheIndex(t *testing.T) {
	kv := newMemKV()
	s, _ := clockStore(kv)
	quiet := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	var kept []*SessionRecord
	for range leasesDroppedFrom - 1 {
		rec := quiet.create(t, "alice")
		release, _ := quiet.hold(rec)
		release()
		kept = append(kept, rec) // idle, and still leased by quiet, which writes no more
	}
	for i := range 2 * MaxSessionsPerPerson {
		if _, err := s.tryCreate("alice"); err != nil {
			t.Fatalf("session %d opened on the other node: %v", i+1, err)
		}
	}
	if n := len(kv.index(t, "alice")); n != MaxSessionsPerPerson {
		t.Fatalf("the index holds %d sessions, want %d", n, MaxSessionsPerPerson)
	}
	for _, rec := range kept {
		if got, _ := s.load(rec.ID); got == nil {
			t.Fatal("a session the quiet node still leases was ended")
		}
	}
}

func TestASessionEndedToMakeRoomIsNotBroughtBackByARequestThatLoadedItBefore(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	other := &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: s.now}
	first := s.create(t, "alice")
	second := s.create(t, "alice")
	for range MaxSessionsPerPerson - 2 {
		*now = now.Add(time.Second)
		s.create(t, "alice")
	}
	s.create(t, "alice") // ends the first, the least recently used
	s.create(t, "alice") // and the second
	// Requests loaded the records just before they were ended: here, and
	// on a node that did not end them.
	if release, open := s.hold(first); open {
		release()
		t.Fatal("the ended session was served on its node")
	}
	if release, open := other.hold(second); open {
		release()
		t.Fatal("the ended session was served on another node")
	}
	if rec, _ := s.load(first.ID); rec != nil {
		t.Fatal("an ended session came back")
	}
	if n := len(kv.index(t, "alice")); n != MaxSessionsPerPerson {
		t.Fatalf("alice's index counts %d sessions", n)
	}
}

func TestExpiredSessionsLeaveTheIndexWithoutBeingCounted(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	for range MaxSessionsPerPerson {
		s.create(t, "alice")
	}
	*now = now.Add(sessionLifetime)
	kept := s.create(t, "alice")
	if entries := kv.index(t, "alice"); len(entries) != 1 || entries[0].ID != kept.ID {
		t.Fatalf("index after a week: %+v", entries)
	}
}

// slowIndex is the index store with the latency of a database, so that
// concurrent openings overlap; it counts the writes that were tried.
type slowIndex struct {
	rawKV
	writes *atomic.Int64
}

func (s slowIndex) Get(key string) ([]byte, error) {
	time.Sleep(200 * time.Microsecond)
	return s.rawKV.Get(key)
}

func (s slowIndex) CompareAndSet(key string, old, value []byte, ttl time.Duration) (bool, error) {
	s.writes.Add(1)
	time.Sleep(200 * time.Microsecond)
	return s.rawKV.CompareAndSet(key, old, value, ttl)
}

func TestTheIndexAndTheRecordsAgreeAfterManySessionsOpenedAtOnceOnTwoNodes(t *testing.T) {
	kv := newMemKV()
	writes := &atomic.Int64{}
	nodes := []*sessionStore{
		{kv: kv, index: slowIndex{rawKV{kv}, writes}, log: &memLog{}, now: time.Now},
		{kv: kv, index: slowIndex{rawKV{kv}, writes}, log: &memLog{}, now: time.Now},
	}
	var wg sync.WaitGroup
	var refused atomic.Int64
	for i := range 2 * MaxSessionsPerPerson {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := nodes[i%2].tryCreate("alice"); err != nil {
				if _, full := err.(*errSessionsInUse); !full {
					t.Error(err)
				}
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	entries := kv.index(t, "alice")
	stored := kv.sessionsOf("alice")
	// Sessions still initializing are in use, so some openings may have
	// been refused; the others ended the least recently used.
	if len(entries) != MaxSessionsPerPerson || len(stored) != MaxSessionsPerPerson {
		t.Fatalf("%d sessions indexed, %d stored, want %d each", len(entries), len(stored), MaxSessionsPerPerson)
	}
	for _, e := range entries {
		if rec, _ := nodes[0].load(e.ID); rec == nil {
			t.Fatalf("the index names %s, which is not stored", e.ID)
		}
	}
	t.Logf("%d sessions opened at once on two nodes: %d refused, %d writes of the index tried", 2*MaxSessionsPerPerson, refused.Load(), writes.Load())
}

// initializeAt is one initialize over HTTP, from any goroutine.
func initializeAt(url, user string) (*http.Response, string, error) {
	req, _ := http.NewRequest(http.MethodPost, url+MCPPath, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mattermost-User-Id", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, err = io.Copy(&b, resp.Body)
	return resp, b.String(), err
}

func TestTwoHundredInitializesOfOnePersonAtOnceOnTwoNodesAllSucceed(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, &memLog{}, active), node(t, kv, &memLog{}, active)
	const clients = 200
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := a.URL
			if i%2 == 1 {
				url = b.URL
			}
			resp, text, err := initializeAt(url, "alice")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("initialize %d: %v %v %s", i, err, resp, text)
			}
		}()
	}
	wg.Wait()
	if n := len(kv.sessionsOf("alice")); n != clients {
		t.Fatalf("%d of alice's sessions are stored, want %d", n, clients)
	}
	if n := len(kv.index(t, "alice")); n != clients {
		t.Fatalf("alice's index counts %d sessions, want %d", n, clients)
	}
}

func TestAFailedInitializeLeavesNothingCounted(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	resp := post(t, srv.URL, "alice", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"not an object"}`)
	if text := body(t, resp); !strings.Contains(text, `"error"`) {
		t.Fatalf("a malformed initialize: %d %s", resp.StatusCode, text)
	}
	if raw := kv.raw(sessionIndexKey("alice")); raw != nil && string(raw) != "[]" {
		t.Fatalf("the failed initialize is counted: %s", raw)
	}
	if n := len(kv.sessionsOf("alice")); n != 0 {
		t.Fatalf("%d sessions stored", n)
	}
}

func TestASessionRecordsTheProtocolVersionTheServerAgreedTo(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", strings.Replace(initialize, "2025-11-25", "1999-01-01", 1))
	rec, _ := (&sessionStore{kv: kv}).load(session)
	if rec == nil || rec.ProtocolVersion == "1999-01-01" || rec.ProtocolVersion == "" {
		t.Fatalf("the record keeps protocol %+v", rec)
	}
}

func TestTheLeasesANodeRemembersAreBounded(t *testing.T) {
	s, now := clockStore(newMemKV())
	until := leaseEnd(*now)
	for i := range maxLeasedHere + 10 {
		id := fmt.Sprintf("mm-mcp-%d", i)
		release := s.holdNew("alice", id)
		s.noteLeased([]string{id}, nil, until)
		release()
		if i == maxLeasedHere/2 {
			*now = now.Add(sessionLeaseFor) // the first half no longer spares a request a write
			until = leaseEnd(*now)
		}
	}
	if n := len(s.holds.leased); n > maxLeasedHere || n < maxLeasedHere/2 {
		t.Fatalf("the node remembers %d leases, want at most %d and the recent ones", n, maxLeasedHere)
	}
}
