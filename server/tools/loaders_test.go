package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

func callLoader(t *testing.T, name string, ch config.Choice, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	tool, ok := realCatalogue(t).Tool(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, args
	res, err := tool.Handler(transport.WithChoice(context.Background(), ch), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestFindToolsAnswersEachMatchWithItsToolsetAndWhetherItIsLoaded(t *testing.T) {
	got := resultText(callLoader(t, catalogue.FindTools, config.Choice{Chosen: true, Light: true}, map[string]any{"query": "file"}))
	for _, want := range []string{"read_file (toolset files, loaded)", "get_file_info (toolset files, not loaded)", `load_tools {"tools":["name"]}`} {
		if !strings.Contains(got, want) {
			t.Errorf("find_tools file: %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "create_post") {
		t.Errorf("find_tools offers a tool that writes with writes off: %q", got)
	}
}

func TestLoadToolsWithoutASessionAnswersTheURLThatLoadsThem(t *testing.T) {
	res := callLoader(t, catalogue.LoadTools, config.Choice{Chosen: true, Light: true}, map[string]any{"toolsets": []any{"files"}})
	got := resultText(res)
	if !res.IsError || !strings.Contains(got, "?toolsets=files,light") || !strings.Contains(got, transport.HeaderToolsets) {
		t.Fatalf("load_tools without a session: %q", got)
	}
}

func TestLoadToolsRefusesAnUnknownToolsetNamingTheValidOnes(t *testing.T) {
	got := resultText(callLoader(t, catalogue.LoadTools, config.Choice{Chosen: true, Light: true}, map[string]any{"toolsets": []any{"filez"}}))
	if !strings.Contains(got, `unknown toolset "filez"`) || !strings.Contains(got, "channels, files, people") {
		t.Fatalf("load_tools filez: %q", got)
	}
}

func TestGetMeSaysWhatAConnectionThatChoseLoadsAndThatItIsReadOnly(t *testing.T) {
	got := loadsSentence(config.Choice{Chosen: true, Toolsets: config.ToolsetFiles, Light: true, ReadOnly: true})
	for _, want := range []string{"loads only files, the light start", "load_tools adds them", "read-only"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if loadsSentence(config.Choice{}) != "" {
		t.Error("a connection that chose nothing is told of a choice")
	}
}
