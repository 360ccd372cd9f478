// Package prompts describes the MCP prompts (which clients offer as slash
// commands) as data, and decides from the tools' one rule which of them a
// configuration offers: a prompt is offered exactly when every tool whose
// answer it embeds is (catalogue.Offered). Its messages embed those tools'
// own answers, so the prompts read through the same access rules, windows
// and bounds as the tools, and say what they left out and the next call.
package prompts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/completion"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Argument is one argument of a prompt.
type Argument struct {
	Name        string
	Description string
	Required    bool
	// Completes is what completes it (completion.Free for free text).
	Completes completion.Kind
	// check says what is wrong with a value given, naming the allowed
	// form, or "" when it is well formed; nil accepts any value.
	check func(string) string
}

// Prompt is one entry of the set.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []Argument
	// Reads are the tools whose answers the messages embed: the prompt is
	// offered only while the configuration offers every one of them.
	Reads []string
	// Ends are the tools one of which the last step the messages suggest
	// calls (draft_reply: save_draft or create_post). They do not decide
	// whether the prompt is offered: the messages say which is offered now.
	Ends []string
	// build writes the messages from the arguments, already checked.
	build func(ctx context.Context, r *reader, args map[string]string) []mcp.PromptMessage
}

// MCP is the prompt as prompts/list shows it.
func (p Prompt) MCP() mcp.Prompt {
	out := mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return out
}

// Set is the fixed set of prompts, over the catalogue whose tools they read.
type Set struct {
	prompts []Prompt
	byName  map[string]Prompt
	cat     *catalogue.Catalogue
	current func() config.Configuration
}

// New checks every prompt is well formed and names only tools of the
// catalogue; a malformed set is a programming error caught by tests.
func New(cat *catalogue.Catalogue, current func() config.Configuration) (*Set, error) {
	s := &Set{byName: map[string]Prompt{}, cat: cat, current: current}
	for _, p := range all() {
		if p.Name == "" || p.Title == "" || p.Description == "" || p.build == nil || len(p.Reads) == 0 {
			return nil, fmt.Errorf("prompt %q needs a name, a title, a description, the tools it reads and a builder", p.Name)
		}
		if _, dup := s.byName[p.Name]; dup {
			return nil, fmt.Errorf("prompt %q is defined twice", p.Name)
		}
		for _, name := range append(slices.Clone(p.Reads), p.Ends...) {
			if _, ok := cat.Tool(name); !ok {
				return nil, fmt.Errorf("prompt %q names the tool %q, which the catalogue lacks", p.Name, name)
			}
		}
		for _, a := range p.Arguments {
			if a.Name == "" || a.Description == "" {
				return nil, fmt.Errorf("prompt %q has an argument without a name or a description", p.Name)
			}
		}
		s.byName[p.Name] = p
		s.prompts = append(s.prompts, p)
	}
	sort.Slice(s.prompts, func(i, j int) bool { return s.prompts[i].Name < s.prompts[j].Name })
	return s, nil
}

// All is every prompt, offered or not, sorted by name.
func (s *Set) All() []Prompt { return slices.Clone(s.prompts) }

// Offered is the rule: a configuration offers a prompt to a connection
// that chose ch when it offers it every tool the prompt reads
// (catalogue.OfferedTo, the tools' one rule; package paths).
func (s *Set) Offered(p Prompt, c config.Configuration, ch config.Choice) bool {
	return s.notOffered(p, c, ch) == ""
}

// OfferedTo is whether the prompt called name is offered to the
// connection of ctx now.
func (s *Set) OfferedTo(ctx context.Context, name string) bool {
	p, ok := s.byName[name]
	return ok && s.Offered(p, s.current(), transport.ChoiceOf(ctx))
}

// notOffered is why c does not offer p to a connection that chose ch, for
// the model, or "".
func (s *Set) notOffered(p Prompt, c config.Configuration, ch config.Choice) string {
	for _, name := range p.Reads {
		t, _ := s.cat.Tool(name)
		if r := catalogue.NotOfferedTo(t, c, ch); r != nil {
			return fmt.Sprintf("The prompt %s is not offered here: it reads with %s, which is not offered (%s)", p.Name, name, r.What)
		}
	}
	return ""
}

