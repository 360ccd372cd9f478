package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// noticeNode is a node of a Mattermost that streams responses, with a tool
// that tells the client at every level and then waits for proceed (nil:
// not at all), and one tool the settings do not offer. (mcp-go may drop a
// notification sent as a handler returns, so a test reads the notices
// while the tool waits.)
func noticeNode(t *testing.T, kv *memKV, log *memLog, proceed <-chan struct{}) (*Transport, *httptest.Server) {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         kv, Answers: rawKV{kv}, Log: log,
		Streams: func() bool { return true },
		NotOffered: func(_ context.Context, name string) string {
			if name == "post_message" {
				return "post_message is not offered: the admin has turned writing off."
			}
			return ""
		},
	})
	tr.MCP.AddTool(mcp.NewTool("tell_all", mcp.WithDescription("test")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range levels {
			Tell(ctx, l, "notice at "+string(l))
		}
		if proceed != nil {
			select {
			case <-proceed:
			case <-ctx.Done():
			}
		}
		return mcp.NewToolResultText("told"), nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return tr, srv
}

// openStream opens the GET stream of a session; it is counted once the
// response's header arrived.
func openStream(t *testing.T, ctx context.Context, url, user, session string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+MCPPath, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mattermost-User-Id", user)
	req.Header.Set(server.HeaderKeySessionID, session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// nextEvent reads an SSE stream up to its next message and returns its
// data, skipping comments.
func nextEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before a message: %v", err)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return strings.TrimSpace(data)
		}
	}
}

// guard ends a test's streams should it fail to see what it waits for.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAGetStreamOfASessionHearsThatTheToolsChangedFromTheNodeItIsOpenOn(t *testing.T) {
	kv := newMemKV()
	a, aSrv := noticeNode(t, kv, &memLog{}, nil)
	b, bSrv := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, aSrv.URL, "alice", initialize)
	ctx := guard(t)

	onB := openStream(t, ctx, bSrv.URL, "alice", session) // opened on the node that did not initialize it
	if onB.StatusCode != http.StatusOK || onB.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET answered %d %s", onB.StatusCode, body(t, onB))
	}
	if a.OpenStreams() != 0 || b.OpenStreams() != 1 {
		t.Fatalf("streams a=%d b=%d, want 0 and 1", a.OpenStreams(), b.OpenStreams())
	}
	b.ListChanged(ToolsList | PromptsList)
	r := bufio.NewReader(onB.Body)
	for _, want := range []string{"notifications/tools/list_changed", "notifications/prompts/list_changed"} {
		var msg struct{ JSONRPC, Method string }
		if got := nextEvent(t, r); json.Unmarshal([]byte(got), &msg) != nil || msg.Method != want || msg.JSONRPC != "2.0" {
			t.Fatalf("event %s, want %s", got, want)
		}
	}
	// The session's other requests are still served by any node.
	if got := body(t, post(t, aSrv.URL, "alice", session, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)); !strings.Contains(got, "tell_all") {
		t.Fatalf("tools/list on node a: %s", got)
	}
}

func TestAGetIsNoStreamWithoutAStreamingMattermostOrASessionOfTheCaller(t *testing.T) {
	kv := newMemKV()
	_, srv := noticeNode(t, kv, &memLog{}, nil)
	plain := node(t, kv, &memLog{}, map[string]bool{"alice": true, "bob": true}) // Streams nil
	session := openSession(t, srv.URL, "alice", initialize)
	ctx := guard(t)

	if resp := openStream(t, ctx, plain.URL, "alice", session); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("a Mattermost that does not stream answered GET %d, want 405", resp.StatusCode)
	}
	if resp := openStream(t, ctx, srv.URL, "bob", session); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another person's session answered GET %d, want 404", resp.StatusCode)
	}
	if resp := openStream(t, ctx, srv.URL, "alice", "mm-mcp-unknown"); resp.StatusCode == http.StatusOK {
		t.Fatalf("an unknown session got a stream")
	}
}

func TestADeleteOfTheSessionEndsItsStreamAndASecondGetReplacesTheFirst(t *testing.T) {
	kv := newMemKV()
	tr, srv := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, srv.URL, "alice", initialize)
	ctx := guard(t)

	first := openStream(t, ctx, srv.URL, "alice", session)
	second := openStream(t, ctx, srv.URL, "alice", session)
	if _, err := io.ReadAll(first.Body); err != nil {
		t.Fatalf("the first stream did not end cleanly: %v", err)
	}
	if tr.OpenStreams() != 1 || second.StatusCode != http.StatusOK {
		t.Fatalf("streams %d, second %d", tr.OpenStreams(), second.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+MCPPath, nil)
	req.Header.Set("Mattermost-User-Id", "alice")
	req.Header.Set(server.HeaderKeySessionID, session)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if _, err := io.ReadAll(second.Body); err != nil {
		t.Fatalf("the stream did not end with its session: %v", err)
	}
}

