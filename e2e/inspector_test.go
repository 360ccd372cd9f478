package e2e

// Issue 30: the MCP Inspector's CLI, a client nobody on the project wrote,
// lists the tools with its --strict schema portability check and finds
// nothing: one type per node, no bare object, whatever the provider.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// inspectorTimeout bounds one run of the Inspector's CLI: it starts Node,
// initializes and lists once, in a few seconds.
const inspectorTimeout = 2 * time.Minute

func TestTheInspectorsStrictCheckFindsNoErrorAndNoWarningInAnyToolSchema(t *testing.T) {
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": false}); err != nil {
			t.Errorf("turn writes off again: %v", err)
		}
	})
	person := newPerson(t, "inspector")
	want := toolNames(t, connect(t, mm.URL, person.Token))

	ctx, cancel := context.WithTimeout(context.Background(), inspectorTimeout)
	defer cancel()
	list, err := harness.InspectToolsStrictly(ctx, mcpURL(mm.URL), person.Token, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(list.Tools)
	if !slices.Equal(list.Tools, want) {
		t.Fatalf("the Inspector listed %d tools %v, the Go client %d %v", len(list.Tools), list.Tools, len(want), want)
	}
	if !slices.Contains(list.Tools, "create_post") {
		t.Fatalf("writes are on but the Inspector did not list create_post: %v", list.Tools)
	}
	if errs, warnings := list.Count("error"), list.Count("warning"); errs != 0 || warnings != 0 || len(list.Findings) != 0 {
		var lines []string
		for _, f := range list.Findings {
			lines = append(lines, f.String())
		}
		t.Fatalf("the Inspector's --strict check found %d errors and %d warnings in the schemas of %d tools:\n%s\n\nIts report:\n%s",
			errs, warnings, len(list.Tools), strings.Join(lines, "\n"), list.Output)
	}
}

func TestTheInspectorFindsTheUploadViewOfRequestFileAllowedOnlyThisMattermostAndCallsItToTheHandleOfTheGivenFile(t *testing.T) {
	alice := mm.Users[0]
	ctx, cancel := context.WithTimeout(context.Background(), inspectorTimeout)
	defer cancel()
	// Its MCP Apps probe, as a client that shows apps: the view and the
	// one origin it may reach.
	out, err := harness.Inspect(ctx, mcpURL(mm.URL), alice.Token, t.TempDir(), "--method", "tools/call", "--tool-name", "request_file", "--app-info", "--advertise-apps")
	if err != nil {
		t.Fatal(err)
	}
	var app struct {
		ResourceURI string `json:"resourceUri"`
		CSP         struct {
			ConnectDomains []string `json:"connectDomains"`
		} `json:"csp"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &app); err != nil || app.ResourceURI != resources.UploadView ||
		!slices.Equal(app.CSP.ConnectDomains, []string{siteOrigin()}) {
		t.Fatalf("the Inspector's probe of request_file's app: %v %s", err, out)
	}

	// A call: the Inspector waits while the person gives the file on the
	// page, and prints the handle.
	purpose := uniq(t, "the agenda for the inspector")
	called := make(chan string, 1)
	go func() {
		out, err := harness.Inspect(ctx, mcpURL(mm.URL), alice.Token, t.TempDir(), "--method", "tools/call", "--tool-name", "request_file",
			"--tool-arg", "purpose="+purpose, "--format", "json")
		if err != nil {
			out = err.Error()
		}
		called <- out
	}()
	id := waitFileRequest(t, alice, purpose)
	agenda := []byte("1. files\n2. views\n")
	if code, o := giveFile(t, browserAt(t, mm.URL, alice), fileRequestPage(id), "agenda.txt", agenda); code != http.StatusCreated {
		t.Fatalf("the upload: %d %+v", code, o)
	}
	out = <-called
	if !strings.Contains(out, sum(agenda)) || !strings.Contains(out, `"handle"`) || !strings.Contains(out, filerequest.StateReceived) {
		t.Fatalf("the Inspector's call printed %s", out)
	}
}
