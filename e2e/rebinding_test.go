package e2e

// Issue 20, DNS rebinding: a browser's request must name this Mattermost in
// its Host (the site URL's host, an address or localhost); programs are
// not checked, and a page at the loopback address a request came to counts
// as the server's own (docs/adr/0014-the-host-a-browser-names.md).

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// namingHost sends a request to target as token whose Host header is host
// ("": the target's own), with the given headers, and returns the status,
// headers and body.
func namingHost(t *testing.T, method, target, host, token, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestABrowsersRequestNamingAnotherHostIsRefusedWhileAProgramAndThePagesOfTheServerItselfAreServed(t *testing.T) {
	person := newPerson(t, "rebinding")
	site, err := url.Parse(mm.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := site.Port()
	evil := "evil.example.com:" + port
	files := strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server" + workspace.APIPath
	browsers := map[string]map[string]string{
		// A rebound page's same-origin request without Origin (a GET, or
		// any request of a browser that sends Sec-Fetch-Site).
		"same-origin, no Origin": {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"},
		// Its POST, which carries the page's own origin.
		"with the page's Origin": {"Origin": "http://" + evil, "Sec-Fetch-Site": "same-origin"},
	}
	for what, headers := range browsers {
		code, _, body := namingHost(t, http.MethodPost, mcpURL(mm.URL), evil, person.Token, initializeAs(legacyVersion), headers)
		var refusal rpcAnswer
		if err := json.Unmarshal([]byte(body), &refusal); code != http.StatusForbidden || err != nil || refusal.Error == nil ||
			!strings.Contains(refusal.Error.Message, evil) || !strings.Contains(refusal.Error.Message, "proxy_set_header Host $host") ||
			strings.Contains(refusal.Error.Message, "\n") {
			t.Fatalf("initialize %s naming %s: %d %s", what, evil, code, body)
		}
		if code, _, body := namingHost(t, http.MethodGet, files, evil, person.Token, "", headers); code != http.StatusForbidden {
			t.Fatalf("the workspace API %s naming %s: %d %s", what, evil, code, body)
		}
	}
	// Read back on its own: the refused initializes opened no session.
	if rows, _, err := mm.KVRows(context.Background(), "mcpsessidx_"+person.ID, ""); err != nil || rows != 0 {
		t.Fatalf("after the refusals the person has %d session indexes (%v)", rows, err)
	}

	// A program (no browser headers) behind a proxy that names its own
	// upstream: served, and its session answers on the next request.
	code, h, body := namingHost(t, http.MethodPost, mcpURL(mm.URL), "mattermost.chat.svc.cluster.local:8065", person.Token, initializeAs(legacyVersion), nil)
	session := h.Get(server.HeaderKeySessionID)
	if code != http.StatusOK || session == "" {
		t.Fatalf("a program's initialize naming an internal host: %d %s", code, body)
	}
	code, _, body = namingHost(t, http.MethodPost, mcpURL(mm.URL), site.Host, person.Token, listTools,
		map[string]string{server.HeaderKeySessionID: session, "MCP-Protocol-Version": legacyVersion})
	if code != http.StatusOK || !strings.Contains(body, "get_me") {
		t.Fatalf("tools/list on the program's session: %d %.300s", code, body)
	}
	if rows, _, err := mm.KVRows(context.Background(), "mcpsessidx_"+person.ID, session); err != nil || rows != 1 {
		t.Fatalf("the program's session is in %d indexes of the person (%v)", rows, err)
	}

	// Pages the server itself served: at the site URL, and at the loopback
	// name the request came to.
	pages := []struct{ host, origin string }{
		{site.Host, strings.TrimRight(mm.URL, "/")},
		{"localhost:" + port, "http://localhost:" + port},
	}
	for _, p := range pages {
		code, _, body := namingHost(t, http.MethodPost, mcpURL(mm.URL), p.host, person.Token, initializeAs(legacyVersion),
			map[string]string{"Origin": p.origin, "Sec-Fetch-Site": "same-origin"})
		if code != http.StatusOK {
			t.Fatalf("initialize from the page %s naming %s: %d %s", p.origin, p.host, code, body)
		}
		if code, _, body := namingHost(t, http.MethodGet, files, p.host, person.Token, "", map[string]string{"Origin": p.origin}); code != http.StatusOK {
			t.Fatalf("the workspace API from the page %s: %d %s", p.origin, code, body)
		}
	}
	// A page of another program on this machine is still another origin.
	code, _, body = namingHost(t, http.MethodPost, mcpURL(mm.URL), "localhost:"+port, person.Token, initializeAs(legacyVersion),
		map[string]string{"Origin": "http://localhost:1", "Sec-Fetch-Site": "same-site"})
	if code != http.StatusForbidden || !strings.Contains(body, "Allowed origins for browser-based MCP clients") {
		t.Fatalf("a page of another port: %d %s", code, body)
	}
}
