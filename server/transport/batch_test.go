package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// postVersion is post with the protocol header of version ("" for none, as
// clients of 2025-03-26 send).
func postVersion(t *testing.T, url, user, session, version, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mattermost-User-Id", user)
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func initializeVersion(version string) string {
	return strings.Replace(initialize, "2025-11-25", version, 1)
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestABatchOnASessionOf20250326IsAnsweredMessageByMessageOnAnyNode(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, &memLog{}, active), node(t, kv, &memLog{}, active)
	session := openSession(t, a.URL, "alice", initializeVersion("2025-03-26"))
	batch := `[{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}},
		{"jsonrpc":"2.0","id":"three","method":"tools/list"},
		{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}]`
	resp := postVersion(t, b.URL, "alice", session, "", batch)
	text := body(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("the batch: %d %s", resp.StatusCode, text)
	}
	var answers []rpcMessage
	if err := json.Unmarshal([]byte(text), &answers); err != nil || len(answers) != 3 {
		t.Fatalf("want three responses (none for the notification): %s (%v)", text, err)
	}
	byID := map[string]rpcMessage{}
	for _, m := range answers {
		byID[string(m.ID)] = m
	}
	if m := byID["2"]; m.Error != nil || !strings.Contains(string(m.Result), "alice") {
		t.Fatalf("the tool call: %s", text)
	}
	if m := byID[`"three"`]; m.Error != nil || !strings.Contains(string(m.Result), "whoami") {
		t.Fatalf("the tool list: %s", text)
	}
	if m := byID["4"]; m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "send it alone") {
		t.Fatalf("the initialize in the batch: %s", text)
	}
	if n := len(kv.sessionsOf("alice")); n != 1 {
		t.Fatalf("the batch opened sessions: %d stored", n)
	}
}

func TestABatchOfOnlyNotificationsIsAccepted(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", initializeVersion("2025-03-26"))
	resp := postVersion(t, srv.URL, "alice", session, "", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	if text := body(t, resp); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("a batch of notifications: %d %s", resp.StatusCode, text)
	}
}

func TestABatchOnALaterRevisionIsAnInvalidRequestNotAParseError(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		session := openSession(t, srv.URL, "alice", initializeVersion(version))
		resp := postVersion(t, srv.URL, "alice", session, version, `[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
		text := body(t, resp)
		code, msg := rpcError(t, text)
		if resp.StatusCode != http.StatusBadRequest || code != -32600 ||
			!strings.Contains(msg, "this session speaks "+version) || !strings.Contains(msg, "Send each message in a request of its own") {
			t.Fatalf("a batch on %s: %d %s", version, resp.StatusCode, text)
		}
	}
	// Without a session (a batch cannot initialize one) likewise.
	resp := postVersion(t, srv.URL, "alice", "", "", `[`+initialize+`]`)
	if code, msg := rpcError(t, body(t, resp)); code != -32600 || !strings.Contains(msg, "no MCP session") {
		t.Fatalf("a batch without a session: %d %q", code, msg)
	}
	if n := len(kv.sessionsOf("alice")); n != 2 {
		t.Fatalf("%d sessions stored", n)
	}
}

func TestABatchLargerThanItsBoundIsRefusedWithTheBound(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", initializeVersion("2025-03-26"))
	msgs := make([]string, maxBatchMessages+1)
	for i := range msgs {
		msgs[i] = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	}
	resp := postVersion(t, srv.URL, "alice", session, "", "["+strings.Join(msgs, ",")+"]")
	if code, msg := rpcError(t, body(t, resp)); resp.StatusCode != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "at most 32") {
		t.Fatalf("an oversized batch: %d %d %q", resp.StatusCode, code, msg)
	}
	resp = postVersion(t, srv.URL, "alice", session, "", "[]")
	if code, msg := rpcError(t, body(t, resp)); code != -32600 || !strings.Contains(msg, "empty") {
		t.Fatalf("an empty batch: %d %q", code, msg)
	}
}
