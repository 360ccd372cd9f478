package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// driftingNode is a node whose one tool, "count", declares an integer n and
// answers a string.
func driftingNode(t *testing.T, validate bool) string {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		ValidateOutput: validate,
		SiteURL:        func() string { return "https://chat.example.com/" },
		OAuthSignIn:    func() bool { return true },
		UserActive:     func(string) (bool, error) { return true, nil },
		KV:             newMemKV(), Answers: rawKV{newMemKV()}, Log: &memLog{},
	})
	tool := mcp.NewTool("count", mcp.WithDescription("test"),
		mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)))
	tr.MCP.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"n": "seven"}, "seven"), nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func callDrifting(t *testing.T, url string) mcp.CallToolResult {
	t.Helper()
	session := post(t, url, "alice", "", initialize).Header.Get(server.HeaderKeySessionID)
	var msg struct {
		Result mcp.CallToolResult `json:"result"`
	}
	text := body(t, post(t, url, "alice", session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{}}}`))
	if err := json.Unmarshal([]byte(text), &msg); err != nil {
		t.Fatalf("answer %s: %v", text, err)
	}
	return msg.Result
}

func TestAnAnswerThatBreaksItsOutputSchemaIsAToolErrorWhereAnswersAreChecked(t *testing.T) {
	if res := callDrifting(t, driftingNode(t, true)); !res.IsError || res.StructuredContent != nil {
		t.Fatalf("checked: %+v, want a tool error without the structured content", res)
	}
	res := callDrifting(t, driftingNode(t, false))
	if res.IsError {
		t.Fatalf("unchecked: %+v, want the answer as the tool gave it", res)
	}
	if got, _ := res.StructuredContent.(map[string]any); got["n"] != "seven" {
		t.Fatalf("unchecked: structured %v, want n=seven", res.StructuredContent)
	}
}
