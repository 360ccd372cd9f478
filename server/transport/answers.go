package transport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// Before protocol 2026-07-28 a client answers a question the server asked
// (elicitation) with a separate POST, which a load balancer without sticky
// sessions may send to any node, while mcp-go matches the answer only in the
// memory of the node whose tool call asked. So an answer is first offered to
// this node; if no call here waits for it, it is put in the session's mailbox
// in the KV store, and the node whose call waits reads the mailbox and
// delivers it to itself.

const (
	mailboxPrefix = "mcpanswers_"
	// mailboxLifetime matches how long a question stays answerable.
	mailboxLifetime = 10 * time.Minute
	// mailboxPoll is how often a waiting call reads its session's mailbox:
	// the person is reading a question, so a quarter second is unnoticed.
	mailboxPoll = 250 * time.Millisecond
	// MaxAnswerBytes bounds one answer a client sends: an answer to this
	// plugin's question is one boolean in a JSON-RPC frame, a few hundred
	// bytes, and 64 KiB leaves room for clients that echo more. A larger
	// answer is refused with 413 before it is delivered or stored.
	MaxAnswerBytes = 64 << 10
	// mailboxMaxEntries and mailboxMaxBytes bound a session's mailbox, which
	// nobody may read (the call that asked ended): questions are asked one
	// at a time per session on each node, so more than a few unread answers
	// are answers no call waits for. The oldest go first. With
	// MaxSessionsPerPerson this bounds one person's mailboxes at 32 MiB,
	// each gone ten minutes after its last answer.
	mailboxMaxEntries = 16
	mailboxMaxBytes   = 2 * MaxAnswerBytes

	// nodesKey lists the ranges of request ids the plugin's processes
	// number their questions from (see seedRequestIDs), so that any node
	// can tell an answer to a question of this plugin from one to nothing.
	nodesKey = "mcpnodes"
	// maxNodes bounds that list: a cluster runs a handful of plugin
	// processes and every restart starts one more; the least recently
	// asking are dropped first, and a process that asks again returns.
	maxNodes = 64
	// requestIDSpan is how many ids one process may number from its start:
	// four billion questions in one process's life is more than any runs.
	requestIDSpan = 1 << 32
	// nodeRefresh is how often a process that asks marks its range in use.
	nodeRefresh = time.Hour
)

type mailEntry struct {
	Body json.RawMessage `json:"body"`
	At   time.Time       `json:"at"`
}

func mailboxKey(sessionID string) string { return mailboxPrefix + sessionID }

// answerID is the request id an answer is to: mcp-go numbers its
// questions, and a client echoes the number (some as a string).
func answerID(raw json.RawMessage) (int64, bool) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// nodeRange is one process's range of request ids.
type nodeRange struct {
	Start int64     `json:"start"`
	Seen  time.Time `json:"seen"`
}

// markAsking records this process's range of request ids among the
// plugin's, at start and then at most once per nodeRefresh while it asks,
// so that answers to its questions are taken on every node.
func (t *Transport) markAsking() {
	now := t.sessions.now()
	if last := t.markedAt.Load(); last != 0 && now.Sub(time.Unix(0, last)) < nodeRefresh {
		return
	}
	if err := t.updateNodes(func(nodes []nodeRange) []nodeRange {
		kept := []nodeRange{{Start: t.idStart, Seen: now}}
		for _, n := range nodes {
			if n.Start != t.idStart {
				kept = append(kept, n)
			}
		}
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].Seen.After(kept[j].Seen) })
		return kept[:min(len(kept), maxNodes)]
	}); err != nil {
		t.opts.Log.Warn("Could not record this node's question ids; answers to its questions that reach another node are refused until it can", "error", err.Error())
		return
	}
	t.markedAt.Store(now.UnixNano())
}

func (t *Transport) updateNodes(change func([]nodeRange) []nodeRange) error {
	err := kvstore.List[nodeRange]{KV: t.opts.Answers, Key: nodesKey}.Update(func(nodes []nodeRange) ([]nodeRange, error) {
		return change(nodes), nil
	})
	if err != nil {
		return fmt.Errorf("the list of nodes: %w", err)
	}
	return nil
}

