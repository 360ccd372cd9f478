// Package cataloguetest drives a catalogue through a real mcp-go server the way
// a client does, so governance tests check what is actually listed and
// callable rather than what the data claims.
package cataloguetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Exposure lists the tools and tries to call every tool of the catalogue
// under cfg. callable holds the tools whose call was not refused as unknown.
func Exposure(t *testing.T, cat *catalogue.Catalogue, cfg config.Configuration) (listed, callable []string) {
	t.Helper()
	return NewExposer(cat).Exposure(t, cfg)
}

// Exposer is one MCP server of a catalogue whose configuration changes
// between checks, as the plugin's does: for tests that walk many
// configurations.
type Exposer struct {
	cat *catalogue.Catalogue
	s   *server.MCPServer
	cfg config.Configuration
}

// NewExposer registers the catalogue on an MCP server filtered by the
// configuration each Exposure is given.
func NewExposer(cat *catalogue.Catalogue) *Exposer {
	e := &Exposer{cat: cat}
	e.s = server.NewMCPServer("test", "0", server.WithToolCapabilities(false), server.WithRecovery(),
		server.WithToolFilter(cat.Filter(func() config.Configuration { return e.cfg })))
	cat.Register(e.s, func() config.Configuration { return e.cfg })
	return e
}

// Exposure lists the tools and tries to call every tool of the catalogue
// under cfg. callable holds the tools whose call was not refused as unknown.
func (e *Exposer) Exposure(t *testing.T, cfg config.Configuration) (listed, callable []string) {
	t.Helper()
	return e.ExposureTo(t, cfg, config.Choice{})
}

// ExposureTo is Exposure to a connection that chose ch, the loaders
// (find_tools, load_tools) among the tools called.
func (e *Exposer) ExposureTo(t *testing.T, cfg config.Configuration, ch config.Choice) (listed, callable []string) {
	t.Helper()
	e.cfg = cfg
	ctx := transport.WithChoice(context.Background(), ch)

	var list struct {
		Result mcp.ListToolsResult `json:"result"`
	}
	decode(t, e.s.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)), &list)
	for _, tool := range list.Result.Tools {
		listed = append(listed, tool.Name)
	}

	for _, tool := range append(e.cat.All(), e.cat.Loaders()...) {
		call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": tool.Name, "arguments": map[string]any{}}})
		var answer struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		decode(t, e.s.HandleMessage(ctx, call), &answer)
		if answer.Error == nil || !strings.Contains(answer.Error.Message, "not found") {
			callable = append(callable, tool.Name)
		}
	}
	return listed, callable
}

func decode(t *testing.T, msg mcp.JSONRPCMessage, into any) {
	t.Helper()
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatalf("marshal answer: %v", err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("decode answer %s: %v", raw, err)
	}
}
