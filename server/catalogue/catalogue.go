// Package catalogue describes the MCP tools as data and decides, in one place,
// which of them a configuration offers. A tool that is not offered is neither
// listed nor callable.
package catalogue

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Hints are the MCP tool annotations. All four are always sent explicitly:
// clients assume the worst for a hint that is missing.
type Hints struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// Effect says what a tool changes, which decides when it is offered.
type Effect int

const (
	// ReadsOnly tools never change anything; always offered.
	ReadsOnly Effect = iota
	// ChangesOwnWorkspace tools change only the caller's own file workspace,
	// never Mattermost; always offered.
	ChangesOwnWorkspace
	// ChangesOwnView tools change only what the caller alone sees in
	// Mattermost (drafts, saved posts, followed threads, read marks); offered
	// only while the admin allows writes, and done without a question
	// because nobody else sees the change.
	ChangesOwnView
	// ChangesMattermost tools change what others see (post, edit, react,
	// delete, channels and members); offered only while the admin allows
	// writes, and confirmed by the person through the approval path.
	ChangesMattermost
)

// Tool is one entry of the catalogue.
type Tool struct {
	Name        string
	Title       string
	Description string
	Hints       Hints
	Effect      Effect
	// Needs is what the server must have for the tool to be offered (its
	// licence, its settings); zero for every server.
	Needs config.Feature
	// Toolset is the family the admin turns on or off with it: exactly one
	// config.Toolset, or zero for AlwaysOffered alone.
	Toolset config.Toolset
	// InputSchema is the JSON schema of the arguments, derived from the
	// argument struct by Define so schema and parsing cannot drift apart.
	InputSchema json.RawMessage
	// OutputSchema is the JSON schema of the structured result, derived
	// from the result struct by Define the same way.
	OutputSchema json.RawMessage
	// View is the MCP Apps view (a ui:// resource) a client that renders
	// apps shows the structured result in; "" for none.
	View string
	// Waits marks a reading tool that may wait longer than a call holds
	// (for a reply): like a write the person confirms, a call of it may be
	// a task the client's host follows.
	Waits bool
	// Light puts the tool in the light start (config.PresetLight): the
	// everyday reading core a connection may start with.
	Light bool
	// Files is how the tool takes or gives files beyond its own arguments,
	// for clients of the draft file transfer (package filetransfer).
	Files   FileUse
	Handler server.ToolHandlerFunc
}

// FileUse is what a tool does with files, as file transfer reads it.
type FileUse int

const (
	// NoFiles: file transfer leaves the tool alone.
	NoFiles FileUse = iota
	// TakesFiles: it takes the files of a post (files[]), and file URIs
	// beside them from a client that sends them.
	TakesFiles
	// GivesFile: its result may give a file a client can download.
	GivesFile
)

// Writes reports whether the tool changes anything in Mattermost, even
// only the caller's own view of it.
func (t Tool) Writes() bool { return t.Effect == ChangesMattermost || t.Effect == ChangesOwnView }

// Result is what a handler answers: the text the model reads first, the
// same facts as typed structured content (its type is the output schema),
// and any further content (images, audio, embedded files).
type Result[Out any] struct {
	Text string
	Data Out
	More []mcp.Content
	// NotDone marks a well-formed call whose write did not happen (declined,
	// failed): a tool error that still carries the structured facts.
	NotDone bool
	// Question, when set, is asked through the client; the client calls the
	// tool again with the answer. Text and Data are then unused.
	Question *Question
	// Meta is the result's _meta: what only a view reads (an MCP Apps
	// host hands it over; models are not shown it), kept out of the
	// output schema so tools/list does not grow.
	Meta map[string]any
}

// Question is a multi-round-trip question for the client to ask.
type Question struct {
	ID     string
	State  string
	Params mcp.ElicitationParams
}