func TestAStreamWhoseSessionEndedOnAnotherNodeIsFoundEndedAtItsRecheck(t *testing.T) {
	kv := newMemKV()
	tr, srv := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, srv.URL, "alice", initialize)
	rec, err := tr.sessions.load(session)
	if err != nil || rec == nil {
		t.Fatalf("record %v %v", rec, err)
	}
	if why := tr.streamStillOpen(rec); why != "" {
		t.Fatalf("an open session's stream found ended: %s", why)
	}
	if err := tr.sessions.close("alice", session); err != nil {
		t.Fatal(err)
	}
	if why := tr.streamStillOpen(rec); why != "session_ended" {
		t.Fatalf("an ended session's stream: %q", why)
	}
}

func TestStreamsAreBoundedPerPersonByEndingTheOldestAndPerNodeByRefusing(t *testing.T) {
	var n noticeStreams
	var alices []*stream
	for i := range MaxStreamsPerPerson + 1 {
		s, err := n.open("alice", fmt.Sprintf("s%d", i), false)
		if err != nil {
			t.Fatal(err)
		}
		alices = append(alices, s)
	}
	select {
	case <-alices[0].end:
	default:
		t.Fatal("the person's oldest stream was not ended to make room")
	}
	if n.count != MaxStreamsPerPerson {
		t.Fatalf("count %d, want %d", n.count, MaxStreamsPerPerson)
	}
	for i := n.count; i < maxStreamsPerNode; i++ {
		if _, err := n.open(fmt.Sprintf("user%d", i), "", true); err != nil {
			t.Fatalf("stream %d refused below the bound: %v", i, err)
		}
	}
	if _, err := n.open("bob", "x", false); !errors.Is(err, errStreamsFull) {
		t.Fatalf("a stream past the node's bound: %v", err)
	}
	n.close(alices[1])
	if _, err := n.open("bob", "x", false); err != nil {
		t.Fatalf("a stream after one closed: %v", err)
	}
	if len(n.byPerson["alice"]) != MaxStreamsPerPerson-1 {
		t.Fatalf("alice keeps %d streams", len(n.byPerson["alice"]))
	}
}

func TestASubscriptionsListenStreamHearsTheToolsChangedAndCountsAsAStream(t *testing.T) {
	tr, srv := noticeNode(t, newMemKV(), &memLog{}, nil)
	ctx := guard(t)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"modern","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set(mcp.HeaderMethod, "subscriptions/listen")
	req.Header.Set("Mattermost-User-Id", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if ack := nextEvent(t, r); !strings.Contains(ack, "notifications/subscriptions/acknowledged") || !strings.Contains(ack, `"toolsListChanged":true`) {
		t.Fatalf("first event %s (status %d)", ack, resp.StatusCode)
	}
	if tr.OpenStreams() != 1 {
		t.Fatalf("streams %d, want 1", tr.OpenStreams())
	}
	tr.ListChanged(ToolsList)
	if got := nextEvent(t, r); !strings.Contains(got, "notifications/tools/list_changed") || !strings.Contains(got, "listen-1") {
		t.Fatalf("event %s", got)
	}
}

// subscribedNowhere is a Subscriptions that records what it was asked.
type subscribedNowhere struct{ asked []string }

func (s *subscribedNowhere) Subscribe(_ context.Context, _, _, uri string) error {
	s.asked = append(s.asked, uri)
	return nil
}
func (s *subscribedNowhere) Unsubscribe(context.Context, string, string, string) error { return nil }

func TestWhereMattermostCannotStreamNoListenGetStreamOrSubscriptionIsHeldAndEachRefusalNamesTheVersionThatCan(t *testing.T) {
	kv := newMemKV()
	subs := &subscribedNowhere{}
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
		Streams:       func() bool { return false },
		Subscriptions: subs,
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	modern := func(method, body string) string {
		req, _ := http.NewRequestWithContext(guard(t), http.MethodPost, srv.URL+MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set(mcp.HeaderMethod, method)
		req.Header.Set("Mattermost-User-Id", "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"modern","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	got := modern("subscriptions/listen", `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+meta+`}}`)
	if !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, "list tools, prompts and resources again") || tr.OpenStreams() != 0 {
		t.Fatalf("listen on a Mattermost that cannot stream answered %s with %d streams open", got, tr.OpenStreams())
	}
	if caps := modern("server/discover", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`); !strings.Contains(caps, `"capabilities"`) || strings.Contains(caps, `"listChanged":true`) {
		t.Fatalf("a Mattermost that cannot stream declares list changes: %s", caps)
	}

	// A session of 2025-11-25 is offered no GET stream and no subscription,
	// each refused with the version that can and what to do instead.
	session := openSession(t, srv.URL, "alice", initialize)
	if caps := body(t, post(t, srv.URL, "alice", "", initialize)); strings.Contains(caps, `"listChanged":true`) || strings.Contains(caps, `"subscribe":true`) {
		t.Fatalf("initialize declares what cannot be heard here: %s", caps)
	}
	got = body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"mattermost://thread/abc"}}`))
	if !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, "Mattermost 11.4 and later") || !strings.Contains(got, "resources/read") || len(subs.asked) != 0 {
		t.Fatalf("resources/subscribe answered %s and subscribed %v", got, subs.asked)
	}
	stream := openStream(t, guard(t), srv.URL, "alice", session)
	if got := body(t, stream); stream.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(got, "Mattermost 11.4 and later") || tr.OpenStreams() != 0 {
		t.Fatalf("GET answered %d %q with %d streams open", stream.StatusCode, got, tr.OpenStreams())
	}
}

// toldAtOnce reads the answer of a tell_all call as it streams: the log
// messages sent while the tool waits, which must be exactly those at want
// and above, then lets the tool answer and reads the rest, which must be
// its answer alone. With want "" the tool must not wait (nothing would
// start the answer's stream): proceed is closed already.
func toldAtOnce(t *testing.T, resp *http.Response, proceed chan<- struct{}, want mcp.LoggingLevel) {
	t.Helper()
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for _, l := range levels {
		if want == "" || !l.ShouldSendTo(want) {
			continue
		}
		if got := nextEvent(t, r); !strings.Contains(got, `"notice at `+string(l)+`"`) || !strings.Contains(got, `"logger":"mattermost"`) {
			t.Fatalf("at level %q the next message is %s, want the one at %s", want, got, l)
		}
	}
	if want != "" {
		close(proceed)
	}
	rest, _ := io.ReadAll(r)
	if strings.Contains(string(rest), "notifications/message") || !strings.Contains(string(rest), `"told"`) {
		t.Fatalf("at level %q after the messages at it and above: %s", want, rest)
	}
}

func TestTheLogLevelIsKeptInTheSessionRecordAndAnotherNodeSendsOnlyThatLevelAndAbove(t *testing.T) {
	kv := newMemKV()
	_, a := noticeNode(t, kv, &memLog{}, nil)
	proceed := make(chan struct{})
	_, b := noticeNode(t, kv, &memLog{}, proceed)
	session := openSession(t, a.URL, "alice", initialize)
	call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tell_all","arguments":{}}}`
	resp := post(t, a.URL, "alice", session, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}`)
	if got := body(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(got, `"result":{}`) {
		t.Fatalf("setLevel answered %d %s", resp.StatusCode, got)
	}
	toldAtOnce(t, post(t, b.URL, "alice", session, call), proceed, mcp.LoggingLevelWarning)
}

func TestASessionThatSetNoLevelGetsNoLogMessages(t *testing.T) {
	proceed := make(chan struct{})
	close(proceed)
	_, srv := noticeNode(t, newMemKV(), &memLog{}, proceed)
	session := openSession(t, srv.URL, "alice", initialize)
	toldAtOnce(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tell_all","arguments":{}}}`), proceed, "")
}

