package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestTheBundleIsInstalledAndRunningWithItsSettings(t *testing.T) {
	admin := mm.Client(mm.Admin)
	statuses, _, err := admin.GetPluginStatuses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	running := false
	for _, s := range statuses {
		if s.PluginId == harness.PluginID && s.State == model.PluginStateRunning {
			running = true
		}
	}
	if !running {
		t.Fatalf("mcp-server is not running: %+v", statuses)
	}
	plugins, _, err := admin.GetPlugins(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var manifest *model.Manifest
	for _, p := range plugins.Active {
		if p.Id == harness.PluginID {
			manifest = &p.Manifest
		}
	}
	if manifest == nil || manifest.Name != "MCP Server" || manifest.SettingsSchema == nil {
		t.Fatalf("the installed manifest is not ours: %+v", manifest)
	}
	keys := map[string]bool{}
	for _, s := range manifest.SettingsSchema.Settings {
		if s.HelpText == "" {
			t.Errorf("setting %s has no help text", s.Key)
		}
		keys[s.Key] = true
	}
	for _, k := range []string{"AllowWrites", "WriteConfirmation", "MaxFileSizeMiB"} {
		if !keys[k] {
			t.Errorf("setting %s missing from the System Console", k)
		}
	}
}

// offeredNames is what the catalogue says a configuration offers.
func offeredNames(t *testing.T, cfg config.Configuration) []string {
	t.Helper()
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range cat.All() {
		if catalogue.Offered(tool, cfg) {
			names = append(names, tool.Name)
		}
	}
	return names
}

func TestTheToolsOfferedFollowTheWriteSwitchWithoutReconnecting(t *testing.T) {
	token, err := mm.PersonalAccessToken(mm.Users[0])
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, token)
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowWrites": false}) })

	off := config.Defaults()
	if got, want := toolNames(t, c), offeredNames(t, off); !slices.Equal(got, want) {
		t.Fatalf("writes off: listed %v, want %v", got, want)
	}
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	on := off
	on.AllowWrites = true
	if got, want := toolNames(t, c), offeredNames(t, on); !slices.Equal(got, want) {
		t.Fatalf("writes on, same session: listed %v, want %v", got, want)
	}
	var me tools.Me
	structuredAs(t, call(t, c, "get_me", nil), &me)
	if !me.WritesAllowed {
		t.Fatal("get_me still says writes are off after the admin allowed them")
	}
}

func TestAnInvalidSettingIsRefusedOnSaveAndThePreviousSettingStays(t *testing.T) {
	if err := mm.PatchPluginSettings(map[string]any{"MaxFileSizeMiB": 20}); err != nil {
		t.Fatal(err)
	}
	err := mm.PatchPluginSettings(map[string]any{"MaxFileSizeMiB": -5})
	if err == nil || !strings.Contains(err.Error(), "Largest file the tools read") {
		t.Fatalf("saving -5 MiB: %v, want a refusal naming the setting", err)
	}
	saved, err := mm.PluginSettings()
	if err != nil {
		t.Fatal(err)
	}
	if got := settingValue(saved, "MaxFileSizeMiB"); got != "20" {
		t.Fatalf("saved MaxFileSizeMiB is %v after a refused save, want 20", got)
	}
	token, err := mm.PersonalAccessToken(mm.Users[0])
	if err != nil {
		t.Fatal(err)
	}
	var me tools.Me
	structuredAs(t, call(t, connect(t, mm.URL, token), "get_me", nil), &me)
	if me.MaxFileSizeMiB != 20 {
		t.Fatalf("the plugin runs with %d MiB, want 20", me.MaxFileSizeMiB)
	}
}

func settingValue(settings map[string]any, key string) string {
	for k, v := range settings {
		if strings.EqualFold(k, key) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

func TestEveryToolCallIsLoggedWithoutItsContent(t *testing.T) {
	alice := mm.Users[0]
	c := connect(t, mm.URL, alice.Token)
	call(t, c, "get_me", nil)
	raw, err := os.ReadFile(mm.ServerLog())
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`.*"msg":"MCP tool call".*"user_id":"` + alice.ID + `","tool":"get_me".*`)
	found := line.Find(raw)
	if found == nil {
		t.Fatalf("no log line for alice's get_me in %s", mm.ServerLog())
	}
	for _, want := range []string{`"tool":"get_me"`, `"duration_ms":`, `"outcome":"ok"`} {
		if !strings.Contains(string(found), want) {
			t.Errorf("log line %s lacks %s", found, want)
		}
	}
	if strings.Contains(string(found), alice.Email) {
		t.Errorf("the log line carries the tool's answer: %s", found)
	}
}
