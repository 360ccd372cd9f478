package catalogue_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func TestAListsSizeIsWhatToolsListSendsAndTheWeightsOfItsPartsAddUpToIt(t *testing.T) {
	read, post, ws := tool("read_thing", catalogue.ReadsOnly), tool("post_thing", catalogue.ChangesMattermost), tool("workspace_thing", catalogue.ChangesOwnWorkspace)
	read.View = "ui://thing" // a view and task support are listed too
	for name, c := range map[string]struct{ first, second []catalogue.Tool }{
		"no tool":                {},
		"one tool":               {first: []catalogue.Tool{read}},
		"one tool in each part":  {first: []catalogue.Tool{read}, second: []catalogue.Tool{post}},
		"two tools and one":      {first: []catalogue.Tool{read, ws}, second: []catalogue.Tool{post}},
		"every tool in one part": {second: []catalogue.Tool{read, ws, post}},
	} {
		all := append(append([]catalogue.Tool(nil), c.first...), c.second...)
		listed := make([]mcp.Tool, 0, len(all))
		for _, tl := range all {
			listed = append(listed, tl.MCP())
		}
		raw, err := json.Marshal(mcp.ListToolsResult{Tools: listed})
		if err != nil {
			t.Fatal(err)
		}
		size, err := catalogue.ListSize(all)
		if err != nil || size != len(raw) {
			t.Errorf("%s: ListSize %d (%v), tools/list sends %d bytes", name, size, err, len(raw))
		}
		w1, err1 := catalogue.Weight(c.first)
		w2, err2 := catalogue.Weight(c.second)
		if err1 != nil || err2 != nil || len(all) > 0 && catalogue.ListEnvelope+w1+w2-1 != len(raw) {
			t.Errorf("%s: the parts weigh %d and %d (%v, %v), which do not add up to %d", name, w1, w2, err1, err2, len(raw))
		}
	}
}

func TestInToolsetIsTheToolsOfThatToolsetAndZeroIsGetMe(t *testing.T) {
	files := inToolset("read_file_thing", catalogue.ReadsOnly, config.ToolsetFiles)
	cat, err := catalogue.New([]catalogue.Tool{getMe(), tool("read_b", catalogue.ReadsOnly), files, tool("read_a", catalogue.ReadsOnly)})
	if err != nil {
		t.Fatal(err)
	}
	for set, want := range map[config.Toolset][]string{
		0:                      {catalogue.AlwaysOffered},
		config.ToolsetChannels: {"read_a", "read_b"},
		config.ToolsetFiles:    {"read_file_thing"},
		config.ToolsetStatus:   nil,
	} {
		var got []string
		for _, tl := range cat.InToolset(set) {
			got = append(got, tl.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("toolset %s: %v, want %v", set.Name(), got, want)
		}
	}
}
