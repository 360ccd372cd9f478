package prompts

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// needs is the toolsets each prompt's content needs, written out here
// rather than read from the prompts, so the governance test checks them.
var needs = map[string]config.Toolset{
	"catch_up":          config.ToolsetChannels,
	"summarize_channel": config.ToolsetChannels,
	"summarize_thread":  config.ToolsetChannels,
	"draft_reply":       config.ToolsetChannels,
	"find_file":         config.ToolsetFiles,
}

func realSet(t *testing.T, cfg *config.Configuration) *Set {
	t.Helper()
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cat, func() config.Configuration { return *cfg })
	if err != nil {
		t.Fatalf("the prompts are malformed: %v", err)
	}
	return s
}

func listed(t *testing.T, s *Set) []string {
	t.Helper()
	srv := server.NewMCPServer("test", "0", server.WithPromptCapabilities(false), server.WithPromptFilter(s.Filter()))
	s.Register(srv)
	raw, err := json.Marshal(srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result mcp.ListPromptsResult `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Result.Prompts {
		names = append(names, p.Name)
	}
	return names
}

// TestEveryPromptIsListedAndGivenExactlyWhenTheToolsetsItsContentNeedsAreOn
// walks every set of toolsets, writes on and off: the prompts listed, and
// those whose get is not refused as not offered, are the ones whose
// toolsets (written out above) are on. draft_reply's last step needs writes
// only for itself, so writes never hide it.
func TestEveryPromptIsListedAndGivenExactlyWhenTheToolsetsItsContentNeedsAreOn(t *testing.T) {
	cfg := config.Defaults()
	s := realSet(t, &cfg)
	if len(s.All()) != len(needs) {
		t.Fatalf("%d prompts, %d written out here: a new prompt needs its toolsets here", len(s.All()), len(needs))
	}
	for mask := range config.Toolset(config.AllToolsets + 1) {
		for _, writes := range []bool{false, true} {
			cfg = config.Defaults()
			cfg.Toolsets, cfg.AllowWrites = mask, writes
			var want []string
			for name, set := range needs {
				if mask&set == set {
					want = append(want, name)
				}
			}
			slices.Sort(want)
			if got := listed(t, s); !slices.Equal(got, want) {
				t.Fatalf("toolsets %b, writes %v: listed %v, want %v", mask, writes, got, want)
			}
			for name := range needs {
				refused := strings.Contains(s.InvalidParams(context.Background(), "prompts/get", []byte(`{"name":"`+name+`","arguments":{"thread":"`+strings.Repeat("a", 26)+`","channel":"x","words":"x"}}`)), "not offered")
				if refused == slices.Contains(want, name) {
					t.Fatalf("toolsets %b, writes %v: get of %s refused as not offered: %v", mask, writes, name, refused)
				}
			}
		}
	}
}

func TestABadArgumentIsRefusedNamingTheAllowedForm(t *testing.T) {
	cfg := config.Defaults()
	s := realSet(t, &cfg)
	get := func(name, args string) string {
		return s.InvalidParams(context.Background(), "prompts/get", []byte(`{"name":"`+name+`","arguments":`+args+`}`))
	}
	post := strings.Repeat("p", 26)
	for _, tc := range []struct{ name, args, says string }{
		{"summarize_thread", `{}`, `needs the argument "thread"`},
		{"summarize_thread", `{"thread":"not a post"}`, "post id (26 letters and digits) or its permalink"},
		{"summarize_channel", `{"channel":"town-square","since":"last tuesday"}`, "RFC 3339"},
		{"summarize_channel", `{"channel":"town-square","colour":"red"}`, `no argument "colour"; it takes channel (required`},
		{"find_file", `{"words":"` + strings.Repeat("w", maxArgumentBytes+1) + `"}`, "at most 1024"},
		{"no_such_prompt", `{}`, "prompts/list lists the prompts offered"},
		{"catch_up", `{"x":1}`, "every argument's value is a string"},
	} {
		if got := get(tc.name, tc.args); !strings.Contains(got, tc.says) {
			t.Errorf("%s %s: %q, want it to say %q", tc.name, tc.args, got, tc.says)
		}
	}
	for _, tc := range []struct{ name, args string }{
		{"summarize_thread", `{"thread":"` + post + `"}`},
		{"summarize_thread", `{"thread":"https://chat.example.com/team/pl/` + post + `"}`},
		{"summarize_channel", `{"channel":"town-square","since":"2026-05-01"}`},
		{"summarize_channel", `{"channel":"town-square","team":"eng","since":"2026-05-01T09:00:00Z"}`},
		{"catch_up", `{}`},
	} {
		if got := get(tc.name, tc.args); got != "" {
			t.Errorf("%s %s was refused: %q", tc.name, tc.args, got)
		}
	}
	if got := s.InvalidParams(context.Background(), "tools/call", []byte(`{"name":"x"}`)); got != "" {
		t.Errorf("another method was checked: %q", got)
	}
}

func TestEveryArgumentSaysWhatCompletesIt(t *testing.T) {
	cfg := config.Defaults()
	s := realSet(t, &cfg)
	kinds := s.Completions()
	for _, p := range s.All() {
		for _, a := range p.Arguments {
			if _, ok := kinds[p.Name][a.Name]; !ok {
				t.Errorf("%s's argument %s has no completion", p.Name, a.Name)
			}
		}
	}
}
