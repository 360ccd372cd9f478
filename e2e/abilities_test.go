package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// What a test needs of the Mattermost it runs on, said in one place. The
// harness answers from the server it started; where the answer is no, the
// helper checks instead that the plugin offers nothing that cannot work
// there, so a test that needs it still asserts something on every version
// and never passes by doing nothing.

// streams reports whether this Mattermost delivers what the plugin writes
// before the response ends: progress and questions on a call's stream, GET
// and subscriptions/listen streams, the notices they carry. A test that
// needs any of them begins with `if !streams(t) { return }`.
func streams(t *testing.T) bool {
	t.Helper()
	if mm.Streams() {
		return true
	}
	offersNoStream(t)
	t.Logf("Mattermost %s delivers a plugin's responses whole: checked that the plugin offers no stream here, in place of what needs one", mm.Version())
	return false
}

// offersNoStream checks the plugin's answers on a Mattermost that cannot
// stream: initialize declares no list changes and no subscriptions, a
// session's GET stream is 405, and resources/subscribe and
// subscriptions/listen are refused, each naming the version that can.
func offersNoStream(t *testing.T) {
	t.Helper()
	alice := mm.Users[0]
	code, session, body := mcpPost(t, mm.URL, alice.Token, "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"no-stream","version":"1"}}}`)
	if code != http.StatusOK || strings.Contains(body, `"listChanged":true`) || strings.Contains(body, `"subscribe":true`) {
		t.Fatalf("initialize on a Mattermost that cannot stream: %d %s", code, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, mcpURL(mm.URL), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+alice.Token)
	req.Header.Set("MCP-Protocol-Version", legacyVersion)
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /mcp on a Mattermost that cannot stream: %d, want 405", resp.StatusCode)
	}
	_, _, sub := mcpPost(t, mm.URL, alice.Token, session, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"mattermost://thread/`+strings.Repeat("a", 26)+`"}}`)
	if !strings.Contains(sub, `"code":-32601`) || !strings.Contains(sub, "Mattermost 11.4 and later") {
		t.Fatalf("resources/subscribe on a Mattermost that cannot stream: %s", sub)
	}
}

// oauthForClients reports whether this Mattermost can sign an MCP client in
// with OAuth (it has dynamic client registration). Where it cannot, it
// checks that the plugin's 401 names no authorization server and asks for a
// personal access token, which is how people sign in there.
func oauthForClients(t *testing.T) bool {
	t.Helper()
	if mm.OAuthForClients() {
		return true
	}
	resp := rawInitialize(t, "")
	if challenge := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || strings.Contains(challenge, "resource_metadata") {
		t.Fatalf("an unsigned request on a Mattermost without OAuth for clients: %d %q", resp.StatusCode, challenge)
	}
	t.Logf("Mattermost %s has no dynamic client registration: checked that the plugin asks for a token in place of OAuth", mm.Version())
	return false
}

// theRefusedStream reports whether a line of a browser's console is the one a
// page's MCP client logs where Mattermost cannot stream, and only there: its
// GET /mcp answered 405, the way a server says it holds no stream (at the
// plugin's URL, or at the /mcp of a test's proxy in front of it).
func theRefusedStream(line string) bool {
	return !mm.Streams() && strings.Contains(line, "the server responded with a status of 405 (Method Not Allowed)") &&
		strings.HasSuffix(strings.TrimSpace(line), "/mcp")
}

func TestInitializeDeclaresListChangesAndSubscriptionsExactlyWhereThisMattermostStreams(t *testing.T) {
	code, _, body := mcpPost(t, mm.URL, mm.Users[0].Token, "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"capabilities","version":"1"}}}`)
	var answer struct {
		Result struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &answer); code != http.StatusOK || err != nil {
		t.Fatalf("initialize: %d %v %s", code, err, body)
	}
	caps := answer.Result.Capabilities
	declared, _ := json.Marshal(caps)
	t.Logf("Mattermost %s (streams: %v): the plugin declares %s", mm.Version(), mm.Streams(), declared)
	for _, c := range []struct{ capability, field string }{{"tools", "listChanged"}, {"prompts", "listChanged"}, {"resources", "listChanged"}, {"resources", "subscribe"}} {
		var fields map[string]any
		_ = json.Unmarshal(caps[c.capability], &fields)
		if on, _ := fields[c.field].(bool); on != mm.Streams() {
			t.Errorf("%s.%s is %v on a Mattermost that streams=%v", c.capability, c.field, on, mm.Streams())
		}
	}
	for _, c := range []string{"tools", "prompts", "resources", "logging", "completions"} {
		if _, ok := caps[c]; !ok {
			t.Errorf("initialize declares no %s on Mattermost %s", c, mm.Version())
		}
	}
}
