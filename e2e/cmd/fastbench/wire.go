package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// The clients of the load: "wire" sends each measured call as the bytes an
// MCP client sends and reads its answer whole without decoding it, as the
// REST load reads its answers; "mcp-go" calls through mcp-go's client, which
// decodes every answer into its types several times over on the same two
// cores as the servers, and so shows what a client's own work takes from them.
const (
	clientWire  = "wire"
	clientMCPGo = "mcp-go"
)

// wireClient is one MCP client of the load after its initialize: its
// endpoint, token, protocol version and, on 2025-11-25, its session.
type wireClient struct {
	url, token, version, session string
	nextID                       int
}

// call is one tools/call, its answer read whole: an error is a status that
// is not 200, a JSON-RPC error or a tool's refusal, found in the bytes.
func (c *wireClient) call(ctx context.Context, tool string, args map[string]any) error {
	c.nextID++
	params := map[string]any{"name": tool, "arguments": args}
	if c.session == "" {
		// The newest protocol has no initialize: each request says who asks.
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    c.version,
			mcp.MetaKeyClientInfo:         map[string]string{"name": "fastbench", "version": "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
		}
	}
	if args == nil {
		params["arguments"] = map[string]any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": "tools/call", "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("MCP-Protocol-Version", c.version)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	} else {
		req.Header.Set(mcp.HeaderMethod, "tools/call")
		req.Header.Set(mcp.HeaderName, tool)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	switch {
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %d %s", tool, resp.StatusCode, strings.TrimSpace(string(answer)))
	case bytes.Contains(answer, []byte(`"isError":true`)):
		return fmt.Errorf("%s answered an error", tool)
	case !bytes.Contains(answer, []byte(`"result"`)):
		return fmt.Errorf("%s: no result: %.200s", tool, answer)
	}
	return nil
}
