package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"

	"github.com/mcp-server/mattermost-plugin-mcp/server/adminpage"
	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

type quietLog struct{}

func (quietLog) Debug(string, ...any) {}
func (quietLog) Info(string, ...any)  {}
func (quietLog) Warn(string, ...any)  {}
func (quietLog) Error(string, ...any) {}

// testPluginID stands for the manifest's id, which is written only in
// plugin.json: no route depends on it.
const testPluginID = "plugin-under-test"

// everyRoute is the plugin's router as OnActivate builds it, at the site
// https://chat.example.com whose admin lists https://listed.example, over
// no store: a handler that is reached panics or answers from nothing.
func everyRoute(t *testing.T) *mux.Router {
	t.Helper()
	gw := mattermost.NewGateway(&plugintest.API{}, nil)
	tr := transport.New(transport.Options{PluginID: testPluginID, Version: "test", Instructions: "test",
		SiteURL:      func() string { return "https://chat.example.com" },
		AllowsOrigin: func(origin string) bool { return origin == "https://listed.example" },
		Answers:      kvtest.New(), Log: quietLog{}})
	r := routes(testPluginID, gw, tr, nil, nil, nil, nil, nil, nil, nil)
	(&auditing{}).register(r, gw, testPluginID, func() int { return 30 }, tr.LimitRequest)
	return r
}

// routeRequest is one request for each method of each route of r, its
// variables filled with a value their pattern takes.
type routeRequest struct{ method, path string }

func routeRequests(t *testing.T, r *mux.Router) []routeRequest {
	t.Helper()
	var out []routeRequest
	err := r.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if template, _ := route.GetPathTemplate(); strings.HasPrefix(template, filerequest.DropPath+"/") {
			return nil // the drop URL's own rule: TestTheDropURLAnswersAnyOriginWithoutCredentialsAndRefusesOneThatCarriesThem
		}
		if methods, _ := route.GetMethods(); slices.Equal(methods, []string{http.MethodOptions}) {
			return nil // the preflights' route, on every path
		}
		template, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		names, err := route.GetVarNames()
		if err != nil {
			return err
		}
		path, err := fillVars(route, names, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", template, err)
		}
		methods, err := route.GetMethods()
		if err != nil {
			methods = []string{http.MethodGet} // a route for every method
		}
		for _, m := range methods {
			out = append(out, routeRequest{m, path})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fillVars is the route's path with names given values their patterns take.
func fillVars(route *mux.Route, names, pairs []string) (string, error) {
	if len(names) == 0 {
		u, err := route.URLPath(pairs...)
		if err != nil {
			return "", err
		}
		return u.Path, nil
	}
	for _, v := range []string{"0a1b2c", "1", "accept", strings.Repeat("0a", 16)} {
		if path, err := fillVars(route, names[1:], append(slices.Clone(pairs), names[0], v)); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no value for {%s}", names[0])
}

// serveOnce serves req and reports whether a handler was reached: it
// panicked (its store is nil) or answered anything but the Origin refusal.
func serveOnce(r http.Handler, req *http.Request) (w *httptest.ResponseRecorder, reached bool) {
	w = httptest.NewRecorder()
	defer func() {
		if recover() != nil {
			reached = true
		}
	}()
	r.ServeHTTP(w, req)
	return w, w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "Allowed origins for browser-based MCP clients")
}

func TestEveryRouteRefusesAPageOfAnotherOriginWith403InOneLineAndServesTheSitesOwnAListedOneAndNone(t *testing.T) {
	r := everyRoute(t)
	reqs := routeRequests(t, r)
	var paths []string
	for _, rr := range reqs {
		paths = append(paths, rr.path)
	}
	// The walk sees the routes the issue names, so it is no empty check.
	for _, want := range []string{transport.MCPPath, transport.MetadataPath, connect.APIPath, audit.MinePath, audit.APIPath,
		approval.APIPath + "/0a1b2c/accept", approval.Path + "/0a1b2c", adminpage.Path, workspace.APIPath} {
		if !slices.Contains(paths, want) {
			t.Fatalf("the walk did not see %s among %v", want, paths)
		}
	}
	for _, rr := range reqs {
		for _, origin := range []string{"https://evil.example", "null", "http://chat.example.com", "https://chat.example.com.evil.example"} {
			req := httptest.NewRequest(rr.method, rr.path, nil)
			req.Host = "chat.example.com"
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			req.Header.Set("Mattermost-User-Id", "alice")
			w, reached := serveOnce(r, req)
			if reached || strings.Count(strings.TrimSpace(w.Body.String()), "\n") != 0 {
				t.Errorf("%s %s from %s reached its handler: %d %.300s", rr.method, rr.path, origin, w.Code, w.Body)
			}
		}
		// "null" with Sec-Fetch-Site same-origin: the confirmation page's
		// own form post (its referrer policy hides its origin).
		for _, origin := range []string{"", "https://chat.example.com", "https://listed.example", "null"} {
			req := httptest.NewRequest(rr.method, rr.path, nil)
			req.Host = "chat.example.com"
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			if w, reached := serveOnce(r, req); !reached {
				t.Errorf("%s %s from %q was refused: %d %s", rr.method, rr.path, origin, w.Code, w.Body)
			}
		}
	}
}

func TestEveryRouteAnswersAPreflightFromAListedOriginWithItsMethodsAndRefusesOneFromAnotherOrigin(t *testing.T) {
	r := everyRoute(t)
	for _, rr := range routeRequests(t, r) {
		preflight := func(origin string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodOptions, rr.path, nil)
			req.Host = "chat.example.com"
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", rr.method)
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-session-id")
			w, _ := serveOnce(r, req)
			return w
		}
		w := preflight("https://listed.example")
		h := w.Header()
		if w.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "https://listed.example" ||
			!slices.Contains(strings.Split(h.Get("Access-Control-Allow-Methods"), ", "), rr.method) ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
			h.Get("Access-Control-Max-Age") == "" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("a preflight of %s %s from a listed origin: %d %v", rr.method, rr.path, w.Code, h)
		}
		w = preflight("https://evil.example")
		if w.Code != http.StatusForbidden || w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("Access-Control-Allow-Methods") != "" {
			t.Errorf("a preflight of %s %s from another origin: %d %v", rr.method, rr.path, w.Code, w.Header())
		}
	}
}

