package catalogue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue/cataloguetest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

type noArgs struct{}

type done struct {
	Done bool `json:"done"`
}

func tool(name string, effect catalogue.Effect) catalogue.Tool {
	hints := catalogue.Hints{ReadOnly: effect == catalogue.ReadsOnly}
	return catalogue.Define(catalogue.Tool{Name: name, Title: name, Description: name, Hints: hints, Effect: effect, Toolset: config.ToolsetChannels},
		func(context.Context, noArgs) (catalogue.Result[done], error) {
			return catalogue.Result[done]{Text: "done", Data: done{Done: true}}, nil
		})
}

func sample(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	cat, err := catalogue.New([]catalogue.Tool{
		tool("read_thing", catalogue.ReadsOnly),
		tool("post_thing", catalogue.ChangesMattermost),
		tool("workspace_thing", catalogue.ChangesOwnWorkspace),
		tool("own_view_thing", catalogue.ChangesOwnView),
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestWithWritesOffAToolThatWritesIsNeitherListedNorCallable(t *testing.T) {
	cfg := config.Defaults()
	listed, callable := cataloguetest.Exposure(t, sample(t), cfg)
	for _, name := range []string{"read_thing", "workspace_thing"} {
		if !slices.Contains(listed, name) || !slices.Contains(callable, name) {
			t.Errorf("%s should be listed and callable with writes off; listed %v callable %v", name, listed, callable)
		}
	}
	for _, name := range []string{"post_thing", "own_view_thing"} {
		if slices.Contains(listed, name) || slices.Contains(callable, name) {
			t.Errorf("%s writes and must be hidden with writes off; listed %v callable %v", name, listed, callable)
		}
	}
}

func TestWithWritesOnEveryToolIsListedAndCallable(t *testing.T) {
	cfg := config.Defaults()
	cfg.AllowWrites = true
	listed, callable := cataloguetest.Exposure(t, sample(t), cfg)
	want := []string{"own_view_thing", "post_thing", "read_thing", "workspace_thing"}
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
		func(context.Context, args) (catalogue.Result[done], error) {
			return catalogue.Result[done]{Text: "ok"}, nil
		})
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

func TestAnArgumentOfTheWrongTypeIsRefusedNamingTheArgumentAndTheTypeItTakes(t *testing.T) {
	type entry struct {
		Name string `json:"name"`
	}
	type args struct {
		Limit   int      `json:"limit,omitempty"`
		Private *bool    `json:"private,omitempty"`
		Users   []string `json:"users,omitempty"`
		Files   []entry  `json:"files,omitempty"`
	}
	called := false
	tl := catalogue.Define(catalogue.Tool{Name: "read_channel", Title: "r", Description: "r", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, args) (catalogue.Result[done], error) {
			called = true
			return catalogue.Result[done]{Text: "ok"}, nil
		})
	for _, c := range []struct {
		arguments any
		want      string
	}{
		{map[string]any{"limit": "30"}, "read_channel: argument `limit` takes an integer; you sent a string. Call it again with `limit` as an integer."},
		{map[string]any{"limit": 1.5}, "argument `limit` takes an integer; you sent the number 1.5."},
		{map[string]any{"private": "yes"}, "argument `private` takes true or false; you sent a string."},
		{map[string]any{"users": "@bob"}, "argument `users` takes a list of strings; you sent a string."},
		{map[string]any{"files": []any{map[string]any{"name": 3}}}, "argument `files.name` takes a string; you sent a number."},
		{[]any{1}, "The arguments to read_channel are an object of named arguments; you sent a list."},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Arguments = c.arguments
		res, err := tl.Handler(context.Background(), req)
		if err != nil || res == nil || !res.IsError || called {
			t.Fatalf("%v: want a tool error before the handler runs, got %+v %v", c.arguments, res, err)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if !strings.Contains(text, c.want) || strings.Contains(text, "Go struct") || strings.Contains(text, "json:") {
			t.Errorf("%v: %q, want it to say %q", c.arguments, text, c.want)
		}
	}
}

func TestARefusalBecomesAToolErrorThatSaysWhatToDo(t *testing.T) {
	tl := catalogue.Define(catalogue.Tool{Name: "no", Title: "n", Description: "n", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, noArgs) (catalogue.Result[done], error) {
			return catalogue.Result[done]{}, fmt.Errorf("wrapped: %w", refusal.New("Nothing here.", "Call list_things."))
		})
	res, err := tl.Handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || !res.IsError || res.StructuredContent != nil {
		t.Fatalf("want a tool error without structured content, got %+v %v", res, err)
	}
	if text := res.Content[0].(mcp.TextContent).Text; text != "Nothing here. Call list_things." {
		t.Fatalf("refusal text %q", text)
	}
}

func TestAFailureIsNotWordedAsARefusal(t *testing.T) {
	tl := catalogue.Define(catalogue.Tool{Name: "fail", Title: "f", Description: "f", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, noArgs) (catalogue.Result[done], error) {
			return catalogue.Result[done]{}, errors.New("database down")
		})
	if _, err := tl.Handler(context.Background(), mcp.CallToolRequest{}); err == nil {
		t.Fatal("a failure inside Mattermost was turned into a refusal")
	}
}

func TestTheOutputSchemaComesFromTheResultStruct(t *testing.T) {
	tl := tool("read_thing", catalogue.ReadsOnly)
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tl.MCP().RawOutputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["done"] == nil {
		t.Fatalf("output schema %s does not describe the result struct", tl.OutputSchema)
	}
	res, err := tl.Handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || res.StructuredContent != (done{Done: true}) {
		t.Fatalf("structured content %+v, %v", res, err)
	}
}

func TestAnArgumentTheToolDoesNotTakeIsRefusedNamingTheOnesItTakes(t *testing.T) {
	type entry struct {
		Name string `json:"name,omitempty"`
	}
	type args struct {
		Channel string  `json:"channel"`
		Files   []entry `json:"files,omitempty"`
	}
	called := false
	tl := catalogue.Define(catalogue.Tool{Name: "post", Title: "p", Description: "p", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, args) (catalogue.Result[done], error) {
			called = true
			return catalogue.Result[done]{Text: "ok"}, nil
		})
	for name, arguments := range map[string]any{
		"at the top":      map[string]any{"channel": "town", "channel_id": "x"},
		"in a file entry": map[string]any{"channel": "town", "files": []any{map[string]any{"name": "a", "path": "/etc"}}},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Arguments = arguments
		res, err := tl.Handler(context.Background(), req)
		if err != nil || !res.IsError || called {
			t.Fatalf("%s: want a tool error before the handler runs, got %+v %v (handler ran: %v)", name, res, err, called)
		}
		if text := res.Content[0].(mcp.TextContent).Text; !strings.Contains(text, "It takes: channel, files.") {
			t.Errorf("%s: the error does not name the arguments the tool takes: %q", name, text)
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Arguments = map[string]any{"channel": "town", "files": []any{map[string]any{"name": "a"}}}
	if res, err := tl.Handler(context.Background(), req); err != nil || res.IsError || !called {
		t.Fatalf("arguments the tool takes were refused: %+v %v", res, err)
	}
}

func TestTheInputSchemaListsOneTypePerArgument(t *testing.T) {
	type args struct {
		Users []string          `json:"users,omitempty"`
		Tags  map[string]string `json:"tags,omitempty"`
	}
	tl := catalogue.Define(catalogue.Tool{Name: "t", Title: "t", Description: "t", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, args) (catalogue.Result[done], error) { return catalogue.Result[done]{}, nil })
	if s := string(tl.InputSchema); strings.Contains(s, `"null"`) || strings.Contains(s, "additionalProperties\":false") ||
		!strings.Contains(s, `"users":{"items":{"type":"string"},"type":"array"}`) {
		t.Fatalf("input schema %s: want plain types and no additionalProperties", s)
	}
}

func TestAResultFieldLeftOutWhenEmptyIsNeverDeclaredNullable(t *testing.T) {
	type out struct {
		Kept    []string `json:"kept"`
		Omitted []string `json:"omitted,omitempty"`
	}
	tl := catalogue.Define(catalogue.Tool{Name: "t", Title: "t", Description: "t", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, noArgs) (catalogue.Result[out], error) { return catalogue.Result[out]{}, nil })
	want := `{"properties":{"kept":{"type":"array"},"omitted":{"type":"array"}},"type":"object"}`
	if string(tl.OutputSchema) != want {
		t.Fatalf("output schema %s, want %s", tl.OutputSchema, want)
	}
}

func TestAnEmptyListInAResultIsEncodedAsAnEmptyListAsItsOneTypeSays(t *testing.T) {
	type entry struct {
		Tags []string `json:"tags"`
	}
	type place struct {
		ID      string   `json:"id"`
		Members []string `json:"members"`
	}
	type out struct {
		Items   []entry             `json:"items"`
		Names   []string            `json:"names"`
		ByKey   map[string][]string `json:"by_key"`
		Counts  map[string]int      `json:"counts"`
		Place   *place              `json:"place"`
		Where   *place              `json:"where,omitempty"`
		Omitted []string            `json:"omitted,omitempty"`
	}
	returned := out{Items: []entry{{}}, ByKey: map[string][]string{"a": nil}, Where: &place{ID: "x"}}
	tl := catalogue.Define(catalogue.Tool{Name: "t", Title: "t", Description: "t", Hints: catalogue.Hints{ReadOnly: true}},
		func(context.Context, noArgs) (catalogue.Result[out], error) {
			return catalogue.Result[out]{Data: returned}, nil
		})

	// One type per node: a list is an array, never null; a pointer that
	// may be null is anyOf null and its object; an object lists its fields.
	wantSchema := `{"properties":{"by_key":{"additionalProperties":{"type":"array"},"type":"object"},` +
		`"counts":{"additionalProperties":{"type":"integer"},"type":"object"},"items":{"type":"array"},"names":{"type":"array"},` +
		`"omitted":{"type":"array"},"place":{"anyOf":[{"type":"null"},{"properties":{"id":{"type":"string"},"members":{"type":"array"}},"type":"object"}]},` +
		`"where":{"properties":{"id":{"type":"string"},"members":{"type":"array"}},"type":"object"}},"type":"object"}`
	if string(tl.OutputSchema) != wantSchema {
		t.Errorf("output schema\n %s\nwant\n %s", tl.OutputSchema, wantSchema)
	}

	res, err := tl.Handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	if _, ok := res.StructuredContent.(out); !ok {
		t.Fatalf("structured content is a %T, not the result struct readers assert", res.StructuredContent)
	}
	encoded, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":[{"tags":[]}],"names":[],"by_key":{"a":[]},"counts":{},"place":null,"where":{"id":"x","members":[]}}`
	if string(encoded) != want {
		t.Errorf("structured content %s, want %s", encoded, want)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(tl.OutputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(encoded, &instance); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Errorf("the encoded result breaks its own output schema: %v", err)
	}
	if returned.Items[0].Tags != nil || returned.ByKey["a"] != nil || returned.Where.Members != nil {
		t.Errorf("encoding changed the handler's own result (it may share its lists with a cache): %+v", returned)
	}
}

func TestAToolThatTakesNoArgumentsListsAnEmptySetOfThemNotABareObject(t *testing.T) {
	if got := string(tool("read_thing", catalogue.ReadsOnly).InputSchema); got != `{"properties":{},"type":"object"}` {
		t.Fatalf("input schema %s, want an object with no properties", got)
	}
}

func TestAToolThatNeedsWhatTheServerLacksIsNeitherListedNorCallableEvenWithWritesOn(t *testing.T) {
	needy := tool("schedule_thing", catalogue.ChangesMattermost)
	needy.Needs = config.ScheduledPosts
	cat, err := catalogue.New([]catalogue.Tool{needy, tool("read_thing", catalogue.ReadsOnly)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.AllowWrites = true
	listed, callable := cataloguetest.Exposure(t, cat, cfg)
	if slices.Contains(listed, "schedule_thing") || slices.Contains(callable, "schedule_thing") || !slices.Contains(listed, "read_thing") {
		t.Fatalf("without the feature: listed %v, callable %v", listed, callable)
	}
	cfg.Server = config.ScheduledPosts
	listed, callable = cataloguetest.Exposure(t, cat, cfg)
	if !slices.Contains(listed, "schedule_thing") || !slices.Contains(callable, "schedule_thing") {
		t.Fatalf("with the feature and writes on: listed %v, callable %v", listed, callable)
	}
	cfg.AllowWrites = false
	if listed, callable = cataloguetest.Exposure(t, cat, cfg); slices.Contains(listed, "schedule_thing") || slices.Contains(callable, "schedule_thing") {
		t.Fatalf("with the feature but writes off: listed %v, callable %v", listed, callable)
	}
}
