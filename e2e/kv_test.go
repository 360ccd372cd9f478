package e2e

// What one person's client can make the plugin keep in Mattermost's KV
// store is bounded (product rule 9): a session keeps a few hundred bytes
// whatever the client declares, a person has at most MaxSessionsPerPerson
// sessions (past them the least recently used one not in use ends, so
// clients that never say goodbye lock nobody out) and MaxPendingPerPerson
// writes waiting, and an answer larger
// than MaxAnswerBytes is refused before anything is kept. Each is read back
// from the database, where the KV store lives.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// legacyVersion is the last protocol version with sessions.
const legacyVersion = "2025-11-25"

// mcpPost sends one JSON-RPC message as token, in session (if any), to the
// MCP endpoint of site, and returns the status, the session id header and
// the body.
func mcpPost(t *testing.T, site, token, session, message string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mcpURL(site), strings.NewReader(message))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("MCP-Protocol-Version", legacyVersion)
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(server.HeaderKeySessionID), string(b)
}

// openSession initializes a session (protocol 2025-11-25, which has them)
// declaring clientInfo and capabilities as given.
func openSession(t *testing.T, site, token, clientInfo, capabilities string) string {
	t.Helper()
	code, session, body := mcpPost(t, site, token, "", fmt.Sprintf(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":%s}}`,
		legacyVersion, capabilities, clientInfo))
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	return session
}

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`

// newPerson is a person of their own, so that what this file fills up
// (sessions, pending writes) is nobody else's.
func newPerson(t *testing.T, prefix string) harness.User {
	t.Helper()
	u, err := mm.CreateUser(uniq(t, prefix))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestASessionInitializedWithAMegabyteClientInfoKeepsAFewHundredBytes(t *testing.T) {
	alice := mm.Users[0]
	mib := strings.Repeat("x", 1<<20)
	session := openSession(t, mm.URL, alice.Token,
		fmt.Sprintf(`{"name":%q,"version":%q,"title":%q}`, mib, mib, mib),
		fmt.Sprintf(`{"elicitation":{"form":{}},"experimental":{"pad":%q}}`, mib))
	rows, size, err := mm.KVRows(context.Background(), "mcpsession_"+session, "")
	if err != nil {
		t.Fatal(err)
	}
	if rows != 1 || size > 2<<10 {
		t.Fatalf("the session is %d rows of %d bytes, want one of at most 2 KiB", rows, size)
	}
	if code, _, body := mcpPost(t, mm.URL, alice.Token, session, listTools); code != http.StatusOK {
		t.Fatalf("the session after its initialize: %d %s", code, body)
	}
}

func TestAnAnswerLargerThanTheCapGets413AndAJSONRPCError(t *testing.T) {
	alice := mm.Users[0]
	session := openSession(t, mm.URL, alice.Token, `{"name":"e2e","version":"1"}`, `{"elicitation":{"form":{}}}`)
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"ok":true,"pad":%q}}}`,
		strings.Repeat("x", transport.MaxAnswerBytes))
	code, _, body := mcpPost(t, mm.URL, alice.Token, session, answer)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413: %s", code, body)
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Error.Code != -32600 ||
		!strings.Contains(msg.Error.Message, "at most 64 KiB") {
		t.Fatalf("not a clear JSON-RPC error: %s (%v)", body, err)
	}
	if rows, _, err := mm.KVRows(context.Background(), "mcpanswers_"+session, ""); err != nil || rows != 0 {
		t.Fatalf("the refused answer was kept: %d rows (%v)", rows, err)
	}
}

func TestThreeHundredShortLivedClientsOfOnePersonLockNobodyOutAndTheOldestSessionGets404(t *testing.T) {
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	if len(nodes) != 2 {
		t.Fatalf("%d nodes run, want 2", len(nodes))
	}
	// 300 calls of one person in a minute: above the default rate.
	if err := mm.LiftCallRate(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
			t.Errorf("restore the calls a minute: %v", err)
		}
	})
	u := newPerson(t, "shortlived")
	const clients = 300
	sessions := make([]string, clients)
	var wg sync.WaitGroup
	var failed atomic.Int64
	var first atomic.Value
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < clients; i += 8 {
				// Initialize, one call, no DELETE, as the TypeScript SDK's
				// close() leaves it; each request on the next node.
				id, err := shortLivedClient(nodes[i%2], nodes[(i+1)%2], u.Token)
				if err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
				}
				sessions[i] = id
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d short-lived clients failed; the first: %v", failed.Load(), clients, first.Load())
	}
	// A new client still connects and calls, on either node.
	for _, site := range nodes {
		getMe(t, connect(t, site, u.Token), u)
	}
	rows, _, err := mm.KVRows(context.Background(), "mcpsession_", `"user_id":"`+u.ID+`"`)
	if err != nil || rows != transport.MaxSessionsPerPerson {
		t.Fatalf("%d of the person's sessions are stored, want %d (%v)", rows, transport.MaxSessionsPerPerson, err)
	}
	// The oldest client comes back: its session ended to make room, and it
	// is told so as the transport says, on every node.
	for _, site := range nodes {
		if code, _, body := mcpPost(t, site, u.Token, sessions[0], listTools); code != http.StatusNotFound {
			t.Fatalf("the oldest session on %s: %d %.200s", site, code, body)
		}
	}
	// The newest is still there.
	if code, _, body := mcpPost(t, nodes[0], u.Token, sessions[clients-1], listTools); code != http.StatusOK {
		t.Fatalf("the newest short-lived session: %d %.200s", code, body)
	}
}

