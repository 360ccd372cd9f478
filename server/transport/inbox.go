package transport

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// A notification for a session whose GET stream is open on another node
// travels two ways (ADR 0018). The plugin cluster event (sessionnotify.go)
// is quick, but a Mattermost without a cluster licence delivers none, and
// says nothing of it. So the notice is also appended to the KV inbox of
// each other node the session's entry in its person's index names: a node
// holding a stream holds the session, and its lease is there (inuse.go).
// Each node that holds a GET stream reads its own inbox every
// noticeInboxPoll, takes what is there in one compare-and-delete, and
// writes each notice to its stream. A notice carries an id; the node
// remembers the ids it wrote, so a notice that came both ways is written
// once.

const (
	noticeInboxPrefix = "mcpinbox_"
	// noticeInboxPoll is how often a node holding a GET stream reads its
	// inbox: the worst delay of a notice on a cluster without events. A
	// person who answered a page sees their client close the question
	// within a blink; an empty inbox costs one read of a missing key.
	noticeInboxPoll = 250 * time.Millisecond
	// maxInboxNotices bounds a node's inbox, the oldest dropped past it: a
	// node takes its inbox four times a second, so 128 is 500 notices a
	// second for it before any is lost, and 128 notices at their bound
	// (maxRelayedNoticeBytes) take under 600 KiB, within one KV value.
	maxInboxNotices = 128
	// noticeInboxFor is how long a notice waits in an inbox, and how long
	// an inbox lives after its last notice: a node that holds a stream
	// takes it within a poll, so an older one is for a node that no longer
	// reads (its streams closed, it stopped), whose client missed it.
	noticeInboxFor = 30 * time.Second
	// noticeSeenFor is how long a node remembers the id of a notice it
	// wrote: the other copy comes within a poll, or a noticeInboxFor at
	// most.
	noticeSeenFor = time.Minute
	// maxSeenNotices bounds those ids (16 bytes each): a minute of notices
	// at a node's busiest. Past it the expired go, and when none has, all:
	// a notice may then be written twice, which a client takes in its
	// stride (a question closed twice, a status told twice).
	maxSeenNotices = 10_000
	// noticeIDBytes is the size of a notice's random id.
	noticeIDBytes = 8
)

// inboxNotice is one notice in a node's inbox: the payload a cluster event
// would carry, and when it was sent (Unix milliseconds).
type inboxNotice struct {
	relayedNotice
	At int64 `json:"t"`
}

// inboxes is this node's side of the KV inboxes: the notices waiting to
// be appended to other nodes' inboxes, whether this node reads its own,
// and the notices it wrote lately.
type inboxes struct {
	mu sync.Mutex
	// outgoing holds, per node, the notices waiting for the one goroutine
	// that appends to that node's inbox (appendInbox); a node is in the
	// map while its goroutine runs.
	outgoing map[string][]inboxNotice
	// quit ends the poller, which runs while it is not nil.
	quit chan struct{}
	// seenMu orders the writing of relayed notices: a notice is looked up
	// among those seen, written and marked in one step.
	seenMu sync.Mutex
	seen   *expiring.Map[string, bool]
}

func noticeInboxKey(node string) string { return noticeInboxPrefix + node }

func newNoticeID() string {
	b := make([]byte, noticeIDBytes)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported systems; without an id a
		// notice that comes both ways is written twice.
		return ""
	}
	return hex.EncodeToString(b)
}

// holders are the nodes other than this one whose lease of the session
// runs: those that may hold its stream.
func (s *sessionStore) holders(userID, sessionID string) ([]string, error) {
	if isListenID(sessionID) {
		node, err := s.index.Get(listenKey(sessionID))
		if err != nil || len(node) == 0 || string(node) == s.nodeID() {
			return nil, err
		}
		return []string{string(node)}, nil
	}
	raw, err := s.index.Get(sessionIndexKey(userID))
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	var entries []sessionEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil // a corrupt index names nobody; it is written afresh on the next open
	}
	self, now := s.nodeID(), s.clock().Unix()
	var nodes []string
	for _, e := range entries {
		if e.ID != sessionID {
			continue
		}
		for node, end := range e.Leases {
			if node != self && end > now {
				nodes = append(nodes, node)
			}
		}
	}
	return nodes, nil
}

// toInboxes appends n to the inbox of every other node that may hold the
// session's stream, without waiting for the writes.
func (t *Transport) toInboxes(n relayedNotice) {
	nodes, err := t.sessions.holders(n.UserID, n.SessionID)
	if err != nil {
		t.opts.Log.Warn("A notification for an MCP session was not left in the KV store: its person's sessions could not be read", "user_id", n.UserID, "error", err.Error())
		return
	}
	if len(nodes) == 0 {
		t.opts.Log.Debug("No other node holds the MCP session of a notification; only the cluster event, if any, carries it", "user_id", n.UserID)
		return
	}
	entry := inboxNotice{relayedNotice: n, At: t.sessions.clock().UnixMilli()}
	in := &t.inbox
	for _, node := range nodes {
		in.mu.Lock()
		if in.outgoing == nil {
			in.outgoing = map[string][]inboxNotice{}
		}
		waiting, writing := in.outgoing[node]
		if len(waiting) >= maxInboxNotices {
			waiting = waiting[1:]
		}
		in.outgoing[node] = append(waiting, entry)
		in.mu.Unlock()
		if !writing {
			go t.appendInbox(node)
		}
	}
}

