package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// A notification for one session, sent after the call that concerns it
// returned: the close of a question the client still shows, a task's new
// status. A 2025-11-25 session hears it on its standalone GET stream, which
// is open on one node while any node may learn the news (the person
// answering on the page, the cluster's expiry job). So the node that sends
// it writes it to the stream when the stream is open there, and otherwise
// relays it to the other nodes in one plugin cluster event and leaves it
// in the KV inbox of each node that may hold the stream (inbox.go, ADR
// 0018); the node that holds the stream writes it once, the others drop
// it. A session with no stream open anywhere misses it: the stream keeps
// no history to resume from.

const (
	// maxSessionNoticeBytes bounds one notification to a session, as
	// written and as relayed: what is sent this way (an elicitation's id,
	// a task's status and its message) takes a few hundred bytes, and a
	// cluster event is held whole in memory by every node.
	maxSessionNoticeBytes = 4 << 10
	// maxRelayedNoticeBytes bounds a relayed event: the notification, two
	// ids and the field names.
	maxRelayedNoticeBytes = maxSessionNoticeBytes + 512
	// maxQueuedNotices bounds the notifications a stream holds before it
	// writes them, which it does within milliseconds unless its client
	// stopped reading: a person has at most a few writes settling at once.
	// Past it the oldest is dropped, as a stream that does not read loses
	// everything anyway.
	maxQueuedNotices = 32
)

var errNoticeTooLarge = errors.New("the notification is larger than a session notice may be")

// relayedNotice is the cluster event's payload, and an inbox's entry
// (inbox.go): the notification as its JSON-RPC message, the session it is
// for, and the notice's id, by which a node that hears it both ways writes
// it once.
type relayedNotice struct {
	ID        string          `json:"i,omitempty"`
	UserID    string          `json:"u"`
	SessionID string          `json:"s"`
	Message   json.RawMessage `json:"m"`
}

// NotifySession sends the JSON-RPC notification method with params to the
// MCP session sessionID of userID, on its GET stream wherever in the
// cluster it is open. It does not wait: the notification is written by
// the stream's own request. A notification for a session that is gone, is
// another person's or has no stream open is dropped (logged at debug); one
// larger than maxSessionNoticeBytes is dropped with a warning. It answers
// false only for a session (or listen stream) that is gone.
func (t *Transport) NotifySession(userID, sessionID, method string, params map[string]any) bool {
	msg, err := sessionNotice(method, params)
	if err != nil {
		t.opts.Log.Warn("A notification for an MCP session was not sent", "user_id", userID, "method", method, "error", err.Error())
		return true
	}
	if t.notices.send(userID, sessionID, msg) {
		t.opts.Log.Debug("Sent a notification to an MCP session's stream on this node", "user_id", userID, "method", method)
		return true
	}
	if !t.sessionExists(userID, sessionID) {
		t.opts.Log.Debug("A notification for an MCP session that is gone was dropped", "user_id", userID, "method", method)
		return false
	}
	n := relayedNotice{ID: newNoticeID(), UserID: userID, SessionID: sessionID, Message: msg}
	// Both ways (ADR 0018): the cluster event where the cluster has them,
	// the other nodes' KV inboxes where it has none.
	t.toInboxes(n)
	if t.opts.RelayNotice == nil {
		return true
	}
	payload, err := json.Marshal(n)
	if err != nil {
		t.opts.Log.Warn("A notification for an MCP session was not relayed", "user_id", userID, "method", method, "error", err.Error())
		return true
	}
	t.opts.RelayNotice(payload)
	return true
}

// RelayedNotice writes a notification another node relayed (NotifySession)
// to the session's stream if it is open on this node, and drops it
// otherwise: another node holds the stream, or none does, or this node
// wrote it already from its inbox.
func (t *Transport) RelayedNotice(payload []byte) {
	var n relayedNotice
	if len(payload) > maxRelayedNoticeBytes || json.Unmarshal(payload, &n) != nil {
		t.opts.Log.Warn("A relayed notification for an MCP session was malformed and dropped", "bytes", len(payload))
		return
	}
	t.deliverRelayed(n, "cluster")
}

// deliverRelayed writes a notice another node sent, by a cluster event or
// through this node's inbox (via says which), once.
func (t *Transport) deliverRelayed(n relayedNotice, via string) {
	var compact bytes.Buffer
	var head struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
	}
	if n.UserID == "" || n.SessionID == "" || len(n.ID) > 2*noticeIDBytes ||
		len(n.Message) > maxSessionNoticeBytes || json.Compact(&compact, n.Message) != nil ||
		json.Unmarshal(n.Message, &head) != nil || head.JSONRPC != mcpJSONRPC || head.Method == "" {
		t.opts.Log.Warn("A relayed notification for an MCP session was malformed and dropped", "user_id", n.UserID, "via", via)
		return
	}
	sent, again := t.firstWrite(n, compact.Bytes())
	switch {
	case again:
		t.opts.Log.Debug("A relayed notification for an MCP session that was written already was dropped", "user_id", n.UserID, "method", head.Method, "via", via)
	case !sent:
		t.opts.Log.Debug("A relayed notification for an MCP session whose stream is not open on this node was dropped", "user_id", n.UserID, "method", head.Method, "via", via)
	default:
		t.opts.Log.Debug("Sent a relayed notification to an MCP session's stream on this node", "user_id", n.UserID, "method", head.Method, "via", via)
	}
}

const mcpJSONRPC = "2.0"

// sessionNotice is the notification as one line of JSON, within its bound.
func sessionNotice(method string, params map[string]any) ([]byte, error) {
	m := map[string]any{"jsonrpc": mcpJSONRPC, "method": method}
	if params != nil {
		m["params"] = params
	}
	msg, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(msg) > maxSessionNoticeBytes {
		return nil, errNoticeTooLarge
	}
	return msg, nil
}

// send queues msg on the GET streams of the session open on this node and
// wakes them; it answers whether there was one.
func (n *noticeStreams) send(userID, sessionID string, msg []byte) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	sent := false
	for _, s := range n.byPerson[userID] {
		if s.sessionID != sessionID {
			continue
		}
		s.queue(msg)
		s.rouse()
		sent = true
	}
	return sent
}

// queue holds msg until the stream writes it, dropping the oldest past
// maxQueuedNotices. A notice the same as one still waiting is not queued
// again: it says nothing new (a resource updated twice is read once), and
// a burst of posts in a subscribed channel then takes one place.
func (s *stream) queue(msg []byte) {
	s.queuedMu.Lock()
	defer s.queuedMu.Unlock()
	if slices.ContainsFunc(s.queued, func(q []byte) bool { return bytes.Equal(q, msg) }) {
		return
	}
	if len(s.queued) >= maxQueuedNotices {
		s.queued = s.queued[1:]
	}
	s.queued = append(s.queued, msg)
}

// takeQueued returns and clears the notifications queued.
func (s *stream) takeQueued() [][]byte {
	s.queuedMu.Lock()
	defer s.queuedMu.Unlock()
	q := s.queued
	s.queued = nil
	return q
}