// Completions is, prompt by prompt, what completes each argument.
func (s *Set) Completions() map[string]map[string]completion.Kind {
	out := map[string]map[string]completion.Kind{}
	for _, p := range s.prompts {
		out[p.Name] = map[string]completion.Kind{}
		for _, a := range p.Arguments {
			out[p.Name][a.Name] = a.Completes
		}
	}
	return out
}

// Register adds every prompt to the MCP server. Filter, installed on it,
// decides on each list and get what is offered.
func (s *Set) Register(srv *server.MCPServer) {
	for _, p := range s.prompts {
		srv.AddPrompt(p.MCP(), s.handler(p))
	}
}

// Filter is the mcp-go prompt filter for the current configuration.
func (s *Set) Filter() server.PromptFilterFunc {
	return func(ctx context.Context, listed []mcp.Prompt) []mcp.Prompt {
		cfg, ch := s.current(), transport.ChoiceOf(ctx)
		out := listed[:0:0]
		for _, lp := range listed {
			if p, ok := s.byName[lp.Name]; ok && s.Offered(p, cfg, ch) {
				out = append(out, lp)
			}
		}
		return out
	}
}

func (s *Set) handler(p Prompt) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if why := s.invalid(p, req.Params.Arguments); why != "" {
			// The transport answers this as invalid params before it gets
			// here (InvalidParams); this is the same check, for any other way in.
			return nil, fmt.Errorf("%s", why)
		}
		r := &reader{cat: s.cat, cfg: s.current(), ch: transport.ChoiceOf(ctx)}
		msgs := p.build(ctx, r, trimmed(req.Params.Arguments))
		return mcp.NewGetPromptResult(p.Title, msgs), nil
	}
}

// InvalidParams is why a prompts/get request is malformed or asks for a
// prompt not offered, naming the allowed form (transport.Options
// InvalidParams); "" for any other request and a well-formed one.
func (s *Set) InvalidParams(ctx context.Context, method string, params json.RawMessage) string {
	if method != string(mcp.MethodPromptsGet) {
		return ""
	}
	var get mcp.GetPromptParams
	if len(params) > 0 && !bytes.Equal(params, []byte("null")) {
		if err := json.Unmarshal(params, &get); err != nil {
			return "prompts/get takes params {\"name\": <prompt>, \"arguments\": {<argument>: <string>}}: every argument's value is a string."
		}
	}
	p, ok := s.byName[get.Name]
	if !ok {
		return fmt.Sprintf("There is no prompt %q: prompts/list lists the prompts offered.", boundedName(get.Name))
	}
	if why := s.notOffered(p, s.current(), transport.ChoiceOf(ctx)); why != "" {
		return why + ". prompts/list lists the prompts offered."
	}
	return s.invalid(p, get.Arguments)
}

// invalid checks the arguments of p against their form.
func (s *Set) invalid(p Prompt, args map[string]string) string {
	var names []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
	}
	form := p.form()
	for name := range args {
		if !slices.Contains(names, name) {
			return fmt.Sprintf("The prompt %s has no argument %q; it takes %s.", p.Name, boundedName(name), form)
		}
	}
	for _, a := range p.Arguments {
		v := strings.TrimSpace(args[a.Name])
		if v == "" {
			if a.Required {
				return fmt.Sprintf("The prompt %s needs the argument %q (%s); it takes %s.", p.Name, a.Name, a.Description, form)
			}
			continue
		}
		if len(v) > maxArgumentBytes {
			return fmt.Sprintf("The argument %q of %s is %d bytes; at most %d.", a.Name, p.Name, len(v), maxArgumentBytes)
		}
		if a.check != nil {
			if why := a.check(v); why != "" {
				return fmt.Sprintf("The argument %q of %s: %s", a.Name, p.Name, why)
			}
		}
	}
	return ""
}

// maxArgumentBytes bounds one argument: a channel name, a permalink or a
// few words, never a document.
const maxArgumentBytes = 1024

// form is the prompt's arguments as the error messages name them.
func (p Prompt) form() string {
	if len(p.Arguments) == 0 {
		return "no arguments"
	}
	var parts []string
	for _, a := range p.Arguments {
		req := "optional"
		if a.Required {
			req = "required"
		}
		parts = append(parts, fmt.Sprintf("%s (%s: %s)", a.Name, req, a.Description))
	}
	return strings.Join(parts, ", ")
}

func trimmed(args map[string]string) map[string]string {
	out := make(map[string]string, len(args))
	for k, v := range args {
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// boundedName cuts a name a client sent before it is repeated in an error.
func boundedName(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