// appendInbox appends the notices waiting for a node's inbox, batch after
// batch, until none waits: one compare-and-set per batch, so that a burst
// of notices costs a few writes rather than racing ones.
func (t *Transport) appendInbox(node string) {
	in := &t.inbox
	for {
		in.mu.Lock()
		batch := in.outgoing[node]
		if len(batch) == 0 {
			delete(in.outgoing, node)
			in.mu.Unlock()
			return
		}
		in.outgoing[node] = batch[:0:0]
		in.mu.Unlock()
		dropped := 0
		err := kvstore.Update(t.opts.Answers, noticeInboxKey(node), func(old []byte) (kvstore.Change, error) {
			entries := t.liveNotices(old)
			entries = append(entries, batch...)
			dropped = max(0, len(entries)-maxInboxNotices)
			entries = entries[dropped:]
			raw, err := json.Marshal(entries)
			return kvstore.Change{Value: raw, TTL: noticeInboxFor}, err
		})
		if err != nil {
			t.opts.Log.Warn("Notifications for MCP sessions on another node were not left in its KV inbox; their clients miss them unless the cluster delivers them", "notices", len(batch), "error", err.Error())
		}
		if dropped > 0 {
			t.opts.Log.Warn("A node's KV inbox of notifications for MCP sessions was full; the oldest were dropped", "dropped", dropped, "max_notices", maxInboxNotices)
		}
	}
}

// liveNotices is an inbox as stored, without the notices past
// noticeInboxFor.
func (t *Transport) liveNotices(raw []byte) []inboxNotice {
	var entries []inboxNotice
	if len(raw) > 0 && json.Unmarshal(raw, &entries) != nil {
		return nil // a corrupt inbox starts again
	}
	since := t.sessions.clock().Add(-noticeInboxFor).UnixMilli()
	live := entries[:0]
	for _, e := range entries {
		if e.At > since {
			live = append(live, e)
		}
	}
	return live
}

// pollInbox starts reading this node's inbox, unless it is read already;
// a GET stream just opened here.
func (t *Transport) pollInbox() {
	in := &t.inbox
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.quit != nil {
		return
	}
	in.quit = make(chan struct{})
	go t.readInbox(in.quit)
}

// stopPolling ends the reading of this node's inbox (the plugin stops).
func (t *Transport) stopPolling() {
	in := &t.inbox
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.quit != nil {
		close(in.quit)
		in.quit = nil
	}
}

// readInbox takes this node's inbox every noticeInboxPoll and writes what
// it holds, until no GET stream is open here or quit is closed.
func (t *Transport) readInbox(quit chan struct{}) {
	tick := time.NewTicker(noticeInboxPoll)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		if !t.stillPolling(quit) {
			return
		}
		notices, err := t.takeInbox()
		if err != nil {
			t.opts.Log.Warn("Could not read this node's KV inbox of notifications for MCP sessions; trying again", "error", err.Error())
			continue
		}
		for _, n := range notices {
			t.deliverRelayed(n.relayedNotice, "kv_inbox")
		}
	}
}

// stillPolling reports whether the poller that quit ends goes on: some
// GET stream is open here. One that stops says so under the lock that
// pollInbox takes, so a stream opened meanwhile starts another.
func (t *Transport) stillPolling(quit chan struct{}) bool {
	in := &t.inbox
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.quit != quit {
		return false // stopped, and maybe another started
	}
	if t.notices.holdsStream() {
		return true
	}
	in.quit = nil
	return false
}

// takeInbox empties this node's inbox in one compare-and-delete and
// returns what it held.
func (t *Transport) takeInbox() ([]inboxNotice, error) {
	var taken []byte
	err := kvstore.Update(t.opts.Answers, noticeInboxKey(t.sessions.nodeID()), func(old []byte) (kvstore.Change, error) {
		taken = old
		if old == nil {
			return kvstore.Change{}, kvstore.Unchanged
		}
		return kvstore.Change{}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the inbox: %w", err)
	}
	return t.liveNotices(taken), nil
}

// firstWrite writes a relayed notice to its stream unless this node wrote
// it already (it came the other way), and reports whether there was a
// stream to write it to.
func (t *Transport) firstWrite(n relayedNotice, msg []byte) (sent, again bool) {
	if n.ID == "" {
		return t.notices.send(n.UserID, n.SessionID, msg), false
	}
	in := &t.inbox
	in.seenMu.Lock()
	defer in.seenMu.Unlock()
	if in.seen == nil {
		in.seen = expiring.New[string, bool](noticeSeenFor, maxSeenNotices)
	}
	now := t.sessions.clock()
	if _, ok := in.seen.Get(n.ID, now); ok {
		return false, true
	}
	if !t.notices.send(n.UserID, n.SessionID, msg) {
		return false, false
	}
	in.seen.Put(n.ID, true, now)
	return true, false
}

// holdsStream reports whether a stream that hears notices is open on
// this node: a GET stream, or a subscriptions/listen stream (listen.go).
func (n *noticeStreams) holdsStream() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.count > 0
}
