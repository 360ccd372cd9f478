package transport

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
)

// A session is in use while a node serves a request of it (a call that
// waits for the person is one: it answers within 20 s, ADR 0011) or holds
// its GET stream open; only such a session is never ended to make room
// (open). Every other one may end, least recently used first, however
// recently it was used: a client that never said goodbye is not in use.
//
// A node knows its own requests and streams exactly. Of the other nodes'
// it knows through leases in the person's index: while a node holds a
// session, the session's entry carries the node's lease, an end at most
// sessionLeaseFor away, written when the node starts holding the session
// without a lease of its own that runs at least sessionLeaseRenew more, and
// renewed while the hold lasts. A short request inside a running lease
// writes nothing. Near the cap (leasesDroppedFrom) a node drops its leases
// of sessions it no longer holds whenever it writes the person's index
// anyway (an initialize, a lease), so a burst of clients keeps no stale
// lease for long; below it, where no session ends to make room, it keeps
// them until they run out, so a client calling in a burst leases once per
// node. A node that stops writing leaves its last leases to run out. A
// lease and the end of a session both change the index by compare-and-set,
// so whichever comes second sees the first: a node ending sessions sees
// every lease written before, and a node leasing a session just ended
// learns it is gone (404).

const (
	// sessionLeaseFor is how long another node counts a session this node
	// holds as in use without hearing again: what a node that stops
	// (crash, restart) leaves behind, at most. Long against the time a
	// lease takes to be written, so clocks a few seconds apart agree.
	sessionLeaseFor = time.Minute
	// sessionLeaseRenew is how much of a lease must be left for a request
	// to start without writing one: a session in continuous use is leased
	// at most twice a minute per node, and a renewal has half a minute to
	// land before any other node could take the session for idle.
	sessionLeaseRenew = 30 * time.Second
	// leaseCheckEvery is how often a node looks for held sessions whose
	// lease needs renewing (a stream, a long call); well inside
	// sessionLeaseRenew.
	leaseCheckEvery = 5 * time.Second
	// leasesDroppedFrom is how many sessions a person's index holds when
	// a node's writes of it start dropping the node's leases of sessions
	// it no longer holds. Below it no session can be ended to make room
	// before the index grows by a quarter of the cap, and dropping at every
	// write made a node lease again on nearly every call while the
	// person's other clients called (issue 35: 0.65 index writes a call on
	// two nodes); from it on, a burst of short-lived clients finds their
	// sessions free at the cap, as before.
	leasesDroppedFrom = MaxSessionsPerPerson * 3 / 4
	// maxLeasesPerSession bounds the leases one index entry keeps, and with
	// it the entry's size (maxIndexEntryBytes): a session is rarely served
	// by more than two nodes at once; a fifth node's hold goes unrecorded
	// while four others hold the session anyway.
	maxLeasesPerSession = 4
	// sessionsBusyRetry is the Retry-After of a refused initialize when
	// the sessions are held by requests on this node: most end within a
	// few seconds.
	sessionsBusyRetry = 5 * time.Second
	// sessionsWaitRetry is the Retry-After when a session is held by a
	// write waiting for the person: they answer in minutes, not seconds.
	sessionsWaitRetry = time.Minute
	// maxLeasedHere bounds the leases a node remembers writing (a session
	// id and a time each): past it those that no longer spare a request a
	// write go, and when none does, all (the next requests lease again).
	maxLeasedHere = 10_000
	// nodeIDBytes is the size of a node's random lease name: 32 bits, so
	// the few nodes of a cluster do not share one.
	nodeIDBytes = 4
)

// holds is what this node holds in use: how many requests and streams of
// each session it serves, and until when its leases run.
type holds struct {
	mu sync.Mutex
	// node names this process's leases.
	node  string
	count map[string]int
	// users is the person of each held session, to renew its lease.
	users map[string]string
	// leased is when this node's lease of each session ends, as committed
	// to the index; a lease this node is dropping is taken out first.
	leased map[string]time.Time
	// ending is the sessions this node is ending or just ended: a request
	// that loaded one before it ended is not served (404).
	ending *expiring.Map[string, bool]
	// renewing is whether the renewer runs (renewLeases).
	renewing bool
}

// ready makes h's maps on first use; h.mu is held.
func (h *holds) ready() {
	if h.count != nil {
		return
	}
	b := make([]byte, nodeIDBytes)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported systems; the clock is
		// unique enough among a cluster's few nodes.
		binary.BigEndian.PutUint32(b, uint32(time.Now().UnixNano()))
	}
	h.node = hex.EncodeToString(b)
	h.count, h.users, h.leased = map[string]int{}, map[string]string{}, map[string]time.Time{}
	h.ending = expiring.New[string, bool](sessionCacheFor, maxCachedSessions)
}

// hold counts a session as in use on this node until release is called,
// leasing it for the other nodes when needed. open is false when the
// session has ended (here or on another node): then nothing is held.
func (s *sessionStore) hold(rec *SessionRecord) (release func(), open bool) {
	h := &s.holds
	h.mu.Lock()
	h.ready()
	if _, ending := h.ending.Get(rec.ID, s.clock()); ending {
		h.mu.Unlock()
		return func() {}, false
	}
	h.mu.Unlock()
	release = s.holdNew(rec.UserID, rec.ID)
	if !s.touch(rec) {
		release()
		return func() {}, false
	}
	return release, true
}

