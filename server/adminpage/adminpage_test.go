package adminpage

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

type quiet struct{}

func (quiet) Error(string, ...any) {}

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func router(t *testing.T, oauth mattermost.OAuthStatus) *mux.Router {
	t.Helper()
	kv := kvtest.New()
	trail := audit.NewStore(kv)
	if _, err := trail.Append(audit.Day(now), []audit.Event{
		{At: now, Kind: audit.KindWrite, UserID: "alice", Outcome: audit.OutcomeAsked},
		{At: now, Kind: audit.KindWrite, UserID: "alice", Outcome: audit.OutcomeAccepted},
		{At: now, Kind: audit.KindOwnView, UserID: "alice", Outcome: audit.OutcomeDone},
	}); err != nil {
		t.Fatal(err)
	}
	usage := &audit.Usage{KV: kv}
	tr := audit.NewTrail(audit.Options{Store: trail, Usage: usage, Log: nopLog{}, Now: func() time.Time { return now }})
	tr.Used("alice", "claude-code")
	tr.Used("bob", "<script>cursor</script>")
	_ = tr.Close()
	r := mux.NewRouter()
	(&Routes{IsAdmin: func(id string) bool { return id == "admin" }, OAuth: func() mattermost.OAuthStatus { return oauth },
		Trail: trail, Usage: usage, Retention: func() int { return 90 }, PluginURL: func() string { return "https://mm.example.com/plugins/mcp-server" },
		Log: quiet{}, Now: func() time.Time { return now }}).Register(r)
	return r
}

type nopLog struct{}

func (nopLog) Info(string, ...any)  {}
func (nopLog) Warn(string, ...any)  {}
func (nopLog) Error(string, ...any) {}

func get(r http.Handler, as, url string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, url, nil)
	if as != "" {
		req.Header.Set("Mattermost-User-Id", as)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

func TestOnlyASystemAdminSeesTheStatus(t *testing.T) {
	r := router(t, mattermost.OAuthStatus{OK: true})
	for _, path := range []string{Path, StatusPath} {
		if w := get(r, "alice", path); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "system admin") {
			t.Errorf("%s as a person: %d %s", path, w.Code, w.Body)
		}
		if w := get(r, "", path); w.Code != http.StatusUnauthorized {
			t.Errorf("%s signed out: %d", path, w.Code)
		}
	}
}

func TestTheStatusCountsPeopleClientsAndWritesByOutcome(t *testing.T) {
	r := router(t, mattermost.OAuthStatus{OK: true, SiteURL: "https://mm.example.com", Provider: true, DynamicRegistration: true})
	w := get(r, "admin", StatusPath)
	var s Status
	if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if s.Usage.People != 2 || len(s.Usage.Clients) != 2 || s.MCPURL != "https://mm.example.com/plugins/mcp-server/mcp" {
		t.Fatalf("status %+v", s)
	}
	if len(s.Writes) != 7 || s.Writes[0].Day != "20260310" || s.Writes[0].Outcomes["asked"] != 1 || s.Writes[0].Outcomes["accepted"] != 1 || s.Writes[0].Outcomes["done"] != 0 {
		t.Fatalf("writes %+v", s.Writes)
	}
	if w := get(r, "admin", StatusPath+"?days=30"); !strings.Contains(w.Body.String(), "20260209") {
		t.Fatal("days=30 does not reach back a month")
	}
}

func TestThePageSaysWhatToTurnOnWhenOAuthCannotSignClientsIn(t *testing.T) {
	r := router(t, mattermost.OAuthStatus{OK: false, Reason: "Dynamic Client Registration is off", SiteURL: "https://mm.example.com", Provider: true})
	w := get(r, "admin", Path)
	body := w.Body.String()
	for _, want := range []string{`data-ok="false"`, "Dynamic Client Registration is off", "Enable Dynamic Client Registration", "personal access token",
		`id="people-count">2<`, "claude-code", "&lt;script&gt;cursor&lt;/script&gt;", `data-outcome="asked">1 asked`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}
