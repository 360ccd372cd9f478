package e2e

// The drop URL answers only while its person may use MCP: it acts for
// them without their credential, so Mattermost ending their sessions does
// not end it; the plugin asks on every request, as the MCP endpoint does.
// The admission test starts the second node (whoMayConnect): this file
// sorts after cluster_test.go, the first to start it.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// dropRequest asks, as u through a client that shows views, for a text
// file, and answers the request and its drop URL.
func dropRequest(t *testing.T, token, purpose string) (tools.FileRequestResult, string) {
	t.Helper()
	res := call(t, connectShowingViews(t, token), "request_file", map[string]any{"purpose": purpose, "types": []string{".txt"}, "max_size_mib": 1})
	var asked tools.FileRequestResult
	structuredAs(t, res, &asked)
	view := fileRequestViewOf(t, res)
	if asked.State != filerequest.StateWaiting || view.DropURL == "" {
		t.Fatalf("request_file answered %s with %+v", text(res), view)
	}
	return asked, view.DropURL
}

// dropRefused waits until the drop URL refuses u's file with 403 and the
// line want, probing with a file of a type the request did not ask for
// (refused before a byte is kept whatever the answer): a node that found
// u active moments ago trusts that for a few seconds unless it heard of
// the change.
func dropRefused(t *testing.T, drop, want string) {
	t.Helper()
	// As many refusals in a row as nodes run: each node, under round-robin.
	eventuallyWithin(t, 30*time.Second, "every node's drop URL refuses the file", func() bool {
		for range len(mm.NodeURLs()) {
			if code, _ := putTo(t, drop, "", "probe.pdf", []byte("%PDF-1.7\n")); code != http.StatusForbidden {
				return false
			}
		}
		return true
	})
	for range len(mm.NodeURLs()) {
		code, body := putTo(t, drop, "", "notes.txt", []byte("the person's notes\n"))
		var o filerequest.Outcome
		if code != http.StatusForbidden || json.Unmarshal([]byte(body), &o) != nil || o.Message != want {
			t.Fatalf("the drop URL answered %d %s, want 403 %q", code, body, want)
		}
	}
}

// stillWaiting fails unless u's request id, read from the store, waits
// with no file.
func stillWaiting(t *testing.T, u harness.User, id string) {
	t.Helper()
	raw, err := mm.KVValue(context.Background(), "fr_"+u.ID)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Requests []filerequest.Request }
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.Requests {
		if r.ID == id {
			if r.State != filerequest.StateWaiting || r.File != nil {
				t.Fatalf("the request after the refusal: %s with %+v", r.State, r.File)
			}
			return
		}
	}
	t.Fatalf("no request %s of %s", id, u.Username)
}

// refusedInTheTrail waits for the audit trail to record the drop URL's
// refusal of u's request id for reason.
func refusedInTheTrail(t *testing.T, u harness.User, id, reason string) {
	t.Helper()
	q := url.Values{"user": {u.ID}, "kind": {string(audit.KindFileRequest)}, "per_page": {"200"}}
	eventuallyWithin(t, 60*time.Second, "the refusal is in the audit trail as "+reason, func() bool {
		code, p, body := auditPage(t, mm.Admin.Token, audit.APIPath, q)
		if code != http.StatusOK {
			t.Fatalf("the admin reads the trail: %d %s", code, body)
		}
		for _, e := range p.Entries {
			if e.Targets["file_request_id"] == id && e.Outcome == audit.OutcomeRefused && e.Reason == reason {
				return true
			}
		}
		return false
	})
}

// dropTakes sends the file to the drop URL and reads it back as u.
func dropTakes(t *testing.T, u harness.User, token, drop string) {
	t.Helper()
	notes := []byte("the person's notes\n")
	code, body := putTo(t, drop, "", "notes.txt", notes)
	var o filerequest.Outcome
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &o) != nil || o.SHA256 != hexSHA(notes) {
		t.Fatalf("the drop URL: %d %s", code, body)
	}
	if got := readBack(t, harness.User{ID: u.ID, Token: token}, o.Name); string(got) != string(notes) {
		t.Fatalf("read back %q", got)
	}
}

