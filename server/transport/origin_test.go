package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// originNode is a node of site https://chat.example.com whose admin lists
// the origins in *listed* (read on every request), with the MCP endpoint
// and a route that authenticates as the workspace API does.
func originNode(t *testing.T, kv *memKV, listed *atomic.Value) *httptest.Server {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL: func() string { return "https://chat.example.com/mattermost" },
		AllowsOrigin: func(origin string) bool {
			c := config.Defaults()
			c.AllowedOrigins, _ = listed.Load().(string)
			return c.AllowsOrigin(origin)
		},
		UserActive: func(id string) (bool, error) { return id == "alice", nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
	})
	return serveWithFiles(t, tr)
}

func withOrigin(t *testing.T, method, url, origin, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mattermost-User-Id", "alice")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestARequestFromAWebPageOfAnotherOriginIsRefusedWith403InOneLine(t *testing.T) {
	kv := newMemKV()
	srv := originNode(t, kv, &atomic.Value{})
	for _, origin := range []string{"https://evil.example", "null", "http://chat.example.com", "https://chat.example.com.evil.example"} {
		resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, origin, initialize)
		text := body(t, resp)
		code, msg := rpcError(t, text)
		if resp.StatusCode != http.StatusForbidden || code != -32600 || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "https://chat.example.com and the origins") || !strings.Contains(msg, "Allowed origins for browser-based MCP clients") {
			t.Fatalf("Origin %s: %d %s", origin, resp.StatusCode, text)
		}
		resp = withOrigin(t, http.MethodGet, srv.URL+"/api/v1/files", origin, "")
		if text := body(t, resp); resp.StatusCode != http.StatusForbidden || strings.Count(strings.TrimSpace(text), "\n") != 0 {
			t.Fatalf("the workspace API from %s: %d %s", origin, resp.StatusCode, text)
		}
	}
	if n := len(kv.sessionsOf("alice")); n != 0 {
		t.Fatalf("a refused initialize stored %d sessions", n)
	}
}

func TestRequestsWithoutOriginOrFromTheSitesOwnAreServed(t *testing.T) {
	kv := newMemKV()
	srv := originNode(t, kv, &atomic.Value{})
	for _, origin := range []string{"", "https://chat.example.com", "https://CHAT.example.com:443"} {
		resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, origin, initialize)
		if text := body(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("Origin %q: %d %s", origin, resp.StatusCode, text)
		}
		if resp := withOrigin(t, http.MethodGet, srv.URL+"/api/v1/files", origin, ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("the workspace API from %q: %d", origin, resp.StatusCode)
		}
	}
}

func TestANullOriginIsServedOnlyWhenTheBrowserSaysTheRequestIsSameOrigin(t *testing.T) {
	srv := originNode(t, newMemKV(), &atomic.Value{})
	for site, want := range map[string]int{"same-origin": http.StatusOK, "cross-site": http.StatusForbidden, "same-site": http.StatusForbidden, "": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/files", nil)
		req.Header.Set("Mattermost-User-Id", "alice")
		req.Header.Set("Origin", "null")
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		req.Host = "chat.example.com"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if text := body(t, resp); resp.StatusCode != want {
			t.Errorf("Origin null, Sec-Fetch-Site %q: %d %s, want %d", site, resp.StatusCode, text, want)
		}
	}
}

func TestAnOriginTheAdminListsIsServedFromTheNextRequestOn(t *testing.T) {
	kv := newMemKV()
	listed := &atomic.Value{}
	srv := originNode(t, kv, listed)
	const inspector = "http://localhost:6274"
	if resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, inspector, initialize); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("before the admin lists it: %d %s", resp.StatusCode, body(t, resp))
	}
	listed.Store("https://other.example.com " + inspector)
	if resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, inspector, initialize); resp.StatusCode != http.StatusOK {
		t.Fatalf("once the admin lists it: %d %s", resp.StatusCode, body(t, resp))
	}
	listed.Store("")
	if resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, inspector, initialize); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("once the admin removed it: %d %s", resp.StatusCode, body(t, resp))
	}
}

// serveWithFiles serves tr's MCP endpoint and, as the side channel's routes
// do, a route that answers only once Authenticate let the request in, both
// behind CheckOrigins as the plugin's router serves every route.
func serveWithFiles(t *testing.T, tr *Transport) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	mux.HandleFunc("/api/v1/files", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := tr.Authenticate(w, r); ok {
			_, _ = w.Write([]byte("files"))
		}
	})
	srv := httptest.NewServer(tr.CheckOrigins(mux))
	t.Cleanup(srv.Close)
	return srv
}

func TestEveryMCPAnswerToAListedOriginCarriesTheCORSHeadersAlsoWithoutABody(t *testing.T) {
	listed := &atomic.Value{}
	listed.Store("http://127.0.0.1:5173")
	srv := originNode(t, newMemKV(), listed)
	for _, origin := range []string{"http://127.0.0.1:5173", "", "https://evil.example"} {
		want := origin
		if origin == "https://evil.example" {
			want = ""
		}
		check := func(what string, resp *http.Response, status int) {
			t.Helper()
			text := body(t, resp)
			h := resp.Header
			if origin != "https://evil.example" && resp.StatusCode != status {
				t.Fatalf("%s from %q: %d %s", what, origin, resp.StatusCode, text)
			}
			if h.Get("Access-Control-Allow-Origin") != want || want != "" && (!strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") ||
				!strings.Contains(h.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") || h.Get("Vary") != "Origin") {
				t.Errorf("%s from %q: %d %v", what, origin, resp.StatusCode, h)
			}
		}
		resp := withOrigin(t, http.MethodPost, srv.URL+MCPPath, origin, initialize)
		session := resp.Header.Get("Mcp-Session-Id")
		check("initialize", resp, http.StatusOK)
		send := func(method, payload string) *http.Response {
			req, _ := http.NewRequest(method, srv.URL+MCPPath, strings.NewReader(payload))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mattermost-User-Id", "alice")
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		check("notifications/initialized", send(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)
		check("DELETE", send(http.MethodDelete, ""), http.StatusOK)
	}
}

func TestTheCORSHeadersReplaceMattermostsOwnAndKeepWhatItExposes(t *testing.T) {
	listed := &atomic.Value{}
	listed.Store("http://127.0.0.1:5173")
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL: func() string { return "https://chat.example.com" },
		AllowsOrigin: func(origin string) bool {
			c := config.Defaults()
			c.AllowedOrigins, _ = listed.Load().(string)
			return c.AllowsOrigin(origin)
		},
		UserActive: func(id string) (bool, error) { return id == "alice", nil }, KV: newMemKV(), Answers: rawKV{newMemKV()}, Log: &memLog{},
	})
	// The writer Mattermost's plugin bridge hands the plugin when its own
	// CORS setting lists the origin: its headers are already set.
	w := httptest.NewRecorder()
	w.Header().Set("Access-Control-Allow-Origin", "http://127.0.0.1:5173")
	w.Header().Add("Vary", "Origin")
	w.Header().Set("Access-Control-Expose-Headers", "X-Request-Id")
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Origin", "http://127.0.0.1:5173")
	tr.CheckOrigins(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })).ServeHTTP(w, req)
	h := w.Result().Header
	exposed := h.Get("Access-Control-Expose-Headers")
	if len(h.Values("Access-Control-Allow-Origin")) != 1 || len(h.Values("Vary")) != 1 || len(h.Values("Access-Control-Expose-Headers")) != 1 ||
		!strings.Contains(exposed, "X-Request-Id") || !strings.Contains(exposed, "Mcp-Session-Id") {
		t.Fatalf("the headers: %v", h)
	}
}
