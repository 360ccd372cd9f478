package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

// waitingTool waits as a call that waits for the person does, until its
// client cancels it or its request ends, and says which it was.
func waitingTool(seen chan<- bool) server.ToolHandlerFunc {
	return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := WatchCancel(ctx)
		defer stop()
		<-ctx.Done()
		cancelled := CancelledByClient(ctx)
		if cancelled {
			DropAnswer(ctx)
		}
		seen <- cancelled
		return mcp.NewToolResultText("answered anyway"), nil
	}
}

const callWaiting = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`

func cancelNotification(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"the person pressed Esc"}}`
}

// cancelRows counts the calls registered for cancellation.
func (m *memKV) cancelRows() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.data {
		if strings.HasPrefix(k, cancelPrefix) {
			n++
		}
	}
	return n
}

// waitForRows polls until n calls are registered.
func waitForRows(t *testing.T, kv *memKV, n int) {
	t.Helper()
	for range 500 {
		if kv.cancelRows() == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d calls registered for cancellation, want %d", kv.cancelRows(), n)
}

// twoNodesWithAWaitingTool are two nodes over one KV store whose tool
// "wait" reports on seen.
func twoNodesWithAWaitingTool(t *testing.T) (kv *memKV, a, b string, seen chan bool) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	seen = make(chan bool, 2)
	ta, sa := newNode(t, kv, log, active)
	tb, sb := newNode(t, kv, log, active)
	for _, tr := range []*Transport{ta, tb} {
		tr.MCP.AddTool(mcp.NewTool("wait", mcp.WithDescription("test")), waitingTool(seen))
		// Each node its own hub, over the one store: a cancellation on
		// the other node wakes the call through its inbox.
		tr.opts.Wake = &wake.Hub{KV: rawKV{kv}}
	}
	return kv, sa.URL, sb.URL, seen
}

func TestACallCancelledThroughEitherNodeLearnsItWasCancelledAndAnswersNothing(t *testing.T) {
	for _, through := range []string{"the node that waits", "the other node"} {
		t.Run(through, func(t *testing.T) {
			kv, a, b, seen := twoNodesWithAWaitingTool(t)
			resp := post(t, a, "alice", "", initialize)
			session := resp.Header.Get(server.HeaderKeySessionID)
			body(t, resp)
			answer := make(chan string, 1)
			go func() { answer <- body(t, post(t, a, "alice", session, callWaiting)) }()
			waitForRows(t, kv, 1)

			cancelAt := a
			if through == "the other node" {
				cancelAt = b
			}
			if resp := post(t, cancelAt, "alice", session, cancelNotification("7")); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("the cancellation: status %d", resp.StatusCode)
			}
			if !<-seen {
				t.Fatal("the call took its cancellation for a dropped connection")
			}
			if got := <-answer; strings.Contains(got, "answered anyway") || strings.Contains(got, `"result"`) {
				t.Fatalf("the cancelled call was answered: %s", got)
			}
			waitForRows(t, kv, 0)
		})
	}
}

func TestACallWhoseConnectionDropsIsNotTakenForCancelled(t *testing.T) {
	kv, a, _, seen := twoNodesWithAWaitingTool(t)
	resp := post(t, a, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a+MCPPath, strings.NewReader(callWaiting))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mattermost-User-Id", "alice")
	req.Header.Set(server.HeaderKeySessionID, session)
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitForRows(t, kv, 1)
	drop()
	if <-seen {
		t.Fatal("a dropped connection was taken for the client's cancellation")
	}
	waitForRows(t, kv, 0)
}

func TestACancellationOfACallThatDoesNotWaitKeepsNothing(t *testing.T) {
	kv, a, b, _ := twoNodesWithAWaitingTool(t)
	resp := post(t, a, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	for i, id := range []string{"7", `"7"`, "99", `"` + strings.Repeat("x", 400) + `"`} {
		at := []string{a, b}[i%2]
		if resp := post(t, at, "alice", session, cancelNotification(id)); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("cancelling %s: status %d", id, resp.StatusCode)
		}
	}
	if n := kv.cancelRows(); n != 0 {
		t.Fatalf("cancellations of calls that do not wait left %d rows", n)
	}
}

func TestARequestIDIsCanonicalAndKeepsNumbersAndStringsApart(t *testing.T) {
	cases := []struct {
		raw, want string
		ok        bool
	}{
		{"7", "7", true},
		{" 7 ", "7", true},
		{`"7"`, `"7"`, true},
		{"12345678901234567890", "12345678901234567890", true},
		{"null", "", false},
		{`{"a":1}`, "", false},
		{`"` + strings.Repeat("x", maxRequestIDBytes) + `"`, "", false},
	}
	for _, c := range cases {
		got, ok := canonicalID([]byte(c.raw))
		if got != c.want || ok != c.ok {
			t.Errorf("canonicalID(%s) = %q %v, want %q %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}
