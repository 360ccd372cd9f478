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

func TestEveryToolCallIsLoggedAtDebugWithoutItsContent(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	line := func(u harness.User) []byte {
		raw, err := os.ReadFile(mm.ServerLog())
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`.*"msg":"MCP tool call".*"user_id":"` + u.ID + `","tool":"get_me".*`).Find(raw)
	}
	// At Mattermost's usual levels a tool call costs no log line (nor the
	// plugin API round trip that would carry it, only to be dropped).
	call(t, connect(t, mm.URL, bob.Token), "get_me", nil)
	if found := line(bob); found != nil {
		t.Fatalf("a tool call was logged with the file log at INFO: %s", found)
	}
	level := func(l string) error {
		return mm.PatchConfig(&model.Config{LogSettings: model.LogSettings{FileLevel: model.NewPointer(l)}})
	}
	if err := level("DEBUG"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = level("INFO") })
	c := connect(t, mm.URL, alice.Token)
	var found []byte
	eventually(t, "alice's get_me is in the log at DEBUG", func() bool {
		call(t, c, "get_me", nil)
		found = line(alice)
		return found != nil
	})
	for _, want := range []string{`"tool":"get_me"`, `"duration_ms":`, `"outcome":"ok"`} {
		if !strings.Contains(string(found), want) {
			t.Errorf("log line %s lacks %s", found, want)
		}
	}
	if strings.Contains(string(found), alice.Email) {
		t.Errorf("the log line carries the tool's answer: %s", found)
	}
}