// Define builds a Tool whose handler receives its arguments already decoded
// into Args and answers a typed Result. A bad argument and a refusal become
// a tool error the model can act on; any other error is a failure.
func Define[Args, Out any](t Tool, handle func(ctx context.Context, args Args) (Result[Out], error)) Tool {
	schemaTool := mcp.NewTool(t.Name, mcp.WithInputSchema[Args](), mcp.WithOutputSchema[Out]())
	t.InputSchema = inputSchema(schemaTool.RawInputSchema)
	if out, err := json.Marshal(schemaTool.OutputSchema); err == nil && len(schemaTool.OutputSchema.Properties) > 0 {
		t.OutputSchema = outputSchema(out, reflect.TypeFor[Out]())
	}
	accepted := argumentNames(t.InputSchema)
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started := time.Now()
		var args Args
		if err := bindArguments(req, &args); err != nil {
			return mcp.NewToolResultError(argumentError(t.Name, accepted, err)), nil
		}
		res, err := handle(transport.WithCall(ctx, t.Name, req, started), args)
		if r, ok := refusal.As(err); ok {
			return mcp.NewToolResultError(r.Error()), nil
		}
		if err != nil {
			return nil, err
		}
		return res.mcp(), nil
	}
	return t
}

// ToolResult is the result as a call answers it.
func (r Result[Out]) ToolResult() *mcp.CallToolResult { return r.mcp() }

func (r Result[Out]) mcp() *mcp.CallToolResult {
	if q := r.Question; q != nil {
		return server.NewInputRequestBuilder(q.State).Elicit(q.ID, q.Params).ToolResult()
	}
	content := append([]mcp.Content{mcp.NewTextContent(r.Text)}, r.More...)
	res := &mcp.CallToolResult{Content: content, StructuredContent: emptyLists(r.Data), IsError: r.NotDone}
	if r.Meta != nil {
		res.Meta = mcp.NewMetaFromMap(r.Meta)
	}
	return res
}

// MCP renders the tool as the protocol lists it.
func (t Tool) MCP() mcp.Tool {
	return mcp.Tool{
		Name:            t.Name,
		Title:           t.Title,
		Description:     t.Description,
		RawInputSchema:  t.InputSchema,
		RawOutputSchema: t.OutputSchema,
		Annotations: mcp.ToolAnnotation{
			ReadOnlyHint:    mcp.ToBoolPtr(t.Hints.ReadOnly),
			DestructiveHint: mcp.ToBoolPtr(t.Hints.Destructive),
			IdempotentHint:  mcp.ToBoolPtr(t.Hints.Idempotent),
			OpenWorldHint:   mcp.ToBoolPtr(t.Hints.OpenWorld),
		},
		Meta:      t.meta(),
		Execution: t.execution(),
	}
}

// MayWait is a tool whose call may wait longer than a call holds: a write
// the person confirms, or a tool marked Waits. A call of it may be a task
// the client's host follows.
func (t Tool) MayWait() bool { return t.Effect == ChangesMattermost || t.Waits }

// execution declares task support on the tools that may wait, and on no
// other: a task of a quick read would only add round trips.
func (t Tool) execution() *mcp.ToolExecution {
	if !t.MayWait() {
		return nil
	}
	return &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
}

// meta is the tool's _meta: the view it shows in, as the MCP Apps
// extension reads it, and the field ChatGPT fills with the files the
// person attached (chatfile.MetaKey); nil when it has neither.
func (t Tool) meta() *mcp.Meta {
	m := map[string]any{}
	if t.View != "" {
		m["ui"] = map[string]any{"resourceUri": t.View}
	}
	if t.Files == TakesFiles {
		m[chatfile.MetaKey] = []string{chatfile.Argument}
	}
	if len(m) == 0 {
		return nil
	}
	return mcp.NewMetaFromMap(m)
}

// AlwaysOffered is the one tool of no toolset, offered whatever the
// settings: it tells the model who the person is and what the admin
// allows, so a model can always learn why other tools are missing.
const AlwaysOffered = "get_me"

