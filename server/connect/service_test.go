package connect

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const alice = "aliceid"

type fakeMM struct {
	sessions      map[string]mattermost.SessionInfo
	revoked       []string
	revokedTokens []string
	noTokens      string
	made          int
}

func (f *fakeMM) SessionInfo(id string) (mattermost.SessionInfo, error) {
	s, ok := f.sessions[id]
	if !ok {
		return mattermost.SessionInfo{}, mattermost.ErrNotFound
	}
	return s, nil
}
func (f *fakeMM) RevokeSession(id string) error               { f.revoked = append(f.revoked, id); return nil }
func (f *fakeMM) MayCreateAccessTokens(string) (bool, string) { return f.noTokens == "", f.noTokens }
func (f *fakeMM) CreateAccessToken(userID, desc string) (mattermost.AccessToken, error) {
	f.made++
	id := "tok" + strings.Repeat("x", f.made)
	return mattermost.AccessToken{ID: id, Token: "secret-" + id}, nil
}
func (f *fakeMM) RevokeAccessToken(id string) error {
	f.revokedTokens = append(f.revokedTokens, id)
	return nil
}

type fakeSessions struct {
	recs    []transport.SessionRecord
	signIns []transport.SignIn
}

func (f *fakeSessions) PersonSignIns(string) ([]transport.SignIn, error) { return f.signIns, nil }
func (f *fakeSessions) ForgetSignIns(_ string, mm []string) error {
	f.signIns = slices.DeleteFunc(f.signIns, func(s transport.SignIn) bool { return slices.Contains(mm, s.MattermostSessionID) })
	return nil
}

func (f *fakeSessions) PersonSessions(userID string) ([]transport.SessionRecord, error) {
	var out []transport.SessionRecord
	for _, r := range f.recs {
		if r.UserID == userID {
			out = append(out, r)
		}
	}
	return out, nil
}
func (f *fakeSessions) EndSessions(userID string, ids []string) error {
	f.recs = slices.DeleteFunc(f.recs, func(r transport.SessionRecord) bool { return r.UserID == userID && slices.Contains(ids, r.ID) })
	return nil
}

type recorder struct{ events []audit.Event }

func (r *recorder) Record(e audit.Event) { r.events = append(r.events, e) }

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func rec(id, mmSession, name string, ago time.Duration) transport.SessionRecord {
	return transport.SessionRecord{ID: id, UserID: alice, ClientName: name, ClientVersion: "1.0", SeenAt: t0.Add(-ago), MattermostSessionID: mmSession}
}

func newTestService(t *testing.T, recs ...transport.SessionRecord) (*Service, *fakeMM, *fakeSessions, *recorder) {
	t.Helper()
	mm := &fakeMM{sessions: map[string]mattermost.SessionInfo{
		"oauthsess": {ID: "oauthsess", UserID: alice, SignIn: mattermost.SignInOAuth, OAuthAppID: "app1", OAuthApp: "Claude"},
		"patsess":   {ID: "patsess", UserID: alice, SignIn: mattermost.SignInToken, TokenID: "othertoken"},
		"websess":   {ID: "websess", UserID: alice, SignIn: mattermost.SignInSession},
	}}
	ss := &fakeSessions{recs: recs}
	r := &recorder{}
	s := New(Options{MM: mm, Sessions: ss, KV: kvtest.New(), Audit: r,
		MCPURL: func() string { return testURL }, OAuth: func() (bool, string) { return false, "no DCR" }, Now: func() time.Time { return t0 },
		ListSize: fakeListSize})
	return s, mm, ss, r
}

func TestClientsAreOnePerSignInNamedByTheirMostRecentSession(t *testing.T) {
	s, _, _, _ := newTestService(t,
		rec("s1", "oauthsess", "claude-code", time.Minute),
		rec("s2", "oauthsess", "claude-code", time.Hour),
		rec("s3", "patsess", "cursor", 2*time.Minute),
		rec("s4", "patsess", "vscode", 3*time.Minute),
		rec("s5", "gone", "old-client", 0),
	)
	clients, more, err := s.Clients(alice)
	if err != nil || more != 0 || len(clients) != 2 {
		t.Fatalf("%d clients (%d more), %v: %+v", len(clients), more, err, clients)
	}
	c := clients[0]
	if c.Name != "claude-code" || c.Sessions != 2 || c.SignIn != mattermost.SignInOAuth || c.OAuthAppID != "app1" || !strings.Contains(c.SignInText, `"Claude"`) || !c.LastUsed.Equal(t0.Add(-time.Minute)) {
		t.Errorf("the OAuth client: %+v", c)
	}
	if c := clients[1]; c.Name != "cursor" || !slices.Equal(c.OtherNames, []string{"vscode"}) || c.TokenMadeHere || c.SignIn != mattermost.SignInToken {
		t.Errorf("the token client: %+v", c)
	}
}

