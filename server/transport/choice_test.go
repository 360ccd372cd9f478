package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// choosingNode is a node whose connections choose toolsets by name (files
// or light), with a tool that answers the choice it is called with.
func choosingNode(t *testing.T, kv *memKV) string {
	t.Helper()
	tr, srv := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	tr.opts.Choose = func(toolsets, tools, readOnly string) (config.Choice, error) {
		return config.ParseChoice(toolsets, tools, readOnly, func(string) bool { return false }, func(string) []string { return nil })
	}
	tr.MCP.AddTool(mcp.NewTool("choice", mcp.WithDescription("test")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("loads " + ChoiceOf(ctx).Query()), nil
	})
	return srv.URL
}

func postChoosing(t *testing.T, url, session string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mattermost-User-Id", "alice")
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const callChoice = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"choice","arguments":{}}}`

func TestAnInitializeNamingAnUnknownToolsetIsAnErrorNamingTheValidOnesAndOpensNoSession(t *testing.T) {
	kv := newMemKV()
	url := choosingNode(t, kv)
	resp := postChoosing(t, url+MCPPath+"?toolsets=chanels", "", nil, initialize)
	got := body(t, resp)
	if resp.Header.Get(server.HeaderKeySessionID) != "" || !strings.Contains(got, `"code":-32602`) ||
		!strings.Contains(got, `unknown toolset \"chanels\": the toolsets are channels, files`) {
		t.Fatalf("initialize ?toolsets=chanels: session %q, %s", resp.Header.Get(server.HeaderKeySessionID), got)
	}
	if ids := kv.sessionsOf("alice"); len(ids) != 0 {
		t.Fatalf("a refused initialize left sessions %v", ids)
	}
}

func TestASessionsChoiceNamedAtInitializeInTheURLOrAHeaderHoldsOnEveryNode(t *testing.T) {
	kv := newMemKV()
	a, b := choosingNode(t, kv), choosingNode(t, kv)
	for _, c := range []struct {
		query  string
		header map[string]string
	}{
		{query: "?toolsets=files,light&read_only=true"},
		{header: map[string]string{HeaderToolsets: "files,light", HeaderReadOnly: "true"}},
	} {
		resp := postChoosing(t, a+MCPPath+c.query, "", c.header, initialize)
		session := resp.Header.Get(server.HeaderKeySessionID)
		body(t, resp)
		// The next request on another node names nothing: the session's
		// record carries the choice.
		if got := body(t, postChoosing(t, b+MCPPath, session, nil, callChoice)); !strings.Contains(got, `loads toolsets=files,light\u0026read_only=true`) {
			t.Fatalf("%q %v: node b answered %s", c.query, c.header, got)
		}
	}
}

func TestARequestWithoutASessionCarriesItsOwnChoice(t *testing.T) {
	url := choosingNode(t, newMemKV())
	stateless := map[string]string{"MCP-Protocol-Version": "2026-07-28", mcp.HeaderMethod: "tools/call", mcp.HeaderName: "choice"}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"choice","arguments":{},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},
		"io.modelcontextprotocol/clientCapabilities":{}}}}`
	if got := body(t, postChoosing(t, url+MCPPath+"?toolsets=light", "", stateless, call)); !strings.Contains(got, "loads toolsets=light") {
		t.Fatalf("a request without a session answered %s", got)
	}
	stateless[HeaderToolsets] = "lite"
	if got := body(t, postChoosing(t, url+MCPPath, "", stateless, call)); !strings.Contains(got, `unknown toolset \"lite\"`) {
		t.Fatalf("a request without a session naming an unknown toolset answered %s", got)
	}
}
