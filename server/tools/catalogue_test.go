package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue/cataloguetest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func realCatalogue(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	cat, err := catalogue.New(All(Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatalf("the real catalogue is malformed: %v", err)
	}
	return cat
}

func TestWithWritesOffNoToolOfTheCatalogueThatWritesIsListedOrCallable(t *testing.T) {
	cat := realCatalogue(t)
	listed, callable := cataloguetest.Exposure(t, cat, config.Defaults())
	for _, tool := range cat.All() {
		offered := slices.Contains(listed, tool.Name) || slices.Contains(callable, tool.Name)
		if tool.Writes() && offered {
			t.Errorf("%s changes Mattermost but is offered with writes off", tool.Name)
		}
		if !tool.Writes() && !(slices.Contains(listed, tool.Name) && slices.Contains(callable, tool.Name)) {
			t.Errorf("%s does not change Mattermost and must always be listed and callable", tool.Name)
		}
	}
}

func TestWithWritesOnEveryToolOfTheCatalogueIsOfferedOnAServerThatHasWhatItNeeds(t *testing.T) {
	cat := realCatalogue(t)
	cfg := config.Defaults()
	cfg.AllowWrites = true
	cfg.Server = config.ScheduledPosts
	listed, callable := cataloguetest.Exposure(t, cat, cfg)
	for _, tool := range cat.All() {
		if !slices.Contains(listed, tool.Name) || !slices.Contains(callable, tool.Name) {
			t.Errorf("%s is not offered with writes on", tool.Name)
		}
	}
}

func TestScheduledPostsAreOfferedOnlyWhereTheServersLicenceAndSettingsAllowThem(t *testing.T) {
	cat := realCatalogue(t)
	var needy []string
	for _, tool := range cat.All() {
		if tool.Needs != 0 {
			needy = append(needy, tool.Name)
		}
	}
	if !slices.Equal(needy, []string{"schedule_post"}) {
		t.Fatalf("the tools that need more of the server: %v", needy)
	}
	cfg := config.Defaults()
	cfg.AllowWrites = true
	listed, callable := cataloguetest.Exposure(t, cat, cfg)
	if slices.Contains(listed, "schedule_post") || slices.Contains(callable, "schedule_post") {
		t.Fatal("schedule_post is offered on a server without the licence for it")
	}
}

func TestEveryToolOfTheCatalogueDeclaresAllFourHints(t *testing.T) {
	for _, tool := range realCatalogue(t).All() {
		a := tool.MCP().Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s leaves a hint unset", tool.Name)
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: a description this short cannot tell the model when to use it and what comes back", tool.Name)
		}
	}
}

func TestEveryToolDeclaresAnObjectOutputSchema(t *testing.T) {
	for _, tool := range realCatalogue(t).All() {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.MCP().RawOutputSchema, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: output schema %s (%v)", tool.Name, tool.OutputSchema, err)
		}
	}
}

func TestWithWritesOffNoToolThatChangesOnlyThePersonsOwnViewIsListedOrCallable(t *testing.T) {
	cat := realCatalogue(t)
	var own []string
	for _, tool := range cat.All() {
		if tool.Effect == catalogue.ChangesOwnView {
			own = append(own, tool.Name)
		}
	}
	if len(own) == 0 {
		t.Fatal("the catalogue has no tool that changes only the person's own view: this test checks nothing")
	}
	listed, callable := cataloguetest.Exposure(t, cat, config.Defaults())
	on := config.Defaults()
	on.AllowWrites = true
	listedOn, callableOn := cataloguetest.Exposure(t, cat, on)
	for _, name := range own {
		if slices.Contains(listed, name) || slices.Contains(callable, name) {
			t.Errorf("%s changes the person's own view but is offered with writes off", name)
		}
		if !slices.Contains(listedOn, name) || !slices.Contains(callableOn, name) {
			t.Errorf("%s changes the person's own view but is not offered with writes on", name)
		}
	}
}

