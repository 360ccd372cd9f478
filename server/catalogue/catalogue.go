// Package catalogue describes the MCP tools as data and decides, in one place,
// which of them a configuration offers. A tool that is not offered is neither
// listed nor callable.
package catalogue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
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
	// ChangesMattermost tools post, edit or react; offered only while the
	// admin allows writes.
	ChangesMattermost
)

// Tool is one entry of the catalogue.
type Tool struct {
	Name        string
	Title       string
	Description string
	Hints       Hints
	Effect      Effect
	// InputSchema is the JSON schema of the arguments, derived from the
	// argument struct by Define so schema and parsing cannot drift apart.
	InputSchema json.RawMessage
	Handler     server.ToolHandlerFunc
}

// Writes reports whether the tool changes Mattermost.
func (t Tool) Writes() bool { return t.Effect == ChangesMattermost }

// Define builds a Tool whose handler receives its arguments already decoded
// into Args. A bad argument becomes a tool error the model can act on.
func Define[Args any](t Tool, handle func(ctx context.Context, args Args) (*mcp.CallToolResult, error)) Tool {
	schemaTool := mcp.NewTool(t.Name, mcp.WithInputSchema[Args]())
	t.InputSchema = schemaTool.RawInputSchema
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args Args
		if err := req.BindArguments(&args); err != nil {
			return mcp.NewToolResultError(fmt.Sprintf(
				"The arguments to %s could not be read (%v). Call it again with arguments that match its input schema.", t.Name, err)), nil
		}
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			ctx = context.WithValue(ctx, progressKey{}, req.Params.Meta.ProgressToken)
		}
		ctx = context.WithValue(ctx, callKey{}, Call{Tool: t.Name, Arguments: argumentsDigest(req), RoundTrip: req.Params.MultiRoundTripParams})
		return handle(ctx, args)
	}
	return t
}

type progressKey struct{}
type callKey struct{}

// Call is what a handler may need of the request beyond its arguments: which
// tool it is, a digest of the arguments exactly as sent, and the answers of
// a multi-round-trip retry (empty on a first call).
type Call struct {
	Tool      string
	Arguments string
	RoundTrip mcp.MultiRoundTripParams
}

// CallOf is the tool call being handled.
func CallOf(ctx context.Context) Call {
	c, _ := ctx.Value(callKey{}).(Call)
	return c
}

// argumentsDigest is a sha256 of the arguments as canonical JSON (maps
// marshal with sorted keys), so a retry can be bound to the very arguments a
// question was asked about.
func argumentsDigest(req mcp.CallToolRequest) string {
	raw, err := json.Marshal(req.GetArguments())
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// ProgressToken is the call's progress token, nil when the client sent
// none (then no progress notifications may be sent).
func ProgressToken(ctx context.Context) mcp.ProgressToken {
	return ctx.Value(progressKey{})
}

// MCP renders the tool as the protocol lists it.
func (t Tool) MCP() mcp.Tool {
	return mcp.Tool{
		Name:           t.Name,
		Title:          t.Title,
		Description:    t.Description,
		RawInputSchema: t.InputSchema,
		Annotations: mcp.ToolAnnotation{
			Title:           t.Title,
			ReadOnlyHint:    mcp.ToBoolPtr(t.Hints.ReadOnly),
			DestructiveHint: mcp.ToBoolPtr(t.Hints.Destructive),
			IdempotentHint:  mcp.ToBoolPtr(t.Hints.Idempotent),
			OpenWorldHint:   mcp.ToBoolPtr(t.Hints.OpenWorld),
		},
	}
}

// Offered is the single rule that decides whether a configuration offers a
// tool. Listing and calling both go through it.
func Offered(t Tool, c config.Configuration) bool {
	if t.Writes() {
		return c.AllowWrites
	}
	return true
}

// Catalogue is the full, fixed set of tools the plugin knows.
type Catalogue struct {
	tools  []Tool
	byName map[string]Tool
}

// New checks the tools are well formed and indexes them. A malformed
// catalogue is a programming error caught by tests, reported as an error.
func New(tools []Tool) (*Catalogue, error) {
	c := &Catalogue{byName: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if err := check(t); err != nil {
			return nil, err
		}
		if _, dup := c.byName[t.Name]; dup {
			return nil, fmt.Errorf("tool %q is defined twice", t.Name)
		}
		c.byName[t.Name] = t
		c.tools = append(c.tools, t)
	}
	sort.Slice(c.tools, func(i, j int) bool { return c.tools[i].Name < c.tools[j].Name })
	return c, nil
}

func check(t Tool) error {
	switch {
	case t.Name == "" || t.Title == "" || t.Description == "":
		return fmt.Errorf("tool %q needs a name, a title and a description", t.Name)
	case t.Handler == nil || len(t.InputSchema) == 0:
		return fmt.Errorf("tool %q has no handler or input schema: build it with Define", t.Name)
	case t.Hints.ReadOnly && t.Effect != ReadsOnly:
		return fmt.Errorf("tool %q is marked read-only but changes something", t.Name)
	case !t.Hints.ReadOnly && t.Effect == ReadsOnly:
		return fmt.Errorf("tool %q only reads but is not marked read-only", t.Name)
	case t.Hints.Destructive && t.Hints.ReadOnly:
		return fmt.Errorf("tool %q cannot be both read-only and destructive", t.Name)
	}
	return nil
}

// All returns every tool, offered or not, sorted by name.
func (c *Catalogue) All() []Tool { return append([]Tool(nil), c.tools...) }

// Lookup finds a tool by name.
func (c *Catalogue) Lookup(name string) (Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// Offered returns the tools the configuration offers, sorted by name.
func (c *Catalogue) Offered(cfg config.Configuration) []Tool {
	var out []Tool
	for _, t := range c.tools {
		if Offered(t, cfg) {
			out = append(out, t)
		}
	}
	return out
}

// Register adds every tool to the MCP server. What is offered is decided by
// Filter, installed on the server, which re-evaluates the configuration on
// each list and call, so a settings change takes effect without a restart or
// a reconnect.
func (c *Catalogue) Register(s *server.MCPServer) {
	for _, t := range c.tools {
		s.AddTool(t.MCP(), t.Handler)
	}
}

// Filter is the mcp-go tool filter for the current configuration.
func (c *Catalogue) Filter(current func() config.Configuration) server.ToolFilterFunc {
	return func(_ context.Context, listed []mcp.Tool) []mcp.Tool {
		cfg := current()
		out := listed[:0:0]
		for _, lt := range listed {
			if t, ok := c.byName[lt.Name]; ok && Offered(t, cfg) {
				out = append(out, lt)
			}
		}
		return out
	}
}
