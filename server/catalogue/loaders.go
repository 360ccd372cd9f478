package catalogue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// A connection that chose what it loads (config.Choice) has the rest one
// call away: find_tools searches the catalogue, load_tools adds toolsets or
// tools to the connection. The catalogue answers both about itself.

const (
	// FindTools searches the tools a connection may load.
	FindTools = "find_tools"
	// LoadTools adds toolsets or tools to the connection.
	LoadTools = "load_tools"
	// maxFound bounds find_tools' answer: the best matches, each one line.
	maxFound = 10
	// maxLineBytes cuts a tool's description to its first sentence, at most
	// this long: enough to choose by, short enough for ten in one answer.
	maxLineBytes = 160
)

type findToolsArgs struct {
	Query string `json:"query" jsonschema:"Words of what you want done."`
}

// FoundTool is one match of find_tools.
type FoundTool struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	Line    string `json:"line"`
	Loaded  bool   `json:"loaded"`
}

// Found is find_tools' structured answer.
type Found struct {
	Tools []FoundTool `json:"tools"`
}

type loadToolsArgs struct {
	Toolsets []string `json:"toolsets,omitempty" jsonschema:"Toolsets, as find_tools names them."`
	Tools    []string `json:"tools,omitempty" jsonschema:"Tool names."`
}

// Loaded is load_tools' structured answer.
type Loaded struct {
	Added []string `json:"added"`
	// Query is the MCP URL's query that loads the same from the start.
	Query string `json:"query"`
	// ListAgain is set where the client hears no list_changed notice.
	ListAgain bool `json:"list_again,omitempty" jsonschema:"True where this server cannot tell the client its tool list changed: list tools again to see what was added."`
}

var loaderHints = Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false}

func (c *Catalogue) findTools() Tool {
	return Define(Tool{
		Name:        FindTools,
		Title:       "Find tools to load",
		Description: "Searches the tools you may load by what they do; each match with its toolset and whether it is loaded. Then load_tools.",
		Hints:       loaderHints, Effect: ReadsOnly,
	}, c.find)
}

func (c *Catalogue) loadTools() Tool {
	return Define(Tool{
		Name:        LoadTools,
		Title:       "Load more tools",
		Description: "Adds toolsets or tools to this connection, as find_tools names them; they are then listed and callable.",
		Hints:       loaderHints, Effect: ReadsOnly,
	}, c.load)
}

// loadable is whether a connection that chose ch may load t under cfg:
// the admin offers it, and a read-only connection takes no tool that writes.
func loadable(t Tool, cfg config.Configuration, ch config.Choice) bool {
	return t.Toolset != 0 && OfferedTo(t, cfg, config.Choice{ReadOnly: ch.ReadOnly})
}

func (c *Catalogue) find(ctx context.Context, args findToolsArgs) (Result[Found], error) {
	words := strings.Fields(strings.ToLower(args.Query))
	if len(words) == 0 {
		return Result[Found]{}, refusal.New("query is empty.", "Call find_tools again with words of what you want done, such as \"post a reply\".")
	}
	cfg, ch := c.current(), transport.ChoiceOf(ctx)
	type scored struct {
		t     Tool
		score int
	}
	var matches []scored
	for _, t := range c.tools {
		if !loadable(t, cfg, ch) {
			continue
		}
		text := strings.ToLower(t.Name + " " + strings.ReplaceAll(t.Name, "_", " ") + " " + t.Title + " " + t.Description + " " + t.Toolset.Name())
		score := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				score++
			}
		}
		if score > 0 {
			matches = append(matches, scored{t, score})
		}
	}
	sort.SliceStable(matches, func(i, j int) bool { return matches[i].score > matches[j].score })
	found := Found{Tools: []FoundTool{}}
	var b strings.Builder
	for i, m := range matches {
		if i == maxFound {
			break
		}
		f := FoundTool{Name: m.t.Name, Toolset: m.t.Toolset.Name(), Line: firstSentence(m.t.Description), Loaded: OfferedTo(m.t, cfg, ch)}
		found.Tools = append(found.Tools, f)
		state := "not loaded"
		if f.Loaded {
			state = "loaded"
		}
		fmt.Fprintf(&b, "- %s (toolset %s, %s): %s\n", f.Name, f.Toolset, state, f.Line)
	}
	if len(found.Tools) == 0 {
		return Result[Found]{Text: fmt.Sprintf("No tool you may load matches %q. Try other words; get_me tells what the admin allows.", args.Query), Data: found}, nil
	}
	head := fmt.Sprintf("%d of %d tools you may load match %q:\n", len(found.Tools), len(matches), args.Query)
	return Result[Found]{Text: head + b.String() + `Load one with load_tools {"tools":["name"]} or its toolset with {"toolsets":["toolset"]}.`, Data: found}, nil
}

