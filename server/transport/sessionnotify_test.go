package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// relays records what a node relays to the others and, when to is set,
// hands it on as Mattermost's cluster would.
type relays struct {
	mu   sync.Mutex
	sent [][]byte
	to   []*Transport
}

func (r *relays) relay(payload []byte) {
	r.mu.Lock()
	r.sent = append(r.sent, payload)
	to := r.to
	r.mu.Unlock()
	for _, other := range to {
		other.RelayedNotice(payload)
	}
}

func (r *relays) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sent)
}

// complete is the notification the tests send.
func complete(id string) (string, map[string]any) {
	return "notifications/elicitation/complete", map[string]any{"elicitationId": id}
}

// readComplete reads the stream's next message as an elicitation's close
// and answers its id.
func readComplete(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	got := nextEvent(t, r)
	var msg struct {
		JSONRPC, Method string
		Params          struct {
			ElicitationID string `json:"elicitationId"`
		}
	}
	if json.Unmarshal([]byte(got), &msg) != nil || msg.JSONRPC != "2.0" || msg.Method != "notifications/elicitation/complete" {
		t.Fatalf("event %s, want an elicitation's close", got)
	}
	return msg.Params.ElicitationID
}

func TestANotificationForASessionReachesItsStreamOnTheNodeThatSendsItWithoutARelay(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	out := &relays{}
	a.opts.RelayNotice = out.relay
	session := openSession(t, aSrv.URL, "alice", initialize)
	other := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)
	mine := openStream(t, ctx, aSrv.URL, "alice", session)
	theirs := openStream(t, ctx, aSrv.URL, "alice", other)

	method, params := complete("rec-1")
	a.NotifySession("alice", session, method, params)
	if got := readComplete(t, bufio.NewReader(mine.Body)); got != "rec-1" {
		t.Fatalf("elicitationId %q, want rec-1", got)
	}
	if out.count() != 0 {
		t.Fatalf("a notification delivered on this node was also relayed %d times", out.count())
	}
	// The person's other session hears only what is for it.
	a.NotifySession("alice", other, method, map[string]any{"elicitationId": "rec-2"})
	if got := readComplete(t, bufio.NewReader(theirs.Body)); got != "rec-2" {
		t.Fatalf("the other session read %q first, want rec-2", got)
	}
}

func TestANotificationForASessionWhoseStreamIsOnAnotherNodeIsRelayedAndWrittenThere(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	b, bSrv := noticeNode(t, kv, &memLog{}, nil)
	c, _ := noticeNode(t, kv, &memLog{}, nil)
	out := &relays{to: []*Transport{b, c}}
	a.opts.RelayNotice = out.relay
	session := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)
	onB := openStream(t, ctx, bSrv.URL, "alice", session)

	method, params := complete("rec-1")
	a.NotifySession("alice", session, method, params)
	if got := readComplete(t, bufio.NewReader(onB.Body)); got != "rec-1" {
		t.Fatalf("elicitationId %q, want rec-1", got)
	}
	if out.count() != 1 {
		t.Fatalf("relayed %d times, want once", out.count())
	}
}

func TestANotificationForAnUnknownOrAnotherPersonsSessionIsDroppedAndNotRelayed(t *testing.T) {
	kv := newMemKV()
	log := &memLog{}
	a, aSrv := noticeNode(t, kv, log, nil)
	out := &relays{}
	a.opts.RelayNotice = out.relay
	session := openSession(t, aSrv.URL, "alice", initialize)
	method, params := complete("rec-1")

	a.NotifySession("alice", "mm-mcp-unknown", method, params)
	a.NotifySession("bob", session, method, params)
	if out.count() != 0 {
		t.Fatalf("relayed %d notifications for sessions that are not the person's", out.count())
	}
	// A session of the person with no stream here is relayed: another node
	// may hold it.
	a.NotifySession("alice", session, method, params)
	if out.count() != 1 {
		t.Fatalf("relayed %d, want the one for the person's session", out.count())
	}
	// A node with no stream of the session drops what was relayed to it.
	a.RelayedNotice(out.sent[0])
	if !log.has("A relayed notification for an MCP session whose stream is not open on this node was dropped") {
		t.Fatal("a relayed notification with no stream here was not noted as dropped")
	}
}

func TestARelayedNotificationThatIsMalformedOrTooLargeIsNotWritten(t *testing.T) {
	kv := newMemKV()
	log := &memLog{}
	a, aSrv := noticeNode(t, kv, log, nil)
	session := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)
	stream := openStream(t, ctx, aSrv.URL, "alice", session)

	big := `{"jsonrpc":"2.0","method":"m","params":{"x":"` + strings.Repeat("x", maxSessionNoticeBytes) + `"}}`
	for _, payload := range []string{
		`not json`,
		fmt.Sprintf(`{"u":"alice","s":%q,"m":{"method":"no version"}}`, session),
		fmt.Sprintf(`{"u":"alice","s":%q,"m":"a string"}`, session),
		fmt.Sprintf(`{"u":"alice","s":%q,"m":%s}`, session, big),
	} {
		a.RelayedNotice([]byte(payload))
	}
	// The stream's first message is the one well-formed notification.
	method, params := complete("rec-ok")
	a.NotifySession("alice", session, method, params)
	if got := readComplete(t, bufio.NewReader(stream.Body)); got != "rec-ok" {
		t.Fatalf("first message's id %q, want rec-ok", got)
	}
}

func TestANotificationLargerThanItsBoundIsNeitherWrittenNorRelayed(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	out := &relays{}
	a.opts.RelayNotice = out.relay
	session := openSession(t, aSrv.URL, "alice", initialize)

	a.NotifySession("alice", session, "notifications/message", map[string]any{"data": strings.Repeat("x", maxSessionNoticeBytes)})
	if out.count() != 0 {
		t.Fatalf("a notification past its bound was relayed")
	}
	if _, err := sessionNotice("m", map[string]any{"data": strings.Repeat("x", maxSessionNoticeBytes-100)}); err != nil {
		t.Fatalf("a notification within its bound was refused: %v", err)
	}
}

func TestAStreamThatDoesNotWriteHoldsOnlyTheNewestNotificationsUpToItsBound(t *testing.T) {
	s := &stream{wake: make(chan struct{}, 1), end: make(chan struct{})}
	for i := range maxQueuedNotices + 5 {
		s.queue([]byte(fmt.Sprint(i)))
	}
	q := s.takeQueued()
	if len(q) != maxQueuedNotices || string(q[0]) != "5" || string(q[len(q)-1]) != fmt.Sprint(maxQueuedNotices+4) {
		t.Fatalf("held %d, first %s, last %s", len(q), q[0], q[len(q)-1])
	}
	if len(s.takeQueued()) != 0 {
		t.Fatal("what was taken is held still")
	}
}

func TestANoticeTheSameAsOneStillWaitingIsQueuedOnceSoABurstTakesOnePlace(t *testing.T) {
	s := &stream{wake: make(chan struct{}, 1), end: make(chan struct{})}
	updated := []byte(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"mattermost://channel/t/c"}}`)
	for range 10 * maxQueuedNotices {
		s.queue(updated)
	}
	s.queue([]byte("other"))
	q := s.takeQueued()
	if len(q) != 2 || string(q[1]) != "other" {
		t.Fatalf("held %q", q)
	}
	s.queue(updated)
	if len(s.takeQueued()) != 1 {
		t.Fatal("a notice written is not queued again")
	}
}

// has reports whether the log holds a line saying msg.
func (l *memLog) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if line.msg == msg {
			return true
		}
	}
	return false
}