// holdNew counts a session as held on this node, with no questions asked:
// open holds the session an initialize is opening, so that its lease goes
// into the index with it.
func (s *sessionStore) holdNew(userID, id string) func() {
	h := &s.holds
	h.mu.Lock()
	h.ready()
	h.count[id]++
	h.users[id] = userID
	start := s.renews && !h.renewing
	h.renewing = h.renewing || start
	h.mu.Unlock()
	if start {
		go s.renewLeases()
	}
	return sync.OnceFunc(func() { s.unhold(id) })
}

func (s *sessionStore) unhold(id string) {
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count[id]--; h.count[id] <= 0 {
		delete(h.count, id)
		delete(h.users, id)
	}
}

// leaseCovers reports whether this node's lease of a session runs long
// enough for a request to start without writing one, and whether the
// session is ending here.
func (s *sessionStore) leaseCovers(id string, now time.Time) (covered, ending bool) {
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ready()
	if _, ending := h.ending.Get(id, now); ending {
		return false, true
	}
	return h.leased[id].After(now.Add(sessionLeaseRenew)), false
}

// lease writes this node's lease of a person's sessions into their index,
// in one write, and reports which of them the index no longer names
// (ended).
func (s *sessionStore) lease(userID string, ids []string) (gone map[string]bool, err error) {
	var until time.Time
	err = s.updateIndex(userID, func(entries []sessionEntry) []sessionEntry {
		now := s.now()
		until = leaseEnd(now)
		gone = make(map[string]bool, len(ids))
		for _, id := range ids {
			gone[id] = true
		}
		self := s.nodeID()
		for i := range entries {
			if !gone[entries[i].ID] {
				continue
			}
			delete(gone, entries[i].ID)
			entries[i].Seen = seenStamp(now)
			if _, mine := entries[i].Leases[self]; mine || len(entries[i].Leases) < maxLeasesPerSession {
				if entries[i].Leases == nil {
					entries[i].Leases = map[string]int64{}
				}
				entries[i].Leases[self] = until.Unix()
			}
		}
		return entries
	})
	if err != nil {
		return nil, err
	}
	s.noteLeased(ids, gone, until)
	return gone, nil
}

// noteLeased notes the leases committed for ids (but those gone).
func (s *sessionStore) noteLeased(ids []string, gone map[string]bool, until time.Time) {
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ready()
	if len(h.leased) >= maxLeasedHere {
		soon := until.Add(-sessionLeaseFor + sessionLeaseRenew) // what covers no request started now
		for id, end := range h.leased {
			if !end.After(soon) {
				delete(h.leased, id)
			}
		}
		if len(h.leased) >= maxLeasedHere {
			clear(h.leased)
		}
	}
	for _, id := range ids {
		if gone[id] || h.count[id] == 0 {
			continue // a lease of a session no longer held here is dropped with the next write
		}
		h.leased[id] = until
	}
}

// leaseEnd is the end of a lease written at now, as the index keeps it
// (whole seconds).
func leaseEnd(now time.Time) time.Time {
	return time.Unix(now.Add(sessionLeaseFor).Unix(), 0)
}

func (s *sessionStore) nodeID() string {
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ready()
	return h.node
}

// dropLeases takes out of a person's index every lease that has run out
// and, once the index holds leasesDroppedFrom sessions, this node's leases
// of sessions it no longer holds. It runs with every write of the index, so
// near the cap a node's leases last as long as its holds plus the time to
// its next write of that index.
func (s *sessionStore) dropLeases(entries []sessionEntry, now time.Time) []sessionEntry {
	crowded := len(entries) >= leasesDroppedFrom
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ready()
	for i := range entries {
		e := &entries[i]
		for n, end := range e.Leases {
			switch {
			case n == h.node && h.count[e.ID] == 0 && crowded:
				delete(e.Leases, n)
				delete(h.leased, e.ID)
			case !time.Unix(end, 0).After(now):
				delete(e.Leases, n)
			}
		}
		if len(e.Leases) == 0 {
			e.Leases = nil
		}
	}
	return entries
}

// inUse reports whether a session may not be ended now, and when to ask
// again: held here, or leased by another node. h.mu is held.
func (h *holds) inUse(e sessionEntry, now time.Time) (bool, time.Duration) {
	if h.count[e.ID] > 0 {
		return true, sessionsBusyRetry
	}
	var latest time.Time
	for n, end := range e.Leases {
		if at := time.Unix(end, 0); n != h.node && at.After(latest) {
			latest = at
		}
	}
	if latest.After(now) {
		return true, latest.Sub(now)
	}
	return false, 0
}

// renewLeases renews, every leaseCheckEvery, the leases of the sessions
// held here that run out within sessionLeaseRenew, until nothing is held.
func (s *sessionStore) renewLeases() {
	tick := time.NewTicker(leaseCheckEvery)
	defer tick.Stop()
	for range tick.C {
		if !s.renewDue() {
			return
		}
	}
}

// renewDue renews the leases due, one index write per person, and reports
// whether anything is still held (else the renewer stops).
func (s *sessionStore) renewDue() bool {
	h := &s.holds
	now := s.clock()
	h.mu.Lock()
	if len(h.count) == 0 {
		h.renewing = false
		h.mu.Unlock()
		return false
	}
	due := map[string][]string{}
	for id := range h.count {
		if !h.leased[id].After(now.Add(sessionLeaseRenew)) {
			due[h.users[id]] = append(due[h.users[id]], id)
		}
	}
	h.mu.Unlock()
	for userID, ids := range due {
		if _, err := s.lease(userID, ids); err != nil {
			s.log.Warn("Could not renew the leases of MCP sessions in use; another node may end them once the leases run out", "user_id", userID, "error", err.Error())
		}
	}
	return true
}