// Offered is whether the admin's configuration offers a tool to a
// connection that chose nothing (OfferedTo with the zero Choice).
func Offered(t Tool, c config.Configuration) bool { return OfferedTo(t, c, config.Choice{}) }

// OfferedTo is the single rule that decides whether a tool is offered to a
// connection: the server has what it needs, the admin did not leave it out,
// its toolset is on, a tool that writes needs writes allowed, and, inside
// that, the connection loaded it and, when it is read-only, the tool does
// not write. The admin's settings are the outer bound: nothing a connection
// chooses or loads brings back what they withhold. Listing and calling both
// go through it.
func OfferedTo(t Tool, c config.Configuration, ch config.Choice) bool {
	return withheld(t, c, ch) == (withholding{})
}

// withholding is each reason a tool is not offered: the admin's, then the
// connection's own.
type withholding struct {
	lacks, leftOut, toolsetOff, writesOff bool
	notLoaded, readOnly                   bool
}

func (w withholding) byAdmin() bool { return w.lacks || w.leftOut || w.toolsetOff || w.writesOff }

func withheld(t Tool, c config.Configuration, ch config.Choice) withholding {
	switch {
	case t.Name == AlwaysOffered: // check refuses any other tool of no toolset
		return withholding{}
	case t.Toolset == 0: // find_tools and load_tools: what a choice leaves out is one call away
		return withholding{notLoaded: !ch.Chosen}
	}
	return withholding{
		lacks:      !c.Has(t.Needs),
		leftOut:    c.Excludes(t.Name),
		toolsetOff: !c.HasToolset(t.Toolset),
		writesOff:  t.Writes() && !c.AllowWrites,
		notLoaded:  !ch.Loads(t.Toolset) && !(ch.Light && t.Light) && !slices.Contains(ch.Tools, t.Name),
		readOnly:   t.Writes() && ch.ReadOnly,
	}
}

// NotOffered is why c does not offer t, worded for the model with the next
// step; nil when c offers it.
func NotOffered(t Tool, c config.Configuration) *refusal.Error {
	return NotOfferedTo(t, c, config.Choice{})
}

// NotOfferedTo is why t is not offered to a connection that chose ch,
// worded for the model with the next step; nil when it is offered. A call
// of a tool not offered is answered with it, without running the tool.
func NotOfferedTo(t Tool, c config.Configuration, ch config.Choice) *refusal.Error {
	w := withheld(t, c, ch)
	switch {
	case w == (withholding{}):
		return nil
	case !w.byAdmin() && w.readOnly:
		return refusal.New(fmt.Sprintf("%s changes Mattermost and this connection is read-only (read_only in its MCP URL or header), so it was not run.", t.Name),
			"Do not call it again: tell the person what you would have done; they can connect without read_only to allow it.")
	case !w.byAdmin() && t.Toolset == 0:
		return refusal.New(t.Name+" is not offered: this connection loads every tool the admin allows, so there is nothing to find or load.",
			"Call the tool you need directly; get_me tells what is offered.")
	case !w.byAdmin():
		return refusal.New(fmt.Sprintf("%s is not loaded on this connection (toolset %q), so it was not run.", t.Name, t.Toolset.Name()),
			fmt.Sprintf(`Call load_tools {"tools":[%q]} to load it (or {"toolsets":[%q]}), then call it again.`, t.Name, t.Toolset.Name()))
	}
	return refusal.New(fmt.Sprintf("%s is not offered on this Mattermost and was not run: %s.", t.Name, strings.Join(w.adminReasons(t), "; ")),
		"Do not call it again: do without it, or tell the person what you would have done; a system admin can change this in System Console > Plugins > MCP Server. get_me tells what is offered.")
}

