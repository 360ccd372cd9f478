package transport

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

func TestThePersonsSessionsAreListedAndEndedSessionsAnswer404OnEveryNode(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true, "bob": true}
	tr, one := newNode(t, kv, &memLog{}, active)
	two := node(t, kv, &memLog{}, active)
	open := func(user string) string {
		resp, _, err := initializeAt(one.URL, user)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %v %v", err, resp)
		}
		return resp.Header.Get(server.HeaderKeySessionID)
	}
	gone, kept, bobs := open("alice"), open("alice"), open("bob")

	recs, err := tr.PersonSessions("alice")
	if err != nil || len(recs) != 2 || recs[0].ClientName != "test-client" {
		t.Fatalf("alice's sessions: %+v %v", recs, err)
	}
	if err := tr.EndSessions("alice", []string{gone, bobs}); err != nil {
		t.Fatal(err)
	}
	for _, srv := range []string{one.URL, two.URL} {
		if code := post(t, srv, "alice", gone, callWhoami).StatusCode; code != http.StatusNotFound {
			t.Errorf("the ended session answers %d", code)
		}
		if code := post(t, srv, "alice", kept, callWhoami).StatusCode; code != http.StatusOK {
			t.Errorf("the other session answers %d", code)
		}
		if code := post(t, srv, "bob", bobs, callWhoami).StatusCode; code != http.StatusOK {
			t.Errorf("another person's session, named by alice, answers %d", code)
		}
	}
	if recs, _ := tr.PersonSessions("alice"); len(recs) != 1 || recs[0].ID != kept {
		t.Errorf("alice's sessions after: %+v", recs)
	}
}

func TestAStatelessClientIsNotedByItsSignInOnceAMinuteAndForgotten(t *testing.T) {
	kv := newMemKV()
	tr, _ := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	var connected []SessionRecord
	tr.opts.Connected = func(rec SessionRecord) { connected = append(connected, rec) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.ServeMCP(w, r.WithContext(WithMattermostSession(r.Context(), r.Header.Get("X-Test-Session"))))
	}))
	t.Cleanup(srv.Close)
	call := func(session string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{},
			"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"modern-client","version":"7"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "whoami")
		req.Header.Set("Mattermost-User-Id", "alice")
		req.Header.Set("X-Test-Session", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(b, "alice") {
			t.Fatalf("a stateless call answered %d %s", resp.StatusCode, b)
		}
	}
	call("mmsess1")
	if list, err := tr.PersonSignIns("alice"); err != nil || len(list) != 1 || list[0].ClientName != "modern-client" || list[0].ClientVersion != "7" || list[0].MattermostSessionID != "mmsess1" {
		t.Fatalf("%+v %v", list, err)
	}
	// Seen again within a minute, the client is not written again: the
	// record removed here stays away.
	if err := kv.Delete(signInKeyPrefix + "alice"); err != nil {
		t.Fatal(err)
	}
	call("mmsess1")
	call("mmsess2")
	call("mmsess3")
	list, err := tr.PersonSignIns("alice")
	if err != nil || len(list) != 2 || slices.ContainsFunc(list, func(s SignIn) bool { return s.MattermostSessionID == "mmsess1" }) {
		t.Fatalf("%+v %v", list, err)
	}
	// Heard once per new client (mmsess1, mmsess2, mmsess3), never for a
	// repeat within a minute.
	if len(connected) != 3 || connected[0].ClientName != "modern-client" || connected[0].MattermostSessionID != "mmsess1" || connected[0].ID != "" {
		t.Errorf("connections heard: %+v", connected)
	}
	if err := tr.ForgetSignIns("alice", []string{"mmsess2"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := tr.PersonSignIns("alice"); len(list) != 1 || list[0].MattermostSessionID != "mmsess3" {
		t.Errorf("after forgetting: %+v", list)
	}
}
