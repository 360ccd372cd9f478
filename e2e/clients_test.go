package e2e

// What foreign MCP clients send: JSON-RPC batches (protocol 2025-03-26),
// arguments of the wrong type, and requests from web pages (Origin).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// rawPost sends body to url as token with the given headers and returns the
// status, the headers and the body.
func rawPost(t *testing.T, method, url, token, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	return namingHost(t, method, url, "", token, body, headers)
}

func initializeAs(version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"e2e-foreign","version":"1"}}}`, version)
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestABatchOnASessionOf20250326IsAnsweredAndOnALaterRevisionIsAnInvalidRequest(t *testing.T) {
	alice := mm.Users[0]
	town := townSquare(t)
	code, h, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, initializeAs("2025-03-26"), nil)
	session := h.Get(server.HeaderKeySessionID)
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize 2025-03-26: %d %s", code, body)
	}
	batch := fmt.Sprintf(`[{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_me","arguments":{}}},
		{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_channel","arguments":{"channel":%q,"limit":"30"}}}]`, town.Id)
	code, _, body = rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, batch, map[string]string{server.HeaderKeySessionID: session})
	var answers []rpcAnswer
	if err := json.Unmarshal([]byte(body), &answers); code != http.StatusOK || err != nil || len(answers) != 2 {
		t.Fatalf("the batch: %d %s (%v)", code, body, err)
	}
	for _, a := range answers {
		if a.Result == nil || len(a.Result.Content) == 0 {
			t.Fatalf("an answer without a result: %s", body)
		}
		text := a.Result.Content[0].Text
		switch string(a.ID) {
		case "2":
			if a.Result.IsError || !strings.Contains(text, alice.Username) {
				t.Fatalf("get_me in the batch: %s", text)
			}
		case "3":
			if !a.Result.IsError || !strings.Contains(text, "argument `limit` takes an integer; you sent a string") {
				t.Fatalf("read_channel with a string limit: %s", text)
			}
		default:
			t.Fatalf("an answer to no request: %s", body)
		}
	}

	// A session of a later revision: -32600, not a parse error.
	newer := openSession(t, mm.URL, alice.Token, `{"name":"e2e","version":"1"}`, `{}`)
	code, _, body = rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, `[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		map[string]string{server.HeaderKeySessionID: newer, "MCP-Protocol-Version": legacyVersion})
	var refusal rpcAnswer
	if err := json.Unmarshal([]byte(body), &refusal); code != http.StatusBadRequest || err != nil || refusal.Error == nil ||
		refusal.Error.Code != mcp.INVALID_REQUEST || !strings.Contains(refusal.Error.Message, "Send each message in a request of its own") {
		t.Fatalf("a batch on %s: %d %s", legacyVersion, code, body)
	}
	// The session goes on: the refusal was about the batch, not the session.
	if code, _, body := mcpPost(t, mm.URL, alice.Token, newer, listTools); code != http.StatusOK {
		t.Fatalf("the session after the refused batch: %d %.200s", code, body)
	}
}

func TestAnArgumentOfTheWrongTypeIsRefusedNamingItAndTheTypeItTakes(t *testing.T) {
	alice := mm.Users[0]
	town := townSquare(t)
	c := connect(t, mm.URL, alice.Token)
	res, err := harness.CallTool(context.Background(), c, "read_channel", map[string]any{"channel": town.Id, "limit": "30"})
	if err != nil || !res.IsError {
		t.Fatalf("read_channel with limit \"30\": %v %+v", err, res)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if !strings.Contains(text, "read_channel: argument `limit` takes an integer; you sent a string. Call it again with `limit` as an integer.") ||
		strings.Contains(text, "Go struct") {
		t.Fatalf("the refusal: %q", text)
	}
	// The call as the refusal says is answered.
	res, err = harness.CallTool(context.Background(), c, "read_channel", map[string]any{"channel": town.Id, "limit": 30})
	if err != nil || res.IsError {
		t.Fatalf("read_channel with limit 30: %v %+v", err, res)
	}
}

func TestARequestFromAForeignOriginGets403AndTheSitesOwnNoneAndAListedOneAreServed(t *testing.T) {
	alice := mm.Users[0]
	files := strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server" + workspace.APIPath
	const listed = "http://localhost:6274" // the MCP inspector's page
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowedOrigins": ""}) })

	for _, origin := range []string{"https://attacker.example", listed} {
		code, _, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, initializeAs(legacyVersion), map[string]string{"Origin": origin})
		var refusal rpcAnswer
		if err := json.Unmarshal([]byte(body), &refusal); code != http.StatusForbidden || err != nil || refusal.Error == nil ||
			!strings.Contains(refusal.Error.Message, "Allowed origins for browser-based MCP clients") || strings.Contains(refusal.Error.Message, "\n") {
			t.Fatalf("initialize from %s: %d %s", origin, code, body)
		}
		if code, _, body := rawPost(t, http.MethodGet, files, alice.Token, "", map[string]string{"Origin": origin}); code != http.StatusForbidden {
			t.Fatalf("the workspace API from %s: %d %s", origin, code, body)
		}
	}
	site := strings.TrimRight(mm.URL, "/")
	for _, origin := range []string{"", site} {
		code, h, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, initializeAs(legacyVersion), map[string]string{"Origin": origin})
		if code != http.StatusOK || h.Get(server.HeaderKeySessionID) == "" {
			t.Fatalf("initialize from %q: %d %s", origin, code, body)
		}
		if code, _, body := rawPost(t, http.MethodGet, files, alice.Token, "", map[string]string{"Origin": origin}); code != http.StatusOK {
			t.Fatalf("the workspace API from %q: %d %s", origin, code, body)
		}
	}

	// The admin lists the inspector's origin: served without a restart.
	if err := mm.PatchPluginSettings(map[string]any{"AllowedOrigins": "https://other.example.com,\n" + listed}); err != nil {
		t.Fatal(err)
	}
	var session string
	for deadline := time.Now().Add(10 * time.Second); session == "" && time.Now().Before(deadline); {
		code, h, _ := rawPost(t, http.MethodPost, mcpURL(mm.URL), alice.Token, initializeAs(legacyVersion), map[string]string{"Origin": listed})
		if code == http.StatusOK {
			session = h.Get(server.HeaderKeySessionID)
		} else {
			time.Sleep(100 * time.Millisecond) // until every node read the setting
		}
	}
	if session == "" {
		t.Fatal("the listed origin was still refused")
	}
	// Read back on its own request: the session the listed page opened works
	// on every node, and the workspace API answers that page too.
	for _, node := range mm.NodeURLs() {
		code, _, body := rawPost(t, http.MethodPost, mcpURL(node), alice.Token, listTools,
			map[string]string{"Origin": listed, server.HeaderKeySessionID: session, "MCP-Protocol-Version": legacyVersion})
		if code != http.StatusOK || !strings.Contains(body, "get_me") {
			t.Fatalf("tools/list from the listed origin on %s: %d %.200s", node, code, body)
		}
	}
	if code, _, body := rawPost(t, http.MethodGet, files, alice.Token, "", map[string]string{"Origin": listed}); code != http.StatusOK {
		t.Fatalf("the workspace API from the listed origin: %d %s", code, body)
	}
	rows, _, err := mm.KVRows(context.Background(), "mcpsession_"+session, "")
	if err != nil || rows != 1 {
		t.Fatalf("the listed origin's session: %d rows (%v)", rows, err)
	}
}