func TestADeactivatedPersonsDropURLRefusesTheFileKeepsNothingAndTakesItOnceTheyAreActiveAgain(t *testing.T) {
	frank := newPerson(t, "frank")
	// A personal access token outlives a deactivation (the login's session
	// does not): the same client reads back after reactivation.
	token, err := mm.PersonalAccessToken(frank)
	if err != nil {
		t.Fatal(err)
	}
	asked, drop := dropRequest(t, token, uniq(t, "the notes of a person about to leave"))
	// The drop URL answers now: the server has just found frank active.
	if code, body := putTo(t, drop, "", "probe.pdf", []byte("%PDF-1.7\n")); code != http.StatusUnsupportedMediaType {
		t.Fatalf("the drop URL before the deactivation: %d %s", code, body)
	}

	if _, err := mm.Client(mm.Admin).UpdateUserActive(context.Background(), frank.ID, false); err != nil {
		t.Fatal(err)
	}
	want := "This file request's Mattermost account is deactivated, so its drop URL takes no files; nothing was stored. Once a Mattermost admin reactivates the account, send the file again."
	dropRefused(t, drop, want)
	stillWaiting(t, frank, asked.ID)
	refusedInTheTrail(t, frank, asked.ID, admission.ReasonDeactivated)

	if _, err := mm.Client(mm.Admin).UpdateUserActive(context.Background(), frank.ID, true); err != nil {
		t.Fatal(err)
	}
	if files := listWorkspace(t, token); len(files) != 0 {
		t.Fatalf("the workspace kept %d files of the refused drops: %+v", len(files), files)
	}
	dropTakes(t, frank, token, drop)
}

func TestADropURLOfAPersonTheAdminNoLongerLetsConnectRefusesTheFileUntilTheyMayAgain(t *testing.T) {
	gina := newPerson(t, "gina")
	asked, drop := dropRequest(t, gina.Token, uniq(t, "the notes of a person left out"))
	// Only a team gina is not in: she may no longer use MCP.
	team, _, err := mm.Client(mm.Admin).CreateTeam(context.Background(), &model.Team{Name: uniq(t, "others-"), DisplayName: "Others", Type: model.TeamOpen})
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{"ConnectAccess": config.ConnectTeams, "ConnectTeams": team.Name}
	whoMayConnect(t, settings)
	dropRefused(t, drop, refusal(t, settings, admission.ReasonNotInTeams)+" Nothing was stored.")
	stillWaiting(t, gina, asked.ID)
	refusedInTheTrail(t, gina, asked.ID, admission.ReasonNotInTeams)

	if err := mm.PatchPluginSettings(map[string]any{"ConnectAccess": nil, "ConnectTeams": nil}); err != nil {
		t.Fatal(err)
	}
	if files := listWorkspace(t, gina.Token); len(files) != 0 {
		t.Fatalf("the workspace kept %d files of the refused drops: %+v", len(files), files)
	}
	dropTakes(t, gina, gina.Token, drop)
}

func TestTheDropURLRefusesAFileSentWithTheBrowsersMattermostCookiesWhichReachThePlugin(t *testing.T) {
	hana := newPerson(t, "hana")
	_, drop := dropRequest(t, hana.Token, uniq(t, "the notes sent with cookies"))
	// As a page of Mattermost's own site would send it with its session:
	// Mattermost deletes MMAUTHTOKEN (and, without the CSRF header, does not
	// take the session) but passes MMUSERID and MMCSRF on.
	req, err := http.NewRequest(http.MethodPut, drop, strings.NewReader("the person's notes\n"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-File-Name", "notes.txt")
	req.Header.Set("Cookie", "MMAUTHTOKEN="+hana.Token+"; MMUSERID="+hana.ID+"; MMCSRF=x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o filerequest.Outcome
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(o.Message, `credentials: "omit"`) {
		t.Fatalf("a PUT with the browser's cookies: %d %+v %v", resp.StatusCode, o, err)
	}
	if files := listWorkspace(t, hana.Token); len(files) != 0 {
		t.Fatalf("the workspace kept %d files: %+v", len(files), files)
	}
}

func TestWithTheWorkspaceOffADropURLTakesNoFileKeepsNothingAndTakesItOnceItIsBackOn(t *testing.T) {
	gina := newPerson(t, "gina")
	asked, drop := dropRequest(t, gina.Token, uniq(t, "the notes asked before the workspace went off"))
	if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetWorkspace]: false}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetWorkspace]: true}); err != nil {
			t.Errorf("restore the workspace toolset: %v", err)
		}
	})
	// request_file is of the workspace toolset: the drop URL stands for it.
	dropRefused(t, drop, "The admin has turned off asking for files (request_file) on this Mattermost, so this request takes no files now; nothing was stored. The file can be shared in Mattermost directly instead.")
	stillWaiting(t, gina, asked.ID)
	refusedInTheTrail(t, gina, asked.ID, "not_offered")

	if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetWorkspace]: true}); err != nil {
		t.Fatal(err)
	}
	if files := listWorkspace(t, gina.Token); len(files) != 0 {
		t.Fatalf("the workspace kept %d files of the refused drops: %+v", len(files), files)
	}
	// As many answers in a row as nodes run: each node, under round-robin.
	eventuallyWithin(t, 30*time.Second, "every node's drop URL takes files again", func() bool {
		for range len(mm.NodeURLs()) {
			if code, _ := putTo(t, drop, "", "probe.pdf", []byte("%PDF-1.7\n")); code != http.StatusUnsupportedMediaType {
				return false
			}
		}
		return true
	})
	dropTakes(t, gina, gina.Token, drop)
}