// adminReasons are the admin's reasons of w, each a clause.
func (w withholding) adminReasons(t Tool) []string {
	var why []string
	if w.lacks {
		why = append(why, "this Mattermost server lacks what it needs ("+t.Needs.Lacking()+")")
	}
	if w.leftOut {
		why = append(why, "the admin left this tool out (the setting \"Tools to leave out\")")
	}
	if w.toolsetOff {
		why = append(why, fmt.Sprintf("the admin has turned off the toolset %q", t.Toolset.DisplayName()))
	}
	if w.writesOff {
		why = append(why, "the admin has turned writing off (\"Allow tools that change Mattermost\")")
	}
	return why
}

// Why is why t is not offered to a connection that chose ch, as a clause
// another tool's sentence ends with ("read_file is not offered here,
// since <why>."); "" when it is offered. search and fetch say it of the
// tools they stand for (package paths), whose own refusal would speak of
// calling them.
func Why(t Tool, c config.Configuration, ch config.Choice) string {
	w := withheld(t, c, ch)
	why := w.adminReasons(t)
	switch {
	case w.notLoaded && t.Toolset == 0:
		why = append(why, "this connection loads every tool the admin allows, so it needs none loaded")
	case w.notLoaded:
		why = append(why, fmt.Sprintf(`this connection has not loaded it (load_tools {"tools":[%q]} loads it)`, t.Name))
	}
	if w.readOnly {
		why = append(why, "this connection is read-only")
	}
	return strings.Join(why, "; ")
}

// Catalogue is the full, fixed set of tools the plugin knows.
type Catalogue struct {
	tools []Tool
	// loaders are find_tools and load_tools, which the catalogue answers
	// about itself; they are offered only to a connection that chose what
	// it loads, so they are not among All.
	loaders []Tool
	byName  map[string]Tool
	// current is the admin's configuration, for the loaders (Register).
	current func() config.Configuration
}

// New checks the tools are well formed and indexes them, with the
// loaders. A malformed catalogue is a programming error caught by tests,
// reported as an error.
func New(tools []Tool) (*Catalogue, error) {
	c := &Catalogue{byName: make(map[string]Tool, len(tools)+2), current: config.Defaults}
	c.loaders = []Tool{c.findTools(), c.loadTools()}
	for _, t := range append(append([]Tool(nil), tools...), c.loaders...) {
		if err := check(t); err != nil {
			return nil, err
		}
		if _, dup := c.byName[t.Name]; dup {
			return nil, fmt.Errorf("tool %q is defined twice", t.Name)
		}
		c.byName[t.Name] = t
	}
	c.tools = append(c.tools, tools...)
	sort.Slice(c.tools, func(i, j int) bool { return c.tools[i].Name < c.tools[j].Name })
	return c, nil
}

func check(t Tool) error {
	loader := t.Name == FindTools || t.Name == LoadTools
	switch {
	case t.Name == "" || t.Title == "" || t.Description == "":
		return fmt.Errorf("tool %q needs a name, a title and a description", t.Name)
	case t.Handler == nil || len(t.InputSchema) == 0 || len(t.OutputSchema) == 0:
		return fmt.Errorf("tool %q has no handler, input or output schema: build it with Define and a result struct", t.Name)
	case t.Hints.ReadOnly && t.Effect != ReadsOnly:
		return fmt.Errorf("tool %q is marked read-only but changes something", t.Name)
	case !t.Hints.ReadOnly && t.Effect == ReadsOnly:
		return fmt.Errorf("tool %q only reads but is not marked read-only", t.Name)
	case t.Hints.Destructive && t.Hints.ReadOnly:
		return fmt.Errorf("tool %q cannot be both read-only and destructive", t.Name)
	case (t.Name == AlwaysOffered || loader) && (t.Toolset != 0 || t.Effect != ReadsOnly || t.Needs != 0):
		return fmt.Errorf("tool %q is offered whatever the settings: it must only read, need nothing and belong to no toolset", t.Name)
	case t.Name != AlwaysOffered && !loader && t.Toolset == 0:
		return fmt.Errorf("tool %q belongs to no toolset: give it the one of its family (only %s, %s and %s have none)", t.Name, AlwaysOffered, FindTools, LoadTools)
	case t.Toolset != 0 && !slices.Contains(config.Toolsets(), t.Toolset):
		return fmt.Errorf("tool %q has toolset %d, which is not exactly one config.Toolset", t.Name, t.Toolset)
	}
	return nil
}