func TestDisconnectingATokenMadeHereRevokesTheTokenAndEndsOnlyItsSessions(t *testing.T) {
	s, mm, ss, r := newTestService(t, rec("s9", "websess", "other", 0))
	tok, err := s.MakeToken(alice)
	if err != nil || tok.Token == "" || !strings.Contains(tok.Setup.ClaudeCode, tok.Token) || !strings.HasPrefix(tok.Description, "MCP") {
		t.Fatalf("token %+v, %v", tok, err)
	}
	mm.sessions["madesess"] = mattermost.SessionInfo{ID: "madesess", UserID: alice, SignIn: mattermost.SignInToken, TokenID: tok.ID}
	ss.recs = append(ss.recs, rec("s1", "madesess", "claude-code", 0), rec("s2", "madesess", "claude-code", time.Second))

	clients, _, _ := s.Clients(alice)
	i := slices.IndexFunc(clients, func(c Client) bool { return c.Name == "claude-code" })
	if i < 0 || !clients[i].TokenMadeHere {
		t.Fatalf("the token made here is not told: %+v", clients)
	}
	d, err := s.Disconnect(alice, "personsess", clients[i].ID)
	if err != nil || d.Ended != 2 || d.Revoked != "personal_access_token" || d.OAuthAppID != "" {
		t.Fatalf("%+v %v", d, err)
	}
	if !slices.Equal(mm.revokedTokens, []string{tok.ID}) || len(mm.revoked) != 0 {
		t.Errorf("revoked tokens %v sessions %v", mm.revokedTokens, mm.revoked)
	}
	if len(ss.recs) != 1 || ss.recs[0].ID != "s9" {
		t.Errorf("sessions left: %+v", ss.recs)
	}
	kinds := []string{}
	for _, e := range r.events {
		kinds = append(kinds, e.Reason)
		if e.Kind != audit.KindConnection || e.UserID != alice {
			t.Errorf("event %+v", e)
		}
	}
	if !slices.Equal(kinds, []string{"token_created", "disconnected"}) || r.events[1].ClientName != "claude-code" || r.events[1].Targets["token_id"] != tok.ID {
		t.Errorf("audit %+v", r.events)
	}
	if _, err := s.Disconnect(alice, "personsess", clients[i].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a second disconnect: %v", err)
	}
}

func TestDisconnectingAnOAuthClientRevokesItsSessionAndNamesTheAppToDeauthorize(t *testing.T) {
	s, mm, _, _ := newTestService(t, rec("s1", "oauthsess", "claude-code", 0))
	clients, _, _ := s.Clients(alice)
	d, err := s.Disconnect(alice, "personsess", clients[0].ID)
	if err != nil || d.OAuthAppID != "app1" || !slices.Equal(mm.revoked, []string{"oauthsess"}) {
		t.Fatalf("%+v %v revoked %v", d, err, mm.revoked)
	}
}

