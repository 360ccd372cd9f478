package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// toolsetKeys are the System Console keys of the toolsets' switches, as
// plugin.json names them.
var toolsetKeys = map[config.Toolset]string{
	config.ToolsetChannels: "ToolsetChannels", config.ToolsetFiles: "ToolsetFiles", config.ToolsetPeople: "ToolsetPeople",
	config.ToolsetWorkspace: "ToolsetWorkspace", config.ToolsetPosting: "ToolsetPosting",
	config.ToolsetChannelChanges: "ToolsetChannelChanges", config.ToolsetStatus: "ToolsetStatus", config.ToolsetOwnView: "ToolsetOwnView",
}

// toolsOf is the catalogue's tools of a toolset, by name.
func toolsOf(t *testing.T, set config.Toolset) []string {
	t.Helper()
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range cat.All() {
		if tool.Toolset == set {
			names = append(names, tool.Name)
		}
	}
	return names
}

// onBothNodes is one client connected directly to each node.
func onBothNodes(t *testing.T) []*client.Client {
	t.Helper()
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	var clients []*client.Client
	for _, site := range mm.NodeURLs() {
		clients = append(clients, connect(t, site, mm.Users[0].Token))
	}
	if len(clients) != 2 {
		t.Fatalf("%d nodes run, want 2", len(clients))
	}
	return clients
}

// refusedAsNotOffered calls a tool that must not run, and reads the refusal.
func refusedAsNotOffered(t *testing.T, c *client.Client, tool string, because ...string) {
	t.Helper()
	res, err := callErr(c, tool, map[string]any{})
	if err != nil {
		t.Fatalf("%s: a protocol error instead of the reason: %v", tool, err)
	}
	body := text(res)
	if !res.IsError || !strings.Contains(body, tool+" is not offered on this Mattermost and was not run") ||
		!strings.Contains(body, "System Console > Plugins > MCP Server") {
		t.Fatalf("%s: %s", tool, body)
	}
	for _, b := range because {
		if !strings.Contains(body, b) {
			t.Fatalf("%s: %q does not say %q", tool, body, b)
		}
	}
}

func TestEachToolsetTurnedOffIsNeitherListedNorCallableOnEitherNodeAndBackOnAtOnce(t *testing.T) {
	clients := onBothNodes(t)
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		reset := map[string]any{"AllowWrites": false}
		for _, key := range toolsetKeys {
			reset[key] = true
		}
		if err := mm.PatchPluginSettings(reset); err != nil {
			t.Errorf("restore the toolsets: %v", err)
		}
	})
	all := config.Defaults()
	all.AllowWrites = true
	for _, set := range config.Toolsets() {
		names := toolsOf(t, set)
		if len(names) == 0 {
			t.Fatalf("toolset %s has no tools", set.Name())
		}
		if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[set]: false}); err != nil {
			t.Fatal(err)
		}
		off := all
		off.Toolsets &^= set
		for node, c := range clients {
			listed := toolNames(t, c)
			if want := offeredNames(t, off); !slices.Equal(listed, want) {
				t.Fatalf("node %d, %s off: listed %v, want %v", node+1, set.Name(), listed, want)
			}
			for _, name := range names {
				if slices.Contains(listed, name) {
					t.Fatalf("node %d: %s is listed with its toolset %s off", node+1, name, set.Name())
				}
			}
			refusedAsNotOffered(t, c, names[0], `the admin has turned off the toolset "`+set.DisplayName()+`"`)
			if me := getMe(t, c, mm.Users[0]); !slices.Contains(me.ToolsetsOff, set.Name()) {
				t.Fatalf("node %d: get_me says toolsets %v are off, want %s among them", node+1, me.ToolsetsOff, set.Name())
			}
		}
		if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[set]: true}); err != nil {
			t.Fatal(err)
		}
		for node, c := range clients {
			if listed, want := toolNames(t, c), offeredNames(t, all); !slices.Equal(listed, want) {
				t.Fatalf("node %d, %s back on, same session: listed %v, want %v", node+1, set.Name(), listed, want)
			}
		}
	}
	// Back on, a tool of the first toolset runs again.
	if res := call(t, clients[0], "list_teams", nil); res.IsError {
		t.Fatalf("list_teams with every toolset on: %s", text(res))
	}
}

func TestAToolLeftOutIsNeitherListedNorCallableOnEitherNodeAndAnUnknownNameIsRefusedOnSave(t *testing.T) {
	clients := onBothNodes(t)
	if err := mm.PatchPluginSettings(map[string]any{"ExcludedTools": "read_channel, Get_User"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ExcludedTools": ""}); err != nil {
			t.Errorf("clear the tools left out: %v", err)
		}
	})
	for node, c := range clients {
		listed := toolNames(t, c)
		if slices.Contains(listed, "read_channel") || slices.Contains(listed, "get_user") || !slices.Contains(listed, "read_thread") {
			t.Fatalf("node %d with read_channel and get_user left out: listed %v", node+1, listed)
		}
		refusedAsNotOffered(t, c, "read_channel", "the admin left this tool out")
		refusedAsNotOffered(t, c, "get_user", "the admin left this tool out")
		if me := getMe(t, c, mm.Users[0]); !slices.Equal(me.ToolsLeftOut, []string{"read_channel", "get_user"}) {
			t.Fatalf("node %d: get_me says %v are left out", node+1, me.ToolsLeftOut)
		}
	}

	// An unknown name through the System Console's own API: PUT /api/v4/config.
	ctx := context.Background()
	admin := mm.Client(mm.Admin)
	cfg, _, err := admin.GetConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PluginSettings.Plugins[harness.PluginID]["excludedtools"] = "read_chanel"
	_, resp, err := admin.UpdateConfig(ctx, cfg)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(err.Error(), `"read_chanel", which is no tool of this plugin`) || !strings.Contains(err.Error(), "read_channel") {
		t.Fatalf("saving an unknown tool name: %v (status %v)", err, resp)
	}
	saved, err := mm.PluginSettings()
	if err != nil {
		t.Fatal(err)
	}
	if got := settingValue(saved, "ExcludedTools"); got != "read_channel, Get_User" {
		t.Fatalf("saved ExcludedTools is %q after the refused save", got)
	}

	if err := mm.PatchPluginSettings(map[string]any{"ExcludedTools": ""}); err != nil {
		t.Fatal(err)
	}
	for node, c := range clients {
		if listed := toolNames(t, c); !slices.Contains(listed, "read_channel") || !slices.Contains(listed, "get_user") {
			t.Fatalf("node %d, nothing left out, same session: listed %v", node+1, listed)
		}
		if res := call(t, c, "get_user", map[string]any{"user": "@" + mm.Users[1].Username}); res.IsError {
			t.Fatalf("node %d: get_user once back: %s", node+1, text(res))
		}
	}
}
