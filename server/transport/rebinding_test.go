package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// siteNode is a node whose site URL is site, with the MCP endpoint and a
// route that authenticates as the workspace API does.
func siteNode(t *testing.T, kv *memKV, site string) *httptest.Server {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return site },
		UserActive: func(id string) (bool, error) { return id == "alice", nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
	})
	return serveWithFiles(t, tr)
}

// asSent sends a signed-in request naming host in its Host header with the
// given extra headers, as a browser or a program would.
func asSent(t *testing.T, method, url, host string, headers map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mattermost-User-Id", "alice")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sameOriginGET is what a browser sends with a page's same-origin request
// that carries no Origin (a GET); rebindingPost what it sends with a POST
// of a page at evil.example.com rebound to this server.
var (
	sameOriginGET = map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
	rebindingPost = map[string]string{"Origin": "http://evil.example.com", "Sec-Fetch-Site": "same-origin"}
)

func TestABrowsersRequestNamingAnotherHostIsRefusedWith403InOneLineNamingTheFix(t *testing.T) {
	kv := newMemKV()
	srv := siteNode(t, kv, "https://chat.example.com/mattermost")
	for _, host := range []string{"evil.example.com", "evil.example.com:8065", "chat.example.com.evil.example.com"} {
		for _, headers := range []map[string]string{sameOriginGET, rebindingPost} {
			resp := asSent(t, http.MethodPost, srv.URL+MCPPath, host, headers, initialize)
			text := body(t, resp)
			code, msg := rpcError(t, text)
			if resp.StatusCode != http.StatusForbidden || code != -32600 || strings.Contains(msg, "\n") ||
				!strings.Contains(msg, host) || !strings.Contains(msg, "https://chat.example.com") || !strings.Contains(msg, "proxy_set_header Host $host") {
				t.Fatalf("Host %s with %v: %d %s", host, headers, resp.StatusCode, text)
			}
			resp = asSent(t, http.MethodGet, srv.URL+"/api/v1/files", host, headers, "")
			if text := body(t, resp); resp.StatusCode != http.StatusForbidden || strings.Count(strings.TrimSpace(text), "\n") != 0 {
				t.Fatalf("the workspace API with Host %s: %d %s", host, resp.StatusCode, text)
			}
		}
	}
	if n := len(kv.sessionsOf("alice")); n != 0 {
		t.Fatalf("a refused initialize stored %d sessions", n)
	}
}

func TestABrowsersRequestNamingTheSitesHostAnAddressOrLocalhostIsServed(t *testing.T) {
	srv := siteNode(t, newMemKV(), "https://chat.example.com:8443/mattermost")
	for _, host := range []string{"chat.example.com", "chat.example.com:8443", "CHAT.Example.com.", "10.1.2.3:8065", "[::1]:8065", "[fd00::5]", "localhost:8065"} {
		resp := asSent(t, http.MethodPost, srv.URL+MCPPath, host, sameOriginGET, initialize)
		if text := body(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("Host %s: %d %s", host, resp.StatusCode, text)
		}
		if resp := asSent(t, http.MethodGet, srv.URL+"/api/v1/files", host, sameOriginGET, ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("the workspace API with Host %s: %d", host, resp.StatusCode)
		}
	}
}

func TestAProgramsRequestIsServedWhateverHostItNames(t *testing.T) {
	srv := siteNode(t, newMemKV(), "https://chat.example.com")
	// An agent inside the cluster calling the service's internal name, or a
	// proxy that rewrote Host to its upstream's name: no browser headers.
	for _, host := range []string{"mattermost.chat.svc.cluster.local:8065", "backend"} {
		resp := asSent(t, http.MethodPost, srv.URL+MCPPath, host, nil, initialize)
		if text := body(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("Host %s: %d %s", host, resp.StatusCode, text)
		}
	}
}

func TestWithoutASiteURLTheHostIsNotChecked(t *testing.T) {
	srv := siteNode(t, newMemKV(), "")
	resp := asSent(t, http.MethodPost, srv.URL+MCPPath, "chat.example.com", sameOriginGET, initialize)
	if text := body(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, text)
	}
}

func TestAPageAtTheLoopbackAddressTheRequestCameToIsServedAndAnyOtherPortOrNameIsNot(t *testing.T) {
	srv := siteNode(t, newMemKV(), "https://chat.example.com")
	own := strings.TrimPrefix(srv.URL, "http://") // 127.0.0.1:PORT
	served := []struct{ host, origin string }{
		{own, "http://" + own},
		{"localhost:8065", "http://localhost:8065"},
		{"[::1]:8065", "http://[::1]:8065"},
	}
	for _, c := range served {
		resp := asSent(t, http.MethodPost, srv.URL+MCPPath, c.host, map[string]string{"Origin": c.origin}, initialize)
		if text := body(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("Host %s, Origin %s: %d %s", c.host, c.origin, resp.StatusCode, text)
		}
	}
	refused := []struct{ host, origin string }{
		{own, "http://127.0.0.1:1"},         // another program on this machine
		{own, "http://localhost:1"},         // the same, by name
		{"localhost:8065", "http://" + own}, // another address than the request's
		{"10.1.2.3:8065", "http://10.1.2.3:8065"},
	}
	for _, c := range refused {
		resp := asSent(t, http.MethodPost, srv.URL+MCPPath, c.host, map[string]string{"Origin": c.origin}, initialize)
		if text := body(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(text, "Allowed origins for browser-based MCP clients") {
			t.Fatalf("Host %s, Origin %s: %d %s", c.host, c.origin, resp.StatusCode, text)
		}
	}
}
