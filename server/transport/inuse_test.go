package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Sessions in use through the transport: a call in flight, a stream open,
// a call waiting for the person on another node.

// callAt posts a tools/call of tool in session on url and returns the
// answer's body, from any goroutine.
func callAt(url, user, session, tool string) (int, string) {
	req, _ := http.NewRequest(http.MethodPost, url+MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mattermost-User-Id", user)
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// fill opens sessions of user on url until the person has
// MaxSessionsPerPerson, each answering nothing further: short-lived
// clients that never said goodbye.
func fill(t *testing.T, url, user string, have int) []string {
	t.Helper()
	var ids []string
	for range MaxSessionsPerPerson - have {
		ids = append(ids, openSession(t, url, user, initialize))
	}
	return ids
}

// heldOn waits until tr holds n sessions in use.
func heldOn(t *testing.T, tr *Transport, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		tr.sessions.holds.mu.Lock()
		got := len(tr.sessions.holds.count)
		tr.sessions.holds.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("the node never held %d sessions", n)
}

// inFlight starts a call of tell_all (which waits for proceed) in session
// on url, and returns where its answer comes.
func inFlight(url, user, session string) <-chan string {
	done := make(chan string, 1)
	go func() {
		code, text := callAt(url, user, session, "tell_all")
		done <- strconv.Itoa(code) + " " + text
	}()
	return done
}

func TestASessionWithACallInFlightIsNeverEndedToMakeRoomAndTheLeastRecentlyUsedOtherOneIs(t *testing.T) {
	kv := newMemKV()
	proceed := make(chan struct{})
	goOn := sync.OnceFunc(func() { close(proceed) })
	tr, srv := noticeNode(t, kv, &memLog{}, proceed)
	t.Cleanup(goOn) // runs before the servers' Close, which waits for the calls: a failed test ends
	busy := openSession(t, srv.URL, "alice", initialize)
	answered := inFlight(srv.URL, "alice", busy)
	heldOn(t, tr, 1)
	others := fill(t, srv.URL, "alice", 1)
	openSession(t, srv.URL, "alice", initialize)
	goOn()
	if got := <-answered; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "told") {
		t.Fatalf("the call in flight: %s", got)
	}
	if code, _ := callAt(srv.URL, "alice", busy, "tell_all"); code != http.StatusOK {
		t.Fatalf("the session whose call was in flight answers %d", code)
	}
	if code, _ := callAt(srv.URL, "alice", others[0], "tell_all"); code != http.StatusNotFound {
		t.Fatalf("the least recently used session not in use answers %d, want 404", code)
	}
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored", n)
	}
}

func TestASessionWhoseCallWaitsForThePersonOnAnotherNodeIsNotEndedThere(t *testing.T) {
	kv := newMemKV()
	proceed := make(chan struct{})
	goOn := sync.OnceFunc(func() { close(proceed) })
	a, srvA := noticeNode(t, kv, &memLog{}, proceed)
	b, srvB := noticeNode(t, kv, &memLog{}, proceed)
	t.Cleanup(goOn) // runs before the servers' Close, which waits for the calls: a failed test ends
	waiting := openSession(t, srvA.URL, "alice", initialize)
	answered := inFlight(srvB.URL, "alice", waiting) // as a write waits for the person's answer
	heldOn(t, b, 1)
	heldOn(t, a, 0)
	others := fill(t, srvA.URL, "alice", 1)
	for range 3 {
		openSession(t, srvA.URL, "alice", initialize)
	}
	goOn()
	if got := <-answered; !strings.HasPrefix(got, "200 ") {
		t.Fatalf("the waiting call: %s", got)
	}
	for _, srv := range []string{srvA.URL, srvB.URL} {
		if code, _ := callAt(srv, "alice", waiting, "tell_all"); code != http.StatusOK {
			t.Fatalf("the session whose call waited on the other node answers %d", code)
		}
	}
	if code, _ := callAt(srvB.URL, "alice", others[0], "tell_all"); code != http.StatusNotFound {
		t.Fatalf("an ended session answers %d on the other node, want 404", code)
	}
}

func TestASessionWithAnOpenStreamIsNeverEndedToMakeRoom(t *testing.T) {
	kv := newMemKV()
	tr, srv := noticeNode(t, kv, &memLog{}, nil)
	listening := openSession(t, srv.URL, "alice", initialize)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if resp := openStream(t, ctx, srv.URL, "alice", listening); resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream: %d", resp.StatusCode)
	}
	heldOn(t, tr, 1)
	others := fill(t, srv.URL, "alice", 1)
	openSession(t, srv.URL, "alice", initialize)
	if code, _ := callAt(srv.URL, "alice", listening, "tell_all"); code != http.StatusOK {
		t.Fatalf("the session with a stream open answers %d", code)
	}
	if code, _ := callAt(srv.URL, "alice", others[0], "tell_all"); code != http.StatusNotFound {
		t.Fatalf("the least recently used session not in use answers %d, want 404", code)
	}
}

func TestWhenEverySessionIsInUseTheInitializeGets503WithRetryAfterAndOnceOneIsNotItSucceeds(t *testing.T) {
	kv := newMemKV()
	proceed := make(chan struct{})
	goOn := sync.OnceFunc(func() { close(proceed) })
	tr, srv := noticeNode(t, kv, &memLog{}, proceed)
	t.Cleanup(goOn) // runs before the servers' Close, which waits for the calls: a failed test ends
	ids := fill(t, srv.URL, "alice", 0)
	var answers []<-chan string
	for _, id := range ids {
		answers = append(answers, inFlight(srv.URL, "alice", id))
	}
	heldOn(t, tr, MaxSessionsPerPerson)
	resp := post(t, srv.URL, "alice", "", initialize)
	text := body(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("the initialize past the cap: %d %s", resp.StatusCode, text)
	}
	retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retry != int(sessionsBusyRetry/time.Second) {
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
		!strings.Contains(msg.Error.Message, "256 MCP sessions open") || !strings.Contains(msg.Error.Message, "every one is in use right now") ||
		!strings.Contains(msg.Error.Message, "Try again in "+strconv.Itoa(retry)+" seconds") {
		t.Fatalf("the JSON-RPC error: %s (%v)", text, err)
	}
	// Nothing in use was ended, and another person is not refused.
	if n := len(kv.sessionsOf("alice")); n != MaxSessionsPerPerson {
		t.Fatalf("%d of alice's sessions are stored", n)
	}
	openSession(t, srv.URL, "bob", initialize)
	goOn()
	for _, answered := range answers {
		if got := <-answered; !strings.HasPrefix(got, "200 ") {
			t.Fatalf("a call in flight during the refusal: %s", got)
		}
	}
	openSession(t, srv.URL, "alice", initialize)
}
