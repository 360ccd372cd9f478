package transport

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit/audittest"
)

// trail is an audit.Recorder that keeps what it was given.
type trail = audittest.Trail

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`

const notEnabled = "Your Mattermost admin has not enabled MCP for you (only members of chosen teams may connect an AI client): ask your Mattermost admin to let you connect an AI client (System Console > Plugins > MCP Server > Who may connect)."

// admissionNode is a node where alice, bob and carol are active, and whose
// rule refuses whoever *refused names (read on every request) for the
// reason it gives; its lookup fails while *failing is set. It serves the
// MCP endpoint and a route that authenticates as the workspace API does.
func admissionNode(t *testing.T, kv *memKV, rec audit.Recorder, refused *atomic.Value, failing *atomic.Bool) *httptest.Server {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com/" },
		UserActive: func(id string) (bool, error) { return id == "alice" || id == "bob" || id == "carol", nil },
		Admits: func(id string) (admission.Verdict, error) {
			if failing.Load() {
				return admission.Verdict{}, errors.New("the plugin API is down")
			}
			if who, _ := refused.Load().(string); who == id {
				return admission.Verdict{Reason: admission.ReasonNotInTeams, Message: notEnabled}, nil
			}
			return admission.Allowed, nil
		},
		Audit: rec,
		KV:    kv, Answers: rawKV{kv}, Log: &memLog{},
	})
	return serveWithFiles(t, tr)
}

func getAs(t *testing.T, url, user string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Mattermost-User-Id", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestAPersonTheRuleRefusesGets403InOneLineOnTheMCPEndpointAndTheSideChannelAndNothingElse(t *testing.T) {
	kv, rec := newMemKV(), &trail{}
	refused := &atomic.Value{}
	refused.Store("bob")
	srv := admissionNode(t, kv, rec, refused, &atomic.Bool{})

	resp := post(t, srv.URL, "bob", "", initialize)
	text := body(t, resp)
	code, msg := rpcError(t, text)
	if resp.StatusCode != http.StatusForbidden || code != -32600 || msg != notEnabled || resp.Header.Get(server.HeaderKeySessionID) != "" {
		t.Fatalf("bob's initialize: %d %s", resp.StatusCode, text)
	}
	resp = getAs(t, srv.URL+"/api/v1/files", "bob")
	if text := body(t, resp); resp.StatusCode != http.StatusForbidden || strings.TrimSpace(text) != notEnabled {
		t.Fatalf("bob on the workspace API: %d %q", resp.StatusCode, text)
	}
	if n := len(kv.sessionsOf("bob")); n != 0 {
		t.Fatalf("a refused initialize stored %d sessions", n)
	}

	// Alice is served, and her session works on the next request.
	session := openSession(t, srv.URL, "alice", initialize)
	if resp := post(t, srv.URL, "alice", session, listTools); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's tools/list: %d %s", resp.StatusCode, body(t, resp))
	}
	if resp := getAs(t, srv.URL+"/api/v1/files", "alice"); body(t, resp) != "files" {
		t.Fatal("alice was not served on the workspace API")
	}
}

func TestAChangeOfTheRuleAppliesOnTheNextRequestOfAnOpenSession(t *testing.T) {
	kv := newMemKV()
	refused := &atomic.Value{}
	refused.Store("")
	srv := admissionNode(t, kv, &trail{}, refused, &atomic.Bool{})
	session := openSession(t, srv.URL, "alice", initialize)

	refused.Store("alice")
	resp := post(t, srv.URL, "alice", session, listTools)
	if text := body(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(text, "has not enabled MCP for you") || strings.Contains(text, `"tools"`) {
		t.Fatalf("alice's open session after the admin left her out: %d %s", resp.StatusCode, text)
	}
	refused.Store("")
	if resp := post(t, srv.URL, "alice", session, listTools); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's open session once let in again: %d %s", resp.StatusCode, body(t, resp))
	}
}

func TestALookupThatFailsAnswers503ToTryAgainAndRefusesNothingForGood(t *testing.T) {
	failing := &atomic.Bool{}
	failing.Store(true)
	refused := &atomic.Value{}
	refused.Store("")
	rec := &trail{}
	srv := admissionNode(t, newMemKV(), rec, refused, failing)
	resp := post(t, srv.URL, "alice", "", initialize)
	if text := body(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(text, "try again shortly") {
		t.Fatalf("a failed lookup: %d %s", resp.StatusCode, text)
	}
	if n := len(rec.All()); n != 0 {
		t.Fatalf("a failed lookup was recorded as %d refusals", n)
	}
	failing.Store(false)
	openSession(t, srv.URL, "alice", initialize)
}

func TestEveryRefusalIsRecordedOnceAMinutePerPersonAndReasonWithItsClient(t *testing.T) {
	kv, rec := newMemKV(), &trail{}
	refused := &atomic.Value{}
	refused.Store("bob")
	srv := admissionNode(t, kv, rec, refused, &atomic.Bool{})
	for range 5 { // a client retrying in a loop
		if resp := post(t, srv.URL, "bob", "", initialize); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("bob: %d", resp.StatusCode)
		}
		if resp := getAs(t, srv.URL+"/api/v1/files", "bob"); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("bob on the workspace API: %d", resp.StatusCode)
		}
	}
	// A deactivated account's token is refused with 401, as before, and
	// recorded under its own reason.
	if resp := post(t, srv.URL, "dave", "", initialize); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a deactivated account: %d", resp.StatusCode)
	}
	got := rec.All()
	if len(got) != 2 {
		t.Fatalf("recorded %d events, want bob's once and dave's once: %+v", len(got), got)
	}
	bob := got[0]
	if bob.Kind != audit.KindSignIn || bob.Outcome != audit.OutcomeRefused || bob.Reason != admission.ReasonNotInTeams ||
		bob.UserID != "bob" || bob.ClientName != "test-client" || bob.ClientVersion != "1" || bob.At.IsZero() {
		t.Fatalf("bob's refusal: %+v", bob)
	}
	if dave := got[1]; dave.UserID != "dave" || dave.Reason != reasonDeactivated || dave.Outcome != audit.OutcomeRefused {
		t.Fatalf("dave's refusal: %+v", dave)
	}
}

func TestARefusalOfAnOpenSessionIsRecordedWithTheSessionsClient(t *testing.T) {
	kv, rec := newMemKV(), &trail{}
	refused := &atomic.Value{}
	refused.Store("")
	srv := admissionNode(t, kv, rec, refused, &atomic.Bool{})
	session := openSession(t, srv.URL, "carol", initialize)
	refused.Store("carol")
	if resp := post(t, srv.URL, "carol", session, listTools); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("carol: %d", resp.StatusCode)
	}
	if got := rec.All(); len(got) != 1 || got[0].ClientName != "test-client" || got[0].UserID != "carol" {
		t.Fatalf("recorded %+v", got)
	}
}

func TestRefusalsAreRecordedAgainAfterAMinuteAndTheirListStaysBounded(t *testing.T) {
	var n refusalsNoted
	now := time.Now()
	if !n.due("bob", "guest", now) || n.due("bob", "guest", now.Add(refusalNotedEvery-time.Second)) {
		t.Fatal("a repeat within the minute was recorded")
	}
	if !n.due("bob", "not_in_teams", now) || !n.due("alice", "guest", now) {
		t.Fatal("another reason or another person was not recorded")
	}
	if !n.due("bob", "guest", now.Add(refusalNotedEvery)) {
		t.Fatal("a refusal a minute later was not recorded")
	}
	for i := range maxRefusalsNoted + 10 {
		n.due(string(rune(i)), "guest", now)
	}
	if len(n.at) > maxRefusalsNoted {
		t.Fatalf("%d refusals remembered, bound %d", len(n.at), maxRefusalsNoted)
	}
}

func TestANilAuditRecorderRecordsNothingAndRefusesAsWell(t *testing.T) {
	refused := &atomic.Value{}
	refused.Store("bob")
	srv := admissionNode(t, newMemKV(), nil, refused, &atomic.Bool{})
	if resp := post(t, srv.URL, "bob", "", initialize); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("bob: %d", resp.StatusCode)
	}
}

func TestAdmittedAnswersWhatTheMCPEndpointWouldForARouteThatActsWithoutTheCredential(t *testing.T) {
	refused := &atomic.Value{}
	refused.Store("bob")
	failing := &atomic.Bool{}
	var asked atomic.Int32
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL: func() string { return "https://chat.example.com/" },
		UserActive: func(id string) (bool, error) {
			asked.Add(1)
			return id == "alice" || id == "bob", nil
		},
		Admits: func(id string) (admission.Verdict, error) {
			if failing.Load() {
				return admission.Verdict{}, errors.New("the plugin API is down")
			}
			if who, _ := refused.Load().(string); who == id {
				return admission.Verdict{Reason: admission.ReasonNotInTeams, Message: notEnabled}, nil
			}
			return admission.Allowed, nil
		},
		KV: newMemKV(), Answers: rawKV{newMemKV()}, Log: &memLog{},
	})
	if v, err := tr.Admitted("alice"); err != nil || !v.Allowed {
		t.Fatalf("alice, active and admitted: %+v %v", v, err)
	}
	if v, err := tr.Admitted("bob"); err != nil || v.Allowed || v.Reason != admission.ReasonNotInTeams || v.Message != notEnabled {
		t.Fatalf("bob, whom the rule refuses: %+v %v", v, err)
	}
	if v, err := tr.Admitted("dave"); err != nil || v.Allowed || v.Reason != admission.ReasonDeactivated {
		t.Fatalf("dave, deactivated: %+v %v", v, err)
	}
	failing.Store(true)
	if _, err := tr.Admitted("alice"); err == nil {
		t.Fatal("a failed lookup of the rule answered a verdict")
	}
	// Alice was found active: trusted for activeFor, until a deactivation
	// this node hears of, as on the MCP endpoint.
	failing.Store(false)
	before := asked.Load()
	if v, err := tr.Admitted("alice"); err != nil || !v.Allowed || asked.Load() != before {
		t.Fatal("an account found active moments ago was looked up again")
	}
	tr.UserDeactivated("alice")
	if _, err := tr.Admitted("alice"); err != nil || asked.Load() != before+1 {
		t.Fatal("a deactivation this node heard of did not end the trust in the account")
	}
}