func TestEveryRoutesAnswerToAListedOriginCarriesTheCORSHeadersAndNoOtherAnswerDoes(t *testing.T) {
	r := everyRoute(t)
	for _, rr := range routeRequests(t, r) {
		for origin, want := range map[string]string{"https://listed.example": "https://listed.example", "": "", "https://evil.example": ""} {
			req := httptest.NewRequest(rr.method, rr.path, nil)
			req.Host = "chat.example.com"
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			// The handler panics over no store: the headers were set before it.
			w, _ := serveOnce(r, req)
			h := w.Header()
			if h.Get("Access-Control-Allow-Origin") != want || len(h.Values("Access-Control-Allow-Origin")) > 1 {
				t.Errorf("%s %s from %q: Access-Control-Allow-Origin %q", rr.method, rr.path, origin, h.Values("Access-Control-Allow-Origin"))
			}
			if want != "" && (!strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") || !slices.Contains(h.Values("Vary"), "Origin") ||
				h.Get("Access-Control-Allow-Credentials") != "") {
				t.Errorf("%s %s from %q: %v", rr.method, rr.path, origin, h)
			}
		}
	}
}

func TestTheDropURLAnswersAnyOriginWithoutCredentialsAndRefusesOneThatCarriesThem(t *testing.T) {
	kv := kvtest.New()
	files := &filerequest.Store{KV: kv}
	gw := mattermost.NewGateway(&plugintest.API{}, nil)
	tr := transport.New(transport.Options{PluginID: testPluginID, Version: "test", Instructions: "test",
		SiteURL:      func() string { return "https://chat.example.com" },
		AllowsOrigin: func(origin string) bool { return false },
		Answers:      kvtest.New(), Log: quietLog{}})
	r := routes(testPluginID, gw, tr, nil, nil, nil, files, nil, nil, nil)
	alice := strings.Repeat("a", 26)
	req, err := files.Create(alice, filerequest.Ask{Purpose: "the deck", MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	drop := filerequest.DropURL("", req)
	for _, origin := range []string{"null", "https://sandbox.claude.example", "https://evil.example"} {
		pre := httptest.NewRequest(http.MethodOptions, drop, nil)
		pre.Header.Set("Origin", origin)
		pre.Header.Set("Access-Control-Request-Method", http.MethodPut)
		pre.Header.Set("Access-Control-Request-Headers", "content-type,x-file-name")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, pre)
		h := w.Header()
		if w.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != "PUT, OPTIONS" ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-File-Name") || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("the drop URL's preflight from %s: %d %v", origin, w.Code, h)
		}
	}
	// A request that shows a Mattermost credential, as Mattermost hands it
	// over (the token itself deleted), is refused before the request is
	// even read: the URL is the only credential.
	for name, set := range map[string]func(*http.Request){
		"valid session": func(q *http.Request) { q.Header.Set("Mattermost-User-Id", alice) },
		"user cookie":   func(q *http.Request) { q.AddCookie(&http.Cookie{Name: "MMUSERID", Value: alice}) },
		"CSRF cookie":   func(q *http.Request) { q.AddCookie(&http.Cookie{Name: "MMCSRF", Value: "x"}) },
	} {
		put := httptest.NewRequest(http.MethodPut, drop, strings.NewReader("bytes"))
		put.Header.Set("Origin", "null")
		put.Header.Set("X-File-Name", "deck.pdf")
		set(put)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, put)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `credentials: \"omit\"`) || w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("a PUT with a %s: %d %s %v", name, w.Code, w.Body, w.Header())
		}
	}
	// Another key, or another person's, is not found.
	for _, path := range []string{
		filerequest.DropPath + "/" + alice + "/" + req.ID + "/" + strings.Repeat("0", 64),
		filerequest.DropPath + "/" + strings.Repeat("b", 26) + "/" + req.ID + "/" + req.DropKey,
	} {
		put := httptest.NewRequest(http.MethodPut, path, strings.NewReader("bytes"))
		put.Header.Set("Origin", "https://evil.example")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, put)
		if w.Code != http.StatusNotFound {
			t.Errorf("PUT %s: %d %s, want 404", path, w.Code, w.Body)
		}
	}
}