// shortLivedClient is a client that initializes on one node, says it is
// initialized and calls get_me on the other, and goes without a DELETE; it
// returns its session id.
func shortLivedClient(one, other, token string) (string, error) {
	send := func(site, session, message string) (int, string, string, error) {
		req, err := http.NewRequest(http.MethodPost, mcpURL(site), strings.NewReader(message))
		if err != nil {
			return 0, "", "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set(server.HeaderKeySessionID, session)
			req.Header.Set("MCP-Protocol-Version", legacyVersion)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get(server.HeaderKeySessionID), string(b), err
	}
	code, session, body, err := send(one, "", fmt.Sprintf(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"e2e-short-lived","version":"1"}}}`, legacyVersion))
	if err != nil || code != http.StatusOK || session == "" {
		return "", fmt.Errorf("initialize: %d %.300s %v", code, body, err)
	}
	if code, _, body, err := send(other, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || code != http.StatusAccepted {
		return session, fmt.Errorf("notifications/initialized: %d %.300s %v", code, body, err)
	}
	code, _, body, err = send(one, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_me","arguments":{}}}`)
	if err != nil || code != http.StatusOK || !strings.Contains(body, `"user_id"`) || strings.Contains(body, `"isError":true`) {
		return session, fmt.Errorf("get_me: %d %.300s %v", code, body, err)
	}
	return session, nil
}

func TestFortyClientsOfOnePersonMakeCallsAtOnceThroughTwoNodesWithoutAnError(t *testing.T) {
	proxy, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	u := newPerson(t, "fleet")
	const clients, calls = 40, 10
	ctx := context.Background()
	var wg sync.WaitGroup
	var errs atomic.Int64
	var first atomic.Value
	opened := make(chan *client.Client, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := harness.ConnectMCPVersion(ctx, proxy, u.Token, "fleet", legacyVersion)
			if err != nil {
				errs.Add(1)
				first.CompareAndSwap(nil, "initialize: "+err.Error())
				return
			}
			opened <- c
			for n := range calls {
				tool := []string{"get_me", "list_teams"}[n%2]
				if res, err := harness.CallTool(ctx, c, tool, nil); err != nil || res.IsError {
					errs.Add(1)
					first.CompareAndSwap(nil, fmt.Sprintf("%s: %v %v", tool, err, res))
				}
			}
		}()
	}
	wg.Wait()
	close(opened)
	if errs.Load() > 0 {
		t.Fatalf("%d of %d initializes and calls failed; the first: %v", errs.Load(), clients*(calls+1), first.Load())
	}
	rows, _, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+u.ID+`"`)
	if err != nil || rows != clients {
		t.Fatalf("%d of the person's sessions are stored, want %d (%v)", rows, clients, err)
	}
	// Each client ends its session (DELETE), on whichever node it reaches.
	for c := range opened {
		if err := harness.EndMCPSession(ctx, proxy, u.Token, c); err != nil {
			t.Fatal(err)
		}
	}
	if rows, _, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+u.ID+`"`); err != nil || rows != 0 {
		t.Fatalf("%d of the person's sessions are stored after their clients ended them (%v)", rows, err)
	}
}

func TestThePersonsWriteAfterTheCapIsRefusedWithTheReason(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	u := newPerson(t, "pending")
	ch := townSquare(t)
	c := connect(t, mm.URL, u.Token)
	// Each call waits up to 20 seconds for the person, and its write waits
	// on after it: they wait together, and the test goes on without them.
	marker := uniq(t, "capped")
	for i := range approval.MaxPendingPerPerson {
		postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": fmt.Sprintf("%s %d", marker, i)})
	}
	waitPendingCount(t, u, marker, approval.MaxPendingPerPerson)

	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker + " one more"})
	got := text(res)
	if !res.IsError || !strings.Contains(got, fmt.Sprintf("%d writes already wait", approval.MaxPendingPerPerson)) || !strings.Contains(got, "get_pending") {
		t.Fatalf("the write after the cap: %s", got)
	}
	// Nothing was kept of it, and get_pending still lists the ten.
	waitPendingCount(t, u, marker, approval.MaxPendingPerPerson)
	if listed := strings.Count(text(call(t, c, "get_pending", nil)), ", pending "); listed != approval.MaxPendingPerPerson {
		t.Fatalf("get_pending lists %d pending writes", listed)
	}
	// Answering one makes room for the next.
	answerOnPage(t, u, waitPending(t, u, marker), "decline", marker)
	done := postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": marker + " after one was answered"})
	waitPendingCount(t, u, marker, approval.MaxPendingPerPerson)
	select {
	case res := <-done:
		t.Fatalf("the write after one was answered did not wait: %s", text(res))
	case <-time.After(time.Second):
	}
}

// waitPendingCount waits until exactly n of u's writes marked marker wait
// for them, as the confirmation list says.
func waitPendingCount(t *testing.T, u harness.User, marker string, n int) {
	t.Helper()
	got := -1
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_, body := get(t, http.DefaultClient, apiOf(mm.URL), u.Token)
		var list struct {
			Confirmations []struct{ Title, State string }
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatalf("pending list %q: %v", body, err)
		}
		got = 0
		for _, c := range list.Confirmations {
			if strings.Contains(c.Title, marker) && c.State == "pending" {
				got++
			}
		}
		if got == n {
			return
		}
	}
	t.Fatalf("%d writes marked %s wait, want %d", got, marker, n)
}
