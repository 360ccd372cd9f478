package e2e

// Issue 30: the MCP Inspector's CLI, a client nobody on the project wrote,
// lists the tools with its --strict schema portability check and finds
// nothing: one type per node, no bare object, whatever the provider.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
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