func TestTheDropURLOfAPersonTheMCPEndpointWouldRefuseRefusesTheFile(t *testing.T) {
	kv := kvtest.New()
	files := &filerequest.Store{KV: kv}
	gw := mattermost.NewGateway(&plugintest.API{}, nil)
	alice, bob := strings.Repeat("a", 26), strings.Repeat("b", 26)
	tr := transport.New(transport.Options{PluginID: testPluginID, Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com" },
		UserActive: func(id string) (bool, error) { return id == bob, nil },
		Admits: func(string) (admission.Verdict, error) {
			return admission.Verdict{Reason: admission.ReasonGuest, Message: "Your Mattermost admin has not enabled MCP for guest accounts."}, nil
		},
		Answers: kvtest.New(), Log: quietLog{}})
	r := routes(testPluginID, gw, tr, nil, nil, nil, files, func(context.Context, filerequest.Request, error) {}, nil, nil)
	for who, want := range map[string]string{alice: "deactivated", bob: "not enabled MCP for guest accounts"} {
		req, err := files.Create(who, filerequest.Ask{Purpose: "the deck", MaxSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		put := httptest.NewRequest(http.MethodPut, filerequest.DropURL("", req), strings.NewReader("bytes"))
		put.Header.Set("Origin", "null")
		put.Header.Set("X-File-Name", "deck.txt")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, put)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), want) || w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("the drop URL of %s: %d %s", who, w.Code, w.Body)
		}
	}
}
