package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// Three nodes share one KV store and no cluster event bus, as a Mattermost
// without a cluster licence runs them: a notice for a session whose stream
// is open on another node travels through that node's KV inbox.

// inboxReads counts the reads of nodes' inboxes through one node's view
// of the store.
type inboxReads struct {
	kvstore.KV
	n atomic.Int64
}

func (r *inboxReads) Get(key string) ([]byte, error) {
	if strings.HasPrefix(key, noticeInboxPrefix) {
		r.n.Add(1)
	}
	return r.KV.Get(key)
}

// within waits until cond holds, failing the test after a few seconds.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
	}
}

func TestANotificationReachesAStreamOnAnotherNodeThroughTheKVStoreWhenTheClusterDeliversNoEvents(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	_, bSrv := noticeNode(t, kv, &memLog{}, nil)
	c, _ := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)
	onB := bufio.NewReader(openStream(t, ctx, bSrv.URL, "alice", session).Body)

	// Sent from the node that opened the session, and from one that never
	// served it: neither holds the stream, and neither relays.
	method, params := complete("rec-1")
	a.NotifySession("alice", session, method, params)
	if got := readComplete(t, onB); got != "rec-1" {
		t.Fatalf("elicitationId %q, want rec-1", got)
	}
	c.NotifySession("alice", session, method, map[string]any{"elicitationId": "rec-2"})
	if got := readComplete(t, onB); got != "rec-2" {
		t.Fatalf("elicitationId %q, want rec-2", got)
	}
}

func TestANotificationThatComesBothByTheClusterAndThroughTheKVStoreIsWrittenOnce(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	bLog := &memLog{}
	b, bSrv := noticeNode(t, kv, bLog, nil)
	session := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)
	onB := bufio.NewReader(openStream(t, ctx, bSrv.URL, "alice", session).Body)
	const again = "A relayed notification for an MCP session that was written already was dropped"

	// The cluster's copy first: the inbox's is dropped.
	out := &relays{to: []*Transport{b}}
	a.opts.RelayNotice = out.relay
	method, params := complete("rec-1")
	a.NotifySession("alice", session, method, params)
	if got := readComplete(t, onB); got != "rec-1" {
		t.Fatalf("elicitationId %q, want rec-1", got)
	}
	within(t, "the inbox's copy dropped", func() bool { return bLog.count(again) == 1 })

	// The inbox's copy first: the cluster's, late, is dropped.
	late := &relays{}
	a.opts.RelayNotice = late.relay
	a.NotifySession("alice", session, method, map[string]any{"elicitationId": "rec-2"})
	if got := readComplete(t, onB); got != "rec-2" {
		t.Fatalf("elicitationId %q after rec-1 was written, want rec-2", got)
	}
	b.RelayedNotice(late.sent[0])
	if bLog.count(again) != 2 {
		t.Fatal("the cluster's late copy was not dropped")
	}

	a.opts.RelayNotice = nil
	a.NotifySession("alice", session, method, map[string]any{"elicitationId": "rec-3"})
	if got := readComplete(t, onB); got != "rec-3" {
		t.Fatalf("elicitationId %q after rec-2 was written, want rec-3: a notice was written twice", got)
	}
}

func TestANodesInboxKeepsOnlyTheNewestNotificationsUpToItsBound(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	b, bSrv := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, aSrv.URL, "alice", initialize)
	// b leases the session with a request, and holds no stream, so it
	// reads no inbox: what a sends it waits there.
	if resp := post(t, bSrv.URL, "alice", session, ping); resp.StatusCode != 200 {
		t.Fatalf("a call on b: %d %s", resp.StatusCode, body(t, resp))
	}
	for i := range maxInboxNotices + 5 {
		a.NotifySession("alice", session, "notifications/message", map[string]any{"data": fmt.Sprint(i)})
	}
	key := noticeInboxKey(b.sessions.nodeID())
	var inbox []inboxNotice
	within(t, "the inbox written", func() bool {
		a.inbox.mu.Lock()
		defer a.inbox.mu.Unlock()
		return len(a.inbox.outgoing) == 0 && json.Unmarshal(kv.raw(key), &inbox) == nil &&
			strings.Contains(string(inbox[len(inbox)-1].Message), fmt.Sprintf(`"%d"`, maxInboxNotices+4))
	})
	if len(inbox) != maxInboxNotices || !strings.Contains(string(inbox[0].Message), `"5"`) {
		t.Fatalf("the inbox holds %d notices from %s, want the newest %d", len(inbox), inbox[0].Message, maxInboxNotices)
	}

	// A full inbox of the largest notices fits in one KV value.
	big := inboxNotice{relayedNotice: relayedNotice{ID: newNoticeID(), UserID: strings.Repeat("u", 26), SessionID: strings.Repeat("s", 128),
		Message: json.RawMessage(`{"jsonrpc":"2.0","method":"m","params":{"x":"` + strings.Repeat("x", maxSessionNoticeBytes-60) + `"}}`)}, At: time.Now().UnixMilli()}
	full := make([]inboxNotice, maxInboxNotices)
	for i := range full {
		full[i] = big
	}
	raw, err := json.Marshal(full)
	if err != nil || len(big.Message) > maxSessionNoticeBytes || len(raw) > kvstore.MaxValueBytes {
		t.Fatalf("a full inbox takes %d bytes (%v), more than a KV value's %d", len(raw), err, kvstore.MaxValueBytes)
	}
}

func TestANodeReadsItsInboxOnlyWhileItHoldsAStream(t *testing.T) {
	kv := newMemKV()
	_, aSrv := noticeNode(t, kv, &memLog{}, nil)
	b, bSrv := noticeNode(t, kv, &memLog{}, nil)
	reads := &inboxReads{KV: b.opts.Answers}
	b.opts.Answers = reads
	session := openSession(t, aSrv.URL, "alice", initialize)
	if resp := post(t, bSrv.URL, "alice", session, ping); resp.StatusCode != 200 {
		t.Fatalf("a call on b: %d %s", resp.StatusCode, body(t, resp))
	}
	// Absence cannot be polled for: a few polls' time passes.
	time.Sleep(4 * noticeInboxPoll)
	if n := reads.n.Load(); n != 0 {
		t.Fatalf("a node with no stream read its inbox %d times", n)
	}

	ctx, cancel := context.WithCancel(guard(t))
	openStream(t, ctx, bSrv.URL, "alice", session)
	within(t, "the inbox read", func() bool { return reads.n.Load() > 0 })
	cancel()
	within(t, "the reading stopped", func() bool { return !b.polling() })
	after := reads.n.Load()
	time.Sleep(4 * noticeInboxPoll)
	if n := reads.n.Load(); n > after+1 {
		t.Fatalf("the inbox was read %d more times after the last stream closed", n-after)
	}

	// The plugin's stop ends the reading at once.
	openStream(t, guard(t), bSrv.URL, "alice", session)
	within(t, "the inbox read again", func() bool { return reads.n.Load() > after+1 })
	b.EndStreams()
	if b.polling() {
		t.Fatal("the inbox is still read after the plugin stopped")
	}
}

// polling reports whether the node reads its inbox.
func (t *Transport) polling() bool {
	t.inbox.mu.Lock()
	defer t.inbox.mu.Unlock()
	return t.inbox.quit != nil
}

// count is how many lines say msg.
func (l *memLog) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if line.msg == msg {
			n++
		}
	}
	return n
}

const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
