package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many clients of one person at once: a session in use is never ended; the
// bound is the bytes the person's sessions take in the KV store.

// clockStore is a session store over kv whose clock the test moves.
func clockStore(kv *memKV) (*sessionStore, *time.Time) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &sessionStore{kv: kv, index: rawKV{kv}, log: &memLog{}, now: func() time.Time { return now }}, &now
}

// tryCreate opens a session of user with its record, as an initialize does.
func (s *sessionStore) tryCreate(user string) (*SessionRecord, error) {
	id, err := s.open(user)
	if err != nil {
		return nil, err
	}
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
		if err := s.save(rec); err != nil {
			t.Fatalf("the largest record a client can cause: %v", err)
		}
		*now = now.Add(time.Second)
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

func TestWhenEverySessionIsInUseTheNextIsRefusedWithWhenOneTurnsIdleAndNoneEnds(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	for range MaxSessionsPerPerson {
		s.create(t, "alice")
	}
	*now = now.Add(3 * time.Minute)
	_, err := s.tryCreate("alice")
	full, ok := err.(*errSessionsInUse)
	if !ok {
		t.Fatalf("a session past the cap with every one in use: %v", err)
	}
	if full.RetryAfter != sessionIdleAfter-3*time.Minute {
		t.Fatalf("retry after %s, want %s", full.RetryAfter, sessionIdleAfter-3*time.Minute)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored, want all %d", n, MaxSessionsPerPerson)
	}
	if n := len(kv.index(t, "alice")); n != MaxSessionsPerPerson {
		t.Fatalf("alice's index counts %d sessions", n)
	}
}

func TestTheLeastRecentlyUsedIdleSessionMakesRoomAndASessionInUseIsKept(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	var recs []*SessionRecord
	for range MaxSessionsPerPerson {
		recs = append(recs, s.create(t, "alice"))
		*now = now.Add(time.Second)
	}
	// Everything turns idle but the first session, which is used again.
	*now = now.Add(sessionIdleAfter)
	if !s.touch(recs[0]) {
		t.Fatal("the session in use was taken for ended")
	}
	s.create(t, "alice")
	if rec, _ := s.load(recs[0].ID); rec == nil {
		t.Fatal("the session in use was ended")
	}
	if rec, _ := s.load(recs[1].ID); rec != nil {
		t.Fatal("the least recently used idle session was kept past the cap")
	}
	if rec, _ := s.load(recs[2].ID); rec == nil {
		t.Fatal("more than one session was ended for one new session")
	}
}

func TestASessionUsedWithinAMinuteIsNotWrittenAgainAndLaterIsMarkedSeen(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	rec := s.create(t, "alice")
	before := string(kv.raw(sessionIndexKey("alice")))
	*now = now.Add(sessionRefreshAfter - time.Second)
	s.touch(rec)
	if after := string(kv.raw(sessionIndexKey("alice"))); after != before {
		t.Fatalf("a request within a minute rewrote the index: %s", after)
	}
	*now = now.Add(time.Second)
	s.touch(rec)
	if seen := kv.index(t, "alice")[0].Seen; !seen.Equal(seenStamp(*now)) {
		t.Fatalf("the index says seen %s, want %s", seen, *now)
	}
	stored, _ := s.load(rec.ID)
	if stored == nil || !stored.SeenAt.Equal(*now) {
		t.Fatalf("the record says seen %v", stored)
	}
}

func TestASessionEndedAsIdleIsNotBroughtBackByARequestInFlight(t *testing.T) {
	kv := newMemKV()
	s, now := clockStore(kv)
	first := s.create(t, "alice")
	for range MaxSessionsPerPerson - 1 {
		*now = now.Add(time.Second)
		s.create(t, "alice")
	}
	*now = now.Add(sessionIdleAfter)
	s.create(t, "alice") // ends the first, the least recently used
	// A request loaded the record just before it was ended.
	if s.touch(first) {
		t.Fatal("the ended session was answered as open")
	}
	if rec, _ := s.load(first.ID); rec != nil {
		t.Fatal("an ended session came back")
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
	if len(entries) != MaxSessionsPerPerson || len(stored) != MaxSessionsPerPerson || refused.Load() != MaxSessionsPerPerson {
		t.Fatalf("%d sessions indexed, %d stored, %d refused, want %d each", len(entries), len(stored), refused.Load(), MaxSessionsPerPerson)
	}
	for _, e := range entries {
		if rec, _ := nodes[0].load(e.ID); rec == nil {
			t.Fatalf("the index names %s, which is not stored", e.ID)
		}
	}
	t.Logf("%d sessions opened at once on two nodes: %d writes of the index tried", 2*MaxSessionsPerPerson, writes.Load())
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

func TestTheInitializePastTheCapIsAnswered503WithRetryAfterAndAJSONRPCError(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true, "bob": true}
	srv := node(t, kv, &memLog{}, active)
	var first string
	for i := range MaxSessionsPerPerson {
		id := openSession(t, srv.URL, "alice", initialize)
		if i == 0 {
			first = id
		}
	}
	resp := post(t, srv.URL, "alice", "", initialize)
	text := body(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("the initialize past the cap: %d %s", resp.StatusCode, text)
	}
	retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > int(sessionIdleAfter/time.Second) {
		t.Fatalf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &msg); err != nil || msg.ID != 1 || msg.Error.Code != sessionsInUseCode ||
		!strings.Contains(msg.Error.Message, "256 MCP sessions open") || !strings.Contains(msg.Error.Message, "Try again in "+strconv.Itoa(retry)+" seconds") {
		t.Fatalf("the JSON-RPC error: %s (%v)", text, err)
	}
	// Nothing in use was ended, and another person is not refused.
	if got := body(t, post(t, srv.URL, "alice", first, callWhoami)); !strings.Contains(got, "alice") {
		t.Fatalf("the oldest session after the refusal: %s", got)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored", n)
	}
	openSession(t, srv.URL, "bob", initialize)
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