func TestEveryToolThatChangesOnlyThePersonsOwnViewReachesNobodyElseAndSaysItAsksNothing(t *testing.T) {
	for _, tool := range realCatalogue(t).All() {
		if tool.Effect != catalogue.ChangesOwnView {
			continue
		}
		if tool.Hints.ReadOnly || tool.Hints.OpenWorld {
			t.Errorf("%s: hints %+v, want neither read-only nor open-world", tool.Name, tool.Hints)
		}
		if !strings.HasSuffix(tool.Description, ownViewNote) {
			t.Errorf("%s: the description does not say that nobody else sees the change", tool.Name)
		}
		if n := len(tool.Description); n > 300 {
			t.Errorf("%s: description of %d characters; keep it under 300", tool.Name, n)
		}
	}
}

func TestEveryToolThatChangesWhatOthersSeeSaysThePersonIsAskedFirst(t *testing.T) {
	n := 0
	for _, tool := range realCatalogue(t).All() {
		if tool.Effect != catalogue.ChangesMattermost {
			continue
		}
		n++
		if !strings.HasSuffix(tool.Description, confirmationNote) {
			t.Errorf("%s: the description does not end by saying the person is asked first: %q", tool.Name, tool.Description)
		}
	}
	if n < 14 {
		t.Fatalf("only %d tools change what others see: the catalogue is not the real one", n)
	}
}

func TestEveryToolThatChangesMattermostHasExactlyOneConfirmedWriteAndEveryWriteHasItsTools(t *testing.T) {
	tools := map[string]bool{}
	for _, tool := range realCatalogue(t).All() {
		if tool.Effect == catalogue.ChangesMattermost {
			tools[tool.Name] = true
		}
	}
	writesOf := map[string][]string{}
	for action, names := range approval.WriteTools() {
		if len(names) == 0 {
			t.Errorf("the write %q names no tool", action)
		}
		for _, name := range names {
			if !tools[name] {
				t.Errorf("the write %q names %s, which is no tool of the catalogue that changes Mattermost", action, name)
			}
			writesOf[name] = append(writesOf[name], action)
		}
	}
	for name := range tools {
		if len(writesOf[name]) != 1 {
			t.Errorf("%s asks for %d confirmed writes %v; every write tool has exactly one", name, len(writesOf[name]), writesOf[name])
		}
	}
}

// maxLightToolList is what tools/list of the light start may weigh: the
// reading core, get_me, find_tools and load_tools, a quarter of the
// whole list, so a client that starts light pays for the rest only once
// it loads it.
const maxLightToolList = 12_000

// toolListBytes is tools/list as a connection that chose ch sees it with
// every toolset and writes on.
func toolListBytes(t *testing.T, ch config.Choice) (int, int) {
	t.Helper()
	cat := realCatalogue(t)
	cfg := config.Defaults()
	cfg.AllowWrites, cfg.Server = true, config.ScheduledPosts
	var listed []mcp.Tool
	for _, tool := range append(cat.All(), cat.Loaders()...) {
		if catalogue.OfferedTo(tool, cfg, ch) {
			listed = append(listed, tool.MCP())
		}
	}
	raw, err := json.Marshal(mcp.ListToolsResult{Tools: listed})
	if err != nil {
		t.Fatal(err)
	}
	return len(listed), len(raw)
}

func TestTheLightStartsToolListStaysUnder12000Bytes(t *testing.T) {
	n, size := toolListBytes(t, config.Choice{Chosen: true, Light: true})
	readOnlyN, readOnly := toolListBytes(t, config.Choice{ReadOnly: true})
	allN, all := toolListBytes(t, config.Choice{})
	t.Logf("tools/list: light start %d tools, %d bytes; read-only %d tools, %d bytes; everything %d tools, %d bytes",
		n, size, readOnlyN, readOnly, allN, all)
	if n < 8 {
		t.Fatalf("the light start lists %d tools: it lost its reading core", n)
	}
	if size > maxLightToolList {
		t.Fatalf("tools/list of the light start is %d bytes, over %d: take a tool out of lightStart or shorten its description", size, maxLightToolList)
	}
}
