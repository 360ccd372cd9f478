package approval

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestOnlyThePersonsOwnMattermostSessionWithItsCSRFTokenCanAnswer(t *testing.T) {
	refused := map[string]struct{ session, csrf string }{
		"a personal access token, OAuth token or bot": {sessionToken, testCSRF},
		"the MCP client's own session":                {sessionClient, testCSRF},
		"a session Mattermost does not know":          {sessionUnknown, testCSRF},
		"the person's session without the CSRF token": {sessionBrowser, ""},
		"the person's session with another token":     {sessionBrowser, "tok124"},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			f := newRoutes(t)
			rec, err := f.store.Create("alice", "Post", richPlan(t), []string{"client-alice"})
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{APIPath + "/" + rec.ID + "/accept", APIPath + "/" + rec.ID + "/decline", Path + "/" + rec.ID + "/accept", Path + "/" + rec.ID + "/decline"} {
				w := f.doAs(http.MethodPost, path, "alice", c.session, c.csrf)
				if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "signed in to Mattermost") {
					t.Errorf("%s: %d %s", path, w.Code, w.Body)
				}
			}
			got, _ := f.store.Load("alice", rec.ID)
			if got.State != StatePending || f.executed != 0 || len(f.answered) != 0 {
				t.Fatalf("a refused answer changed something: %s, %d executed, told %v", got.State, f.executed, f.answered)
			}
			// Reading stays allowed with any of the person's credentials.
			if w := f.doAs(http.MethodGet, APIPath+"/"+rec.ID, "alice", c.session, ""); w.Code != http.StatusOK {
				t.Fatalf("reading the detail: %d", w.Code)
			}
		})
	}
	t.Run("the person's own session with its CSRF token", func(t *testing.T) {
		f := newRoutes(t)
		rec, _ := f.store.Create("alice", "Post", richPlan(t), []string{"client-alice"})
		if w := f.do(http.MethodPost, APIPath+"/"+rec.ID+"/accept", "alice"); w.Code != http.StatusOK {
			t.Fatalf("accept: %d %s", w.Code, w.Body)
		}
		if got, _ := f.store.Load("alice", rec.ID); got.State != StateDone || f.executed != 1 {
			t.Fatalf("state %s, executed %d", got.State, f.executed)
		}
	})
}

func TestTheAnswerRuleRefusesEveryProgramsSession(t *testing.T) {
	rec := Record{ID: "r", UserID: "alice", ClientSessions: []string{"mcp-init", "mcp-call"}}
	person := mattermost.Session{ID: "web", UserID: "alice", CSRF: "c"}
	cases := []struct {
		name string
		who  Answerer
		want error
	}{
		{"the person", Answerer{person, "c"}, nil},
		{"an integration", Answerer{mattermost.Session{ID: "pat", UserID: "alice", Integration: true, CSRF: "c"}, "c"}, ErrNotThePerson},
		{"the session the client initialised with", Answerer{mattermost.Session{ID: "mcp-init", UserID: "alice", CSRF: "c"}, "c"}, ErrNotThePerson},
		{"the session of the call", Answerer{mattermost.Session{ID: "mcp-call", UserID: "alice", CSRF: "c"}, "c"}, ErrNotThePerson},
		{"an empty CSRF on both sides", Answerer{mattermost.Session{ID: "web", UserID: "alice"}, ""}, ErrNotThePerson},
		{"another user", Answerer{mattermost.Session{ID: "web2", UserID: "bob", CSRF: "c"}, "c"}, ErrNotFound},
		{"no session", Answerer{}, ErrNotFound},
	}
	for _, c := range cases {
		if got := mayAnswer(c.who, rec, false); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAnAnswerIsTakenOnceAndAnExpiredWriteIsGone(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	a := testApprovals(f)
	who := Answerer{mattermost.Session{ID: "web", UserID: "alice", CSRF: testCSRF}, testCSRF}
	first, err := a.Answer(context.Background(), who, rec.ID, "decline")
	if err != nil || first.State != StateDeclined {
		t.Fatalf("first answer: %+v %v", first, err)
	}
	second, err := a.Answer(context.Background(), who, rec.ID, "accept")
	if err != nil || second.State != StateDeclined || f.executed != 0 {
		t.Fatalf("second answer: %+v %v, executed %d", second, err, f.executed)
	}
	if !rec.ExpiresAt().Equal(rec.CreatedAt.Add(PendingLifetime)) {
		t.Fatalf("a pending write expires at %v", rec.ExpiresAt())
	}
	if _, err := a.Answer(context.Background(), who, strings.Repeat("0", 32), "accept"); err != ErrNotFound {
		t.Fatalf("an expired (absent) write: %v", err)
	}
}

func TestAClientsYesAfterTheSwitchToAlwaysInMattermostPostsNothingAndTheWriteWaitsThere(t *testing.T) {
	f := newRoutes(t)
	a := testApprovals(f)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	ticked := mcp.InputResponses{AnswerInputID: mcp.NewElicitationInputResponse(mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{Property(rec.ID): true}}})}
	a.opts.Config = func() config.Configuration { return allowWrites(config.ConfirmMattermost) }
	// The call waits for the person in Mattermost until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	o, err := a.settle(ctx, (*mattermost.Gateway)(nil).As("alice"), rec, ModeForm, ticked, "")
	cancel()
	if err != nil || o.Record.State != StatePending || o.PageURL == "" {
		t.Fatalf("after the switch: %+v %v", o, err)
	}
	if got, _ := f.store.Load("alice", rec.ID); got.State != StatePending || f.executed != 0 || len(f.told) != 1 {
		t.Fatalf("state %s, executed %d, told %v", got.State, f.executed, f.told)
	}
	// Under the mode that trusts the client, the same answer is a yes.
	a.opts.Config = func() config.Configuration { return allowWrites(config.ConfirmClientThenMattermost) }
	o, err = a.settle(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec, ModeForm, ticked, "")
	if err != nil || o.Record.State != StateDone || f.executed != 1 {
		t.Fatalf("client mode: %+v %v", o, err)
	}
}

func TestOnlyThePersonsOwnInteractiveSessionIsThePersonForWhatElseIsTheirs(t *testing.T) {
	f := newRoutes(t)
	a := testApprovals(f)
	// A session that called /mcp for alice is one of her clients' own.
	if err := a.clients.note("alice", "client-web", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	web := mattermost.Session{ID: "web", UserID: "alice", CSRF: "c"}
	cases := []struct {
		name string
		who  Answerer
		ok   bool
	}{
		{"the person's own session with its CSRF token", Answerer{web, "c"}, true},
		{"without the CSRF token", Answerer{web, ""}, false},
		{"with another CSRF token", Answerer{web, "d"}, false},
		{"an integration's session", Answerer{mattermost.Session{ID: "pat", UserID: "alice", Integration: true, CSRF: "c"}, "c"}, false},
		{"a session an MCP client called /mcp with", Answerer{mattermost.Session{ID: "client-web", UserID: "alice", CSRF: "c"}, "c"}, false},
		{"another person's session", Answerer{mattermost.Session{ID: "bobweb", UserID: "bob", CSRF: "c"}, "c"}, false},
		{"no session", Answerer{}, false},
	}
	for _, c := range cases {
		err := a.ThePerson("alice", c.who)
		if c.ok != (err == nil) || (err != nil && err != ErrNotThePerson) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
