package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ConnectMCP opens an initialized MCP session with the plugin on site (a
// node's or the proxy's URL) as the bearer token's user. The caller closes
// it; on an error it is already closed.
func ConnectMCP(ctx context.Context, site, token, clientName string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	if err := start(ctx, c, clientName, mcp.LATEST_PROTOCOL_VERSION); err != nil {
		return nil, err
	}
	return c, nil
}

// ConnectMCPVersion is ConnectMCP speaking one protocol version: 2025-11-25
// and earlier open an MCP session (Mcp-Session-Id), which Close ends with a
// DELETE.
func ConnectMCPVersion(ctx context.Context, site, token, clientName, version string) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP(strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr, client.WithProtocolVersion(version))
	if err := start(ctx, c, clientName, version); err != nil {
		return nil, err
	}
	return c, nil
}

// start starts and initializes c; on an error it closes it.
func start(ctx context.Context, c *client.Client, clientName, version string) error {
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return err
	}
	return nil
}

// CallTool calls one tool with args; nil args leave "arguments" out of the
// request rather than sending null.
func CallTool(ctx context.Context, c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if args != nil {
		req.Params.Arguments = args
	}
	return c.CallTool(ctx, req)
}

// CallToolOnce opens a session as the token's user for one call of tool and
// decodes its structured answer into out; the tool's refusal is an error.
func CallToolOnce(ctx context.Context, site, token, clientName, tool string, args map[string]any, out any) error {
	c, err := ConnectMCP(ctx, site, token, clientName)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := CallTool(ctx, c, tool, args)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s refused: %v", tool, res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// EndMCPSession ends c's MCP session with a DELETE, as a client that leaves
// does, then closes c. mcp-go's own Close sends its DELETE without the
// client's headers, so on Mattermost (which needs the token on every
// request) it ends nothing.
func EndMCPSession(ctx context.Context, site, token string, c *client.Client) error {
	defer c.Close()
	id := c.GetSessionId()
	if id == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("DELETE of the MCP session: %d", resp.StatusCode)
	}
	return nil
}
