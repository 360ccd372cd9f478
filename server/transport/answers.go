package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
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
	// mailboxMaxEntries bounds a mailbox nobody reads (a call that ended).
	mailboxMaxEntries = 16
	// casAttempts bounds retries when nodes write one mailbox at once.
	casAttempts = 8
)

// AnswerKV is the part of the plugin KV store the mailbox needs.
type AnswerKV interface {
	Get(key string) ([]byte, error)
	CompareAndSet(key string, old, value []byte, ttl time.Duration) (bool, error)
}

type mailEntry struct {
	Body json.RawMessage `json:"body"`
	At   time.Time       `json:"at"`
}

func mailboxKey(sessionID string) string { return mailboxPrefix + sessionID }

// isClientAnswer tells a JSON-RPC response (a client's answer to a server
// request) from a request or notification.
func isClientAnswer(body []byte) bool {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	return msg.Method == "" && len(msg.ID) > 0 && string(msg.ID) != "null" && (len(msg.Result) > 0 || len(msg.Error) > 0)
}

// deliverHere offers a client's answer to this node's mcp-go, as the POST it
// was; it reports whether a call here was waiting for it.
func (t *Transport) deliverHere(ctx context.Context, r *http.Request, body []byte) bool {
	req := r.Clone(ctx)
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	rec := &discardWriter{header: http.Header{}, status: http.StatusOK}
	t.http.ServeHTTP(rec, req)
	return rec.status == http.StatusAccepted
}

// relayAnswer takes a client's answer: delivered here when a call here waits
// for it, otherwise left in the session's mailbox for the node that does.
func (t *Transport) relayAnswer(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *SessionRecord, body []byte) {
	if t.deliverHere(ctx, r, body) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if err := t.postToMailbox(rec.ID, body); err != nil {
		t.opts.Log.Error("Could not pass an answer to the node that asked", "user_id", rec.UserID, "error", err.Error())
		http.Error(w, "Mattermost could not take your answer; try again.", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (t *Transport) postToMailbox(sessionID string, body []byte) error {
	return t.updateMailbox(sessionID, func(entries []mailEntry) []mailEntry {
		entries = append(entries, mailEntry{Body: body, At: t.sessions.now()})
		if len(entries) > mailboxMaxEntries {
			entries = entries[len(entries)-mailboxMaxEntries:]
		}
		return entries
	})
}

// updateMailbox applies change atomically against concurrent writers on
// other nodes.
func (t *Transport) updateMailbox(sessionID string, change func([]mailEntry) []mailEntry) error {
	key := mailboxKey(sessionID)
	for range casAttempts {
		old, err := t.opts.Answers.Get(key)
		if err != nil {
			return err
		}
		entries := t.liveEntries(old)
		next, err := json.Marshal(change(entries))
		if err != nil {
			return err
		}
		ok, err := t.opts.Answers.CompareAndSet(key, old, next, mailboxLifetime)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return errors.New("the session's mailbox kept changing")
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
// point. mcp-go numbers them from 1 in every process, so two nodes asking in
// one session would both ask request 1, and an answer meant for one could be
// delivered to the other. mcp-go offers no option for it, so the counter is
// reached by reflection; a test fails if an mcp-go upgrade moves it.
func seedRequestIDs(h *server.StreamableHTTPServer) bool {
	f := reflect.ValueOf(h).Elem().FieldByName("requestIDCounter")
	if !f.IsValid() || f.Type() != reflect.TypeFor[atomic.Int64]() || !f.CanAddr() {
		return false
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return false
	}
	// Below 2^52, so every id stays exact in a JavaScript client, and far
	// from the top, so adding never overflows.
	start := int64(binary.BigEndian.Uint64(b[:]) >> 12)
	(*atomic.Int64)(unsafe.Pointer(f.UnsafeAddr())).Store(start)
	return true
}