// firstSentence is a description's first sentence, cut to maxLineBytes.
func firstSentence(d string) string {
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	if len(d) > maxLineBytes {
		d = d[:maxLineBytes] + "…"
	}
	return d
}

func (c *Catalogue) load(ctx context.Context, args loadToolsArgs) (Result[Loaded], error) {
	if len(args.Toolsets) == 0 && len(args.Tools) == 0 {
		return Result[Loaded]{}, refusal.New("load_tools names no toolset and no tool.", `Call it with {"toolsets":["files"]} or {"tools":["read_file"]}; find_tools names them.`)
	}
	asked, err := c.Choose(strings.Join(args.Toolsets, ","), strings.Join(args.Tools, ","), "")
	if err != nil {
		return Result[Loaded]{}, refusal.New("load_tools was not done: "+err.Error()+".", "Call it again with names as find_tools gives them.")
	}
	cfg, before := c.current(), transport.ChoiceOf(ctx)
	after := before
	after.Chosen = true
	after.Toolsets |= asked.Toolsets
	after.Light = before.Light || asked.Light
	after.Tools = slices.Clone(before.Tools)
	var refused []string
	for _, name := range asked.Tools {
		t := c.byName[name]
		if !loadable(t, cfg, before) {
			why := "the admin does not offer it (get_me says why)"
			if OfferedTo(t, cfg, config.Choice{}) {
				why = "it writes and this connection is read-only"
			}
			refused = append(refused, name+": "+why)
			continue
		}
		if !OfferedTo(t, cfg, after) {
			after.Tools = append(after.Tools, name)
		}
	}
	for _, set := range config.Toolsets() {
		if asked.Toolsets&set != 0 && !cfg.HasToolset(set) {
			refused = append(refused, fmt.Sprintf("the admin has turned off the toolset %q", set.Name()))
		}
	}
	if len(after.Tools) > config.MaxChosenTools {
		return Result[Loaded]{}, refusal.New(fmt.Sprintf("this connection would load %d tools by name; at most %d.", len(after.Tools), config.MaxChosenTools),
			"Load their toolsets instead: find_tools names each tool's toolset.")
	}
	res := Loaded{Added: []string{}, Query: after.Query()}
	for _, t := range c.tools {
		if OfferedTo(t, cfg, after) && !OfferedTo(t, cfg, before) {
			res.Added = append(res.Added, t.Name)
		}
	}
	var b strings.Builder
	if len(res.Added) == 0 {
		b.WriteString("Nothing was added: ")
		if len(refused) == 0 {
			b.WriteString("what you named is loaded already. Call it directly.")
		}
	}
	if len(refused) > 0 {
		fmt.Fprintf(&b, "Not loaded: %s. ", strings.Join(refused, "; "))
	}
	if len(res.Added) == 0 {
		return Result[Loaded]{Text: strings.TrimSpace(b.String()), Data: res}, nil
	}
	err = transport.SetChoice(ctx, after)
	switch {
	case errors.Is(err, transport.ErrNoSession):
		fmt.Fprintf(&b, "This client has no MCP session to keep tools in (protocol 2026-07-28), so nothing was added. To load %s, connect with the MCP URL's query ?%s, or send the headers %s and %s.",
			strings.Join(res.Added, ", "), res.Query, transport.HeaderToolsets, transport.HeaderTools)
		res.Added = []string{}
		return Result[Loaded]{Text: b.String(), Data: res, NotDone: true}, nil
	case err != nil:
		return Result[Loaded]{}, err
	}
	fmt.Fprintf(&b, "Added %d tools to this connection: %s. They are listed from now on; call them directly.", len(res.Added), strings.Join(res.Added, ", "))
	if !transport.HearsListChanges(ctx) {
		// No notice can reach the client here: it learns of them from
		// this answer, and its host from a list it asks for.
		b.WriteString(" This server cannot tell your client that its tool list changed: list tools again (tools/list) so your client shows them.")
		res.ListAgain = true
	}
	return Result[Loaded]{Text: b.String(), Data: res}, nil
}