// All returns every tool but the loaders, offered or not, sorted by name:
// what a connection that chose nothing may be offered.
func (c *Catalogue) All() []Tool { return append([]Tool(nil), c.tools...) }

// Loaders are find_tools and load_tools, offered only to a connection
// that chose what it loads.
func (c *Catalogue) Loaders() []Tool { return append([]Tool(nil), c.loaders...) }

// Tool is the tool called name, offered or not.
func (c *Catalogue) Tool(name string) (Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// Excludable is the names of the tools an admin may leave out: all but
// AlwaysOffered.
func (c *Catalogue) Excludable() []string {
	var names []string
	for _, t := range c.tools {
		if t.Toolset != 0 {
			names = append(names, t.Name)
		}
	}
	return names
}

// NotOffered is why cfg does not offer the tool called name to a
// connection that chose nothing, as the model reads it, or "" when cfg
// offers it or no tool has that name.
func (c *Catalogue) NotOffered(name string, cfg config.Configuration) string {
	return c.NotOfferedTo(name, cfg, config.Choice{})
}

// NotOfferedTo is why the tool called name is not offered to a connection
// that chose ch under cfg, or "" when it is or no tool has that name.
func (c *Catalogue) NotOfferedTo(name string, cfg config.Configuration, ch config.Choice) string {
	t, ok := c.byName[name]
	if !ok {
		return ""
	}
	if r := NotOfferedTo(t, cfg, ch); r != nil {
		return r.Error()
	}
	return ""
}

// Why is Why of the tool called name; "" for a name it does not know.
func (c *Catalogue) Why(name string, cfg config.Configuration, ch config.Choice) string {
	t, ok := c.byName[name]
	if !ok {
		return ""
	}
	return Why(t, cfg, ch)
}

// Choose reads a connection's choice from what its client sent (the MCP
// URL's query or headers; see config.ParseChoice), naming the nearest tools
// for an unknown one.
func (c *Catalogue) Choose(toolsets, tools, readOnly string) (config.Choice, error) {
	return config.ParseChoice(toolsets, tools, readOnly, func(name string) bool {
		t, ok := c.byName[name]
		return ok && t.Toolset != 0
	}, func(name string) []string {
		cands := make([]names.Candidate, 0, len(c.tools))
		for _, t := range c.tools {
			cands = append(cands, names.Candidate{Key: t.Name, Names: []string{t.Name}})
		}
		return names.Closest(name, cands, 3)
	})
}

// Register adds every tool and the loaders to the MCP server, the loaders
// reading the admin's configuration from current. What is offered is
// decided by Filter, installed on the server, which re-evaluates the
// configuration and the connection's choice on each list and call, so a
// settings change takes effect without a restart or a reconnect.
func (c *Catalogue) Register(s *server.MCPServer, current func() config.Configuration) {
	c.current = current
	for _, t := range append(c.All(), c.loaders...) {
		s.AddTool(t.MCP(), t.Handler)
	}
}

// Filter is the mcp-go tool filter for the current configuration and the
// choice of the request's connection (transport.ChoiceOf).
func (c *Catalogue) Filter(current func() config.Configuration) server.ToolFilterFunc {
	return func(ctx context.Context, listed []mcp.Tool) []mcp.Tool {
		cfg, ch := current(), transport.ChoiceOf(ctx)
		out := listed[:0:0]
		for _, lt := range listed {
			if t, ok := c.byName[lt.Name]; ok && OfferedTo(t, cfg, ch) {
				out = append(out, lt)
			}
		}
		return out
	}
}
