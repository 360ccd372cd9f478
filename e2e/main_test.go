// Package e2e drives the plugin on a real Mattermost 11.4 with PostgreSQL,
// installed from its bundle the way the System Console does it, through a
// real MCP client over HTTP. Results are read back with separate requests.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// mm is the Mattermost server every test in this package talks to.
var mm *harness.Server

func TestMain(m *testing.M) {
	bundle := os.Getenv("MCP_PLUGIN_BUNDLE")
	if bundle == "" {
		fmt.Fprintln(os.Stderr, "MCP_PLUGIN_BUNDLE is not set: run `make e2e-test`, which builds the bundle and sets it.")
		os.Exit(1)
	}
	os.Exit(harness.Main(m, harness.Options{BundlePath: bundle}, &mm))
}

func mcpURL(site string) string { return strings.TrimRight(site, "/") + "/plugins/mcp-server/mcp" }

// connect starts an initialized MCP client that signs in with a bearer token.
func connect(t *testing.T, site, token string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(mcpURL(site),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatalf("new MCP client: %v", err)
	}
	initialize(t, c)
	return c
}

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start MCP client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v (server log: %s)", err, mm.ServerLog())
	}
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	checkOutputSchema(t, c, tool, res)
	return res
}

// outputSchemas are the tools' declared output schemas, as tools/list
// gives them; they do not change while the plugin runs.
var outputSchemas sync.Map // tool name -> *jsonschema.Resolved

// checkOutputSchema validates a successful call's structured content
// against the output schema its tool declares, as a client that validates
// (the official Go SDK does) would: every call of the suite checks it.
func checkOutputSchema(t *testing.T, c *client.Client, tool string, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError || res.StructuredContent == nil {
		return
	}
	schema, ok := outputSchemas.Load(tool)
	if !ok {
		listed, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		for _, lt := range listed.Tools {
			raw, err := json.Marshal(lt.OutputSchema)
			if len(lt.RawOutputSchema) > 0 {
				raw, err = lt.RawOutputSchema, nil
			}
			var s jsonschema.Schema
			if err == nil {
				err = json.Unmarshal(raw, &s)
			}
			resolved, rerr := s.Resolve(nil)
			if err != nil || rerr != nil {
				t.Fatalf("%s declares an output schema that does not resolve: %v %v\n%s", lt.Name, err, rerr, raw)
			}
			outputSchemas.Store(lt.Name, resolved)
		}
		if schema, ok = outputSchemas.Load(tool); !ok {
			t.Fatalf("%s answered but is not listed", tool)
		}
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		t.Fatal(err)
	}
	if err := schema.(*jsonschema.Resolved).Validate(instance); err != nil {
		t.Fatalf("%s answered structured content that breaks its declared output schema: %v\n%s", tool, err, raw)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structuredAs decodes a result's structured content.
func structuredAs(t *testing.T, res *mcp.CallToolResult, into any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// onePending is the write get_pending(id) answers about.
func onePending(t *testing.T, res *mcp.CallToolResult) tools.WriteResult {
	t.Helper()
	var list tools.PendingList
	structuredAs(t, res, &list)
	if len(list.Pending) != 1 {
		t.Fatalf("get_pending with an id answered %d writes: %s", len(list.Pending), text(res))
	}
	return list.Pending[0]
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}
