package catalogue_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue/catalogtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

type noArgs struct{}

func tool(name string, effect catalogue.Effect) catalogue.Tool {
	hints := catalogue.Hints{ReadOnly: effect == catalogue.ReadsOnly}
	return catalogue.Define(catalogue.Tool{Name: name, Title: name, Description: name, Hints: hints, Effect: effect},
		func(context.Context, noArgs) (*mcp.CallToolResult, error) { return mcp.NewToolResultText("done"), nil })
}

func sample(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	cat, err := catalogue.New([]catalogue.Tool{
		tool("read_thing", catalogue.ReadsOnly),
		tool("post_thing", catalogue.ChangesMattermost),
		tool("workspace_thing", catalogue.ChangesOwnWorkspace),
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestWithWritesOffAToolThatWritesIsNeitherListedNorCallable(t *testing.T) {
	cfg := config.Defaults()
	listed, callable := catalogtest.Exposure(t, sample(t), cfg)
	for _, name := range []string{"read_thing", "workspace_thing"} {
		if !slices.Contains(listed, name) || !slices.Contains(callable, name) {
			t.Errorf("%s should be listed and callable with writes off; listed %v callable %v", name, listed, callable)
		}
	}
	if slices.Contains(listed, "post_thing") || slices.Contains(callable, "post_thing") {
		t.Errorf("post_thing writes and must be hidden with writes off; listed %v callable %v", listed, callable)
	}
}

func TestWithWritesOnEveryToolIsListedAndCallable(t *testing.T) {
	cfg := config.Defaults()
	cfg.AllowWrites = true
	listed, callable := catalogtest.Exposure(t, sample(t), cfg)
	want := []string{"post_thing", "read_thing", "workspace_thing"}
	if !slices.Equal(listed, want) || !slices.Equal(callable, want) {
		t.Fatalf("listed %v callable %v, want %v", listed, callable, want)
	}
}

func TestEveryToolIsListedWithAllFourHintsExplicit(t *testing.T) {
	for _, tl := range sample(t).All() {
		a := tl.MCP().Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s leaves an annotation hint unset: %+v", tl.Name, a)
		}
	}
}

func TestAMalformedCatalogueIsRefused(t *testing.T) {
	readOnlyWriter := tool("liar", catalogue.ChangesMattermost)
	readOnlyWriter.Hints.ReadOnly = true
	cases := map[string][]catalogue.Tool{
		"duplicate name":                 {tool("a", catalogue.ReadsOnly), tool("a", catalogue.ReadsOnly)},
		"writer marked read-only":        {readOnlyWriter},
		"tool without a handler":         {{Name: "b", Title: "b", Description: "b", Hints: catalogue.Hints{ReadOnly: true}}},
		"reader not marked as read-only": {func() catalogue.Tool { x := tool("c", catalogue.ReadsOnly); x.Hints.ReadOnly = false; return x }()},
	}
	for name, tools := range cases {
		if _, err := catalogue.New(tools); err == nil {
			t.Errorf("%s: catalogue accepted", name)
		}
	}
}

func TestArgumentsThatDoNotMatchTheSchemaAnswerWhatToDo(t *testing.T) {
	type args struct {
		Count int `json:"count"`
	}
	tl := catalogue.Define(catalogue.Tool{Name: "count", Title: "c", Description: "c", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, args) (*mcp.CallToolResult, error) { return mcp.NewToolResultText("ok"), nil })
	req := mcp.CallToolRequest{}
	req.Params.Name = "count"
	req.Params.Arguments = map[string]any{"count": "many"}
	res, err := tl.Handler(context.Background(), req)
	if err != nil || !res.IsError {
		t.Fatalf("want a tool error, got %v %v", res, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if !strings.Contains(text, "Call it again") {
		t.Fatalf("refusal does not say what to do: %q", text)
	}
	if !strings.Contains(string(tl.InputSchema), `"count"`) {
		t.Fatalf("schema does not come from the struct: %s", tl.InputSchema)
	}
}
