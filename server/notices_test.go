package main

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestTheToolsOfferedChangeWithTheWritesSwitchAToolsetAToolLeftOutAndTheLicence(t *testing.T) {
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	base := config.Defaults()
	withWrites := base
	withWrites.AllowWrites = true
	withoutToolset := base
	withoutToolset.Toolsets = base.Toolsets &^ config.ToolsetOwnView
	leftOut := base
	leftOut.ExcludedTools = "search_posts"
	licensed := withWrites
	licensed.Server = config.ScheduledPosts

	seen := map[string]string{}
	for name, cfg := range map[string]config.Configuration{"defaults": base, "writes on": withWrites,
		"a toolset off": withoutToolset, "a tool left out": leftOut, "a licence": licensed} {
		names := offeredNames(cat, cfg)
		for other, was := range seen {
			if was == names {
				t.Fatalf("%s offers what %s offers: a change between them would not be told", name, other)
			}
		}
		seen[name] = names
	}
	if offeredNames(cat, base) != offeredNames(cat, config.Defaults()) {
		t.Fatal("one configuration gives two lists")
	}
	if strings.Contains(offeredNames(cat, base), "create_post") || !strings.Contains(offeredNames(cat, withWrites), "create_post") {
		t.Fatal("the writes switch does not decide create_post")
	}
}

func TestTheWatchTellsOnceForEachChangeOfWhatIsOfferedAndNeverWithoutOne(t *testing.T) {
	offered, told := "a,b", 0
	w := &offeredWatch{offered: func() string { return offered }, tell: func() { told++ }, last: "a,b"}
	w.check()
	if told != 0 {
		t.Fatalf("told %d times without a change", told)
	}
	offered = "a,b,c"
	w.check()
	w.check()
	if told != 1 {
		t.Fatalf("told %d times for one change", told)
	}
	offered = "a,b"
	w.check()
	if told != 2 {
		t.Fatalf("told %d times for two changes", told)
	}
}
