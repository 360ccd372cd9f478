package transport

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestANotificationSentJustBeforeTheResultReachesTheClientOnceAndBeforeIt(t *testing.T) {
	tr, srv := newNode(t, newMemKV(), &memLog{}, map[string]bool{"alice": true})
	written := make(chan bool, 1)
	tr.MCP.AddTool(mcp.NewTool("closes", mcp.WithDescription("test")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := mcp.NewElicitationCompleteNotification(req.GetString("id", ""))
		written <- NotifyBeforeResult(ctx, n.Method, n.Params.AdditionalFields, "elicitationId")
		return mcp.NewToolResultText("answered"), nil
	})
	// The loss is a race between two goroutines of mcp-go: many calls give
	// it many chances.
	const calls = 50
	for i := range calls {
		id := fmt.Sprintf("question-%d", i)
		resp := postStateless(t, srv.URL, "alice", "tools/call", "closes", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"closes","arguments":{"id":"`+id+`"},
			"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
		got := body(t, resp)
		mark := `"elicitationId":"` + id + `"`
		at, result := strings.Index(got, mark), strings.Index(got, "answered")
		if !<-written || strings.Count(got, mark) != 1 || at < 0 || result < at || !strings.Contains(got, string(mcp.MethodNotificationElicitationComplete)) {
			t.Fatalf("call %d answered %d:\n%s", i, resp.StatusCode, got)
		}
	}
}