func TestAnUnknownLogLevelIsRefusedWithTheLevelsToSendAndNothingIsStored(t *testing.T) {
	kv := newMemKV()
	tr, srv := noticeNode(t, kv, &memLog{}, nil)
	session := openSession(t, srv.URL, "alice", initialize)
	got := body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"`+strings.Repeat("loud", 1000)+`"}}`))
	if !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "debug") || len(got) > 600 {
		t.Fatalf("answer %s", got)
	}
	if rec, _ := tr.sessions.load(session); rec.LogLevel != "" {
		t.Fatalf("stored level %q", rec.LogLevel)
	}
}

func TestACallTheSettingsRefuseCarriesAWarningLogMessageOnlyWhenTheClientAskedForWarnings(t *testing.T) {
	_, srv := noticeNode(t, newMemKV(), &memLog{}, nil)
	session := openSession(t, srv.URL, "alice", initialize)
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"post_message","arguments":{}}}`
	if got := body(t, post(t, srv.URL, "alice", session, call)); strings.Contains(got, "notifications/message") || !strings.Contains(got, "turned writing off") {
		t.Fatalf("without a level: %s", got)
	}
	body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}`))
	resp := post(t, srv.URL, "alice", session, call)
	got := body(t, resp)
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(got, `"level":"warning"`) ||
		!strings.Contains(got, "do not offer the tool") || !strings.Contains(got, "turned writing off") {
		t.Fatalf("with level info: %s", got)
	}
}

func TestAStatelessCallSendsLogMessagesOnlyAtTheLevelItsOwnMetaNames(t *testing.T) {
	for _, level := range []mcp.LoggingLevel{"", mcp.LoggingLevelError} {
		proceed := make(chan struct{})
		if level == "" {
			close(proceed)
		}
		_, srv := noticeNode(t, newMemKV(), &memLog{}, proceed)
		meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"modern","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}`
		if level != "" {
			meta += `,"io.modelcontextprotocol/logLevel":"` + string(level) + `"`
		}
		resp := postStateless(t, srv.URL, "alice", "tools/call", "tell_all", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tell_all","arguments":{},"_meta":{`+meta+`}}}`)
		toldAtOnce(t, resp, proceed, level)
	}
}