// issued reports whether id is in the range of a process of this plugin.
func (t *Transport) issued(id int64) (bool, error) {
	inRange := func(start int64) bool { return id > start && id <= start+requestIDSpan }
	if inRange(t.idStart) {
		return true, nil
	}
	raw, err := t.opts.Answers.Get(nodesKey)
	if err != nil || len(raw) == 0 {
		return false, err
	}
	var nodes []nodeRange
	if err := json.Unmarshal(raw, &nodes); err != nil {
		return false, nil
	}
	for _, n := range nodes {
		if inRange(n.Start) {
			return true, nil
		}
	}
	return false, nil
}

// refuseAnswer answers a client's answer that is not taken, with the
// JSON-RPC error the protocol allows in the body (it has no id: the
// answer is not a request).
func refuseAnswer(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": mcp.INVALID_REQUEST, "message": message}})
}

// deliverHere offers a client's answer to this node's mcp-go, as the POST it
// was; it reports whether a call here was waiting for it.
func (t *Transport) deliverHere(ctx context.Context, r *http.Request, body []byte) bool {
	rec := &discardWriter{header: http.Header{}, status: http.StatusOK}
	t.handOver(rec, r.WithContext(ctx), body)
	return rec.status == http.StatusAccepted
}

// relayAnswer takes a client's answer: delivered here when a call here waits
// for it, otherwise left in the session's mailbox for the node that does,
// if a process of this plugin asked that question.
func (t *Transport) relayAnswer(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *SessionRecord, env envelope) {
	if t.deliverHere(ctx, r, env.body) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	id, ok := answerID(env.id)
	ours := false
	if ok {
		var err error
		if ours, err = t.issued(id); err != nil {
			t.opts.Log.Error("Could not read which questions this plugin asked", "user_id", rec.UserID, "error", err.Error())
			http.Error(w, "Mattermost could not take your answer; try again.", http.StatusServiceUnavailable)
			return
		}
	}
	if !ours {
		refuseAnswer(w, http.StatusBadRequest, "Mattermost asked no question with this id, so there is nothing to answer: nothing was stored.")
		return
	}
	if err := t.postToMailbox(rec.ID, env.body); err != nil {
		t.opts.Log.Error("Could not pass an answer to the node that asked", "user_id", rec.UserID, "error", err.Error())
		http.Error(w, "Mattermost could not take your answer; try again.", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// postToMailbox adds an answer, dropping the oldest past the mailbox's
// bounds.
func (t *Transport) postToMailbox(sessionID string, body []byte) error {
	return t.updateMailbox(sessionID, func(entries []mailEntry) []mailEntry {
		entries = append(entries, mailEntry{Body: body, At: t.sessions.now()})
		size := 0
		for _, e := range entries {
			size += len(e.Body)
		}
		for len(entries) > mailboxMaxEntries || size > mailboxMaxBytes {
			size -= len(entries[0].Body)
			entries = entries[1:]
		}
		return entries
	})
}

// updateMailbox applies change atomically against concurrent writers on
// other nodes.
func (t *Transport) updateMailbox(sessionID string, change func([]mailEntry) []mailEntry) error {
	err := kvstore.Update(t.opts.Answers, mailboxKey(sessionID), func(old []byte) (kvstore.Change, error) {
		next, err := json.Marshal(change(t.liveEntries(old)))
		return kvstore.Change{Value: next, TTL: mailboxLifetime}, err
	})
	if err != nil {
		return fmt.Errorf("the session's mailbox: %w", err)
	}
	return nil
}

func (t *Transport) liveEntries(raw []byte) []mailEntry {
	var entries []mailEntry
	if len(raw) > 0 && json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	live := entries[:0]
	for _, e := range entries {
		if t.sessions.now().Sub(e.At) < mailboxLifetime {
			live = append(live, e)
		}
	}
	return live
}

// collectAnswers runs while a tool call that asked its client a question
// is served here: it delivers to this node the answers other
// nodes left in the mailbox. Each answer is offered once; one that no call
// here takes stays for the node it belongs to.
func (t *Transport) collectAnswers(ctx context.Context, r *http.Request, sessionID string) (stop func()) {
	t.markAsking()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tried := map[[32]byte]bool{}
		tick := time.NewTicker(mailboxPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			raw, err := t.opts.Answers.Get(mailboxKey(sessionID))
			if err != nil || len(raw) == 0 {
				continue
			}
			delivered := map[[32]byte]bool{}
			for _, e := range t.liveEntries(raw) {
				sum := sha256.Sum256(e.Body)
				if tried[sum] {
					continue
				}
				tried[sum] = true
				if t.deliverHere(ctx, r, e.Body) {
					delivered[sum] = true
				}
			}
			if len(delivered) == 0 {
				continue
			}
			err = t.updateMailbox(sessionID, func(entries []mailEntry) []mailEntry {
				kept := entries[:0]
				for _, e := range entries {
					if !delivered[sha256.Sum256(e.Body)] {
						kept = append(kept, e)
					}
				}
				return kept
			})
			if err != nil {
				t.opts.Log.Warn("Could not clear a delivered answer from the mailbox", "error", err.Error())
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// canBeAsked reports whether the session's client declared it answers
// questions (elicitation), so its tool calls may wait for an answer.
func canBeAsked(rec *SessionRecord) bool {
	return rec != nil && rec.Capabilities.Elicitation != nil
}

// discardWriter takes the response to a replayed answer: only its status
// matters.
type discardWriter struct {
	header http.Header
	status int
	wrote  bool
}

func (d *discardWriter) Header() http.Header { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) {
	d.wrote = true
	return len(b), nil
}
func (d *discardWriter) WriteHeader(code int) {
	if !d.wrote {
		d.status, d.wrote = code, true
	}
}

// Questions asked on calls' streams are one at a time per session on each
// node: mcp-go routes a client's answer through the first call of a session
// that asked on this node, so a second call asking at the same time would
// never get its answer. A call takes its session's slot before it asks and
// the transport frees it once mcp-go has finished with the call.

type questionSlotKey struct{}

// questionSlots are this node's slots, one per session that is asking.
type questionSlots struct {
	mu    sync.Mutex
	slots map[string]*questionSlot
}

type questionSlot struct {
	ch    chan struct{}
	users int
}

// claim is a call's hold on its session's slot, taken when it asks. While
// held, the call also collects its answers from the session's mailbox.
type claim struct {
	slots   *questionSlots
	session string
	slot    *questionSlot
	held    bool
	// collect starts reading the mailbox; stopCollecting ends it.
	collect        func() (stop func())
	stopCollecting func()
}

func (q *questionSlots) open(session string, collect func() (stop func())) *claim {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.slots == nil {
		q.slots = map[string]*questionSlot{}
	}
	s := q.slots[session]
	if s == nil {
		s = &questionSlot{ch: make(chan struct{}, 1)}
		q.slots[session] = s
	}
	s.users++
	return &claim{slots: q, session: session, slot: s, collect: collect}
}

// close frees the slot if the call held it, after mcp-go is done with the
// call (so the next call of the session can route its answers).
func (c *claim) close() {
	if c.held {
		c.stopCollecting()
		<-c.slot.ch
	}
	c.slots.mu.Lock()
	defer c.slots.mu.Unlock()
	if c.slot.users--; c.slot.users == 0 {
		delete(c.slots.slots, c.session)
	}
}

// HoldQuestionSlot waits until no other call of the session asks the client
// on this node, then holds the slot for the rest of the call. Calls that
// cannot be asked on their stream (protocol 2026-07-28) need no slot.
func HoldQuestionSlot(ctx context.Context) error {
	c, _ := ctx.Value(questionSlotKey{}).(*claim)
	if c == nil || c.held {
		return nil
	}
	select {
	case c.slot.ch <- struct{}{}:
		c.held = true
		c.stopCollecting = c.collect()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// seedRequestIDs starts this node's ids for requests to clients at a random
// point, which it returns. mcp-go numbers them from 1 in every process, so
// two nodes asking in one session would both ask request 1, and an answer
// meant for one could be delivered to the other. mcp-go offers no option for
// it, so the counter is reached by reflection; a test fails if an mcp-go
// upgrade moves it.
func seedRequestIDs(h *server.StreamableHTTPServer) (int64, bool) {
	f := reflect.ValueOf(h).Elem().FieldByName("requestIDCounter")
	if !f.IsValid() || f.Type() != reflect.TypeFor[atomic.Int64]() || !f.CanAddr() {
		return 0, false
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, false
	}
	// Below 2^52 less the span, so every id stays exact in a JavaScript
	// client, and far from the top, so adding never overflows.
	start := int64(binary.BigEndian.Uint64(b[:])>>12) % (1<<52 - requestIDSpan)
	(*atomic.Int64)(unsafe.Pointer(f.UnsafeAddr())).Store(start)
	return start, true
}