func TestDisconnectingAClientOfAnotherTokenSaysTheTokenStaysValid(t *testing.T) {
	s, mm, _, _ := newTestService(t, rec("s1", "patsess", "cursor", 0))
	clients, _, _ := s.Clients(alice)
	d, err := s.Disconnect(alice, "personsess", clients[0].ID)
	if err != nil || !strings.Contains(d.Note, "stays valid") || len(mm.revokedTokens) != 0 || !slices.Equal(mm.revoked, []string{"patsess"}) {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestThePersonsOwnSessionIsNeverRevoked(t *testing.T) {
	s, mm, _, _ := newTestService(t, rec("s1", "websess", "curl", 0))
	clients, _, _ := s.Clients(alice)
	if _, err := s.Disconnect(alice, "websess", clients[0].ID); err != nil || len(mm.revoked) != 0 {
		t.Fatalf("%v revoked %v", err, mm.revoked)
	}
}

func TestATokenIsRefusedWithTheReasonWhenThePersonMayNotMakeTokens(t *testing.T) {
	s, mm, _, _ := newTestService(t)
	mm.noTokens = "Personal access tokens are turned off."
	_, err := s.MakeToken(alice)
	var no *ErrNoTokens
	if !errors.As(err, &no) || no.Reason != mm.noTokens || mm.made != 0 {
		t.Fatalf("%v (made %d)", err, mm.made)
	}
}

func TestTheTokensMadeHereThatAreRememberedAreBounded(t *testing.T) {
	s, _, _, _ := newTestService(t)
	for range MaxTokensRemembered + 3 {
		if _, err := s.MakeToken(alice); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.tokens.list(alice)
	if err != nil || len(list) != MaxTokensRemembered || list[0].ID != "tok"+strings.Repeat("x", 4) {
		t.Fatalf("%d remembered, first %+v, %v", len(list), list[0], err)
	}
}

func TestClientsListedAreBounded(t *testing.T) {
	s, mm, ss, _ := newTestService(t)
	for i := range MaxClientsListed + 7 {
		id := "sess" + strings.Repeat("y", i+1)
		mm.sessions[id] = mattermost.SessionInfo{ID: id, UserID: alice, SignIn: mattermost.SignInSession}
		ss.recs = append(ss.recs, rec("s"+id, id, "bot", time.Duration(i)*time.Second))
	}
	clients, more, err := s.Clients(alice)
	if err != nil || len(clients) != MaxClientsListed || more != 7 {
		t.Fatalf("%d listed, %d more, %v", len(clients), more, err)
	}
}

func serveRoutes(s *Service, person func(*http.Request) (string, error), method, path string) *httptest.ResponseRecorder {
	r := mux.NewRouter()
	(&Routes{Service: s, Person: person, Log: nopLog{}}).Register(r)
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("Mattermost-User-Id", alice)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

type nopLog struct{}

func (nopLog) Error(string, ...any) {}

func TestATokenIsMadeOnlyFromThePersonsOwnSession(t *testing.T) {
	s, mm, _, _ := newTestService(t)
	refuse := func(*http.Request) (string, error) { return "", ErrNotThePerson }
	w := serveRoutes(s, refuse, http.MethodPost, APIPath+"/token")
	if w.Code != http.StatusForbidden || mm.made != 0 || !strings.Contains(w.Body.String(), "web or desktop app") {
		t.Fatalf("%d %s (made %d)", w.Code, w.Body, mm.made)
	}
	w = serveRoutes(s, func(*http.Request) (string, error) { return "websess", nil }, http.MethodPost, APIPath+"/token")
	var tok Token
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &tok) != nil || tok.Token == "" || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestDisconnectIsRefusedFromAnythingButThePersonsOwnSession(t *testing.T) {
	s, mm, ss, _ := newTestService(t, rec("s1", "oauthsess", "claude-code", 0))
	clients, _, _ := s.Clients(alice)
	w := serveRoutes(s, func(*http.Request) (string, error) { return "", ErrNotThePerson }, http.MethodPost, APIPath+"/clients/"+clients[0].ID+"/disconnect")
	if w.Code != http.StatusForbidden || len(ss.recs) != 1 || len(mm.revoked) != 0 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w = serveRoutes(s, func(*http.Request) (string, error) { return "websess", nil }, http.MethodPost, APIPath+"/clients/"+clients[0].ID+"/disconnect")
	if w.Code != http.StatusOK || len(ss.recs) != 0 || !strings.Contains(w.Body.String(), `"oauth_app_id":"app1"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

func TestTheOverviewTellsTheURLSignInAndClients(t *testing.T) {
	s, _, _, _ := newTestService(t, rec("s1", "oauthsess", "claude-code", 0))
	w := serveRoutes(s, nil, http.MethodGet, APIPath)
	var o Overview
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &o) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if o.URL != testURL || o.OAuth || o.OAuthReason != "no DCR" || !o.CanCreateToken || len(o.Clients) != 1 || !strings.Contains(o.Setup.ClaudeCode, testURL) {
		t.Errorf("%+v", o)
	}
}

func TestTheSlashCommandCarriesTheURLAndTheSetup(t *testing.T) {
	s, _, _, _ := newTestService(t, rec("s1", "oauthsess", "claude-code", 0))
	res := s.Execute(alice, "/mcp")
	if res.ResponseType != "ephemeral" || !strings.Contains(res.Text, testURL) || !strings.Contains(res.Text, "claude mcp add --transport http mattermost") ||
		!strings.Contains(res.Text, `"servers"`) || !strings.Contains(res.Text, "Personal Access Tokens") {
		t.Errorf("%+v", res)
	}
	if res := s.Execute(alice, "/mcp clients"); !strings.Contains(res.Text, "```\nclaude-code 1.0\n  last used 2026-12-01 12:00:00 UTC, signed in with OAuth, as the app \"Claude\"\n```\n") {
		t.Errorf("clients: %s", res.Text)
	}
	if res := s.Execute(alice, "/mcp frobnicate"); !strings.Contains(res.Text, "not a subcommand") || !strings.Contains(res.Text, "/mcp clients") {
		t.Errorf("unknown: %s", res.Text)
	}
}

func TestAStatelessClientIsListedByItsSignInAndDisconnectingItRevokesTheSessionAndForgetsIt(t *testing.T) {
	s, mm, ss, _ := newTestService(t, rec("s1", "websess", "older", time.Hour))
	ss.signIns = []transport.SignIn{{MattermostSessionID: "oauthsess", ClientName: "modern", ClientVersion: "9", SeenAt: t0}}
	clients, _, err := s.Clients(alice)
	if err != nil || len(clients) != 2 || clients[0].Name != "modern" || clients[0].Sessions != 0 || clients[0].SignIn != mattermost.SignInOAuth {
		t.Fatalf("%+v %v", clients, err)
	}
	d, err := s.Disconnect(alice, "personsess", clients[0].ID)
	if err != nil || d.Ended != 0 || d.OAuthAppID != "app1" || !slices.Equal(mm.revoked, []string{"oauthsess"}) || len(ss.signIns) != 0 {
		t.Fatalf("%+v %v revoked %v left %+v", d, err, mm.revoked, ss.signIns)
	}
}
