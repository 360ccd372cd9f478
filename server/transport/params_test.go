package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

func TestARequestWhoseParamsTheCheckRefusesIsAnsweredAsInvalidParamsWithItsReason(t *testing.T) {
	kv := newMemKV()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com/" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
		InvalidParams: func(_ context.Context, method string, params json.RawMessage) string {
			if method == "prompts/get" && strings.Contains(string(params), `"bad"`) {
				return "thread takes a post id."
			}
			return ""
		},
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp := post(t, srv.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)

	var answer struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	got := body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"p","arguments":{"thread":"bad"}}}`))
	if err := json.Unmarshal([]byte(got), &answer); err != nil || answer.Error.Code != -32602 || answer.Error.Message != "thread takes a post id." || !strings.Contains(got, `"id":7`) {
		t.Fatalf("a refused prompts/get: %s", got)
	}
	got = body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"p","arguments":{"thread":"fine"}}}`))
	if strings.Contains(got, "thread takes a post id") {
		t.Fatalf("a well-formed prompts/get was refused: %s", got)
	}
}
