package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// maxLightStart is what issue 33 holds the light start's tools/list to.
const maxLightStart = 12_000

// sentToolsList is the tools/list result a real mcp-go server of the
// catalogue sends under cfg, as bytes.
func sentToolsList(t *testing.T, cat *catalogue.Catalogue, cfg config.Configuration) json.RawMessage {
	t.Helper()
	s := server.NewMCPServer("test", "0", server.WithToolCapabilities(false),
		server.WithToolFilter(cat.Filter(func() config.Configuration { return cfg })))
	cat.Register(s, func() config.Configuration { return cfg })
	raw, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil || len(answer.Result) == 0 {
		t.Fatalf("tools/list answered %s (%v)", raw, err)
	}
	return answer.Result
}

func TestEachPresetsSizeIsTheToolsListItLoadsUnderTheAdminsSettings(t *testing.T) {
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	writesOn := config.Defaults()
	writesOn.AllowWrites = true
	noFiles := writesOn
	noFiles.Toolsets &^= config.ToolsetFiles
	for name, cfg := range map[string]config.Configuration{"the defaults": config.Defaults(), "writes on": writesOn, "writes on, files off": noFiles} {
		sizes := &listSizes{cat: cat, current: func() config.Configuration { return cfg }}
		got := map[string]int{}
		for _, q := range connect.PresetQueries() {
			if got[q], err = sizes.size(q); err != nil {
				t.Fatalf("%s: %q: %v", name, q, err)
			}
		}
		if sent := sentToolsList(t, cat, cfg); got[""] != len(sent) {
			t.Errorf("%s: everything is shown as %d bytes, tools/list sends %d", name, got[""], len(sent))
		}
		var reading, light []catalogue.Tool
		for _, tl := range cat.All() {
			if catalogue.Offered(tl, cfg) && !tl.Writes() {
				reading = append(reading, tl)
			}
			if catalogue.Offered(tl, cfg) && (tl.Name == catalogue.AlwaysOffered || tl.Light) {
				light = append(light, tl)
			}
		}
		light = append(light, cat.Loaders()...) // find_tools and load_tools come with a chosen start
		if want, _ := catalogue.ListSize(reading); got["read_only=true"] != want {
			t.Errorf("%s: reading only is shown as %d bytes; its %d tools weigh %d", name, got["read_only=true"], len(reading), want)
		}
		if want, _ := catalogue.ListSize(light); got["toolsets=light"] != want || want > maxLightStart {
			t.Errorf("%s: the light start is shown as %d bytes; its %d tools weigh %d, at most %d", name, got["toolsets=light"], len(light), want, maxLightStart)
		}
		if !(got["toolsets=light"] < got["read_only=true"] && got["read_only=true"] <= got[""]) {
			t.Errorf("%s: the presets do not load less and less: %v", name, got)
		}
		t.Logf("%s: everything %d, reading only %d, light start %d bytes", name, got[""], got["read_only=true"], got["toolsets=light"])
	}
}

func TestAToolsetThatDoesNotExistCannotBeMeasured(t *testing.T) {
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	sizes := &listSizes{cat: cat, current: config.Defaults}
	if n, err := sizes.size("toolsets=channels,nosuch"); err == nil {
		t.Errorf("a toolset that does not exist measured %d bytes", n)
	}
	if n, err := sizes.size("toolsets=files"); err != nil || n >= 8_000 {
		t.Errorf("the files toolset alone measured %d bytes (%v)", n, err)
	}
}
