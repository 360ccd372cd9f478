package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// recordingTasks is a Tasks that makes a task of every call of "wait" and
// keeps what it was handed.
type recordingTasks struct {
	mu      sync.Mutex
	created []*TaskCall
	served  []TaskRequest
}

func (r *recordingTasks) Supports(tool string) bool { return tool == "wait" }

func (r *recordingTasks) Created(_ context.Context, _ string, _ string, call *TaskCall) (map[string]any, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.created = append(r.created, call)
	return map[string]any{"task": map[string]any{"taskId": "t1", "status": "input_required"}}, nil
}

func (r *recordingTasks) Serve(_ context.Context, _ string, req TaskRequest) (any, *RPCError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served = append(r.served, req)
	return map[string]any{"taskId": "t1"}, nil
}

func (r *recordingTasks) Listen(_ context.Context, _, _ string, ids []string) []string { return ids }

func taskNode(t *testing.T) (*recordingTasks, *httptest.Server) {
	t.Helper()
	tasks := &recordingTasks{}
	tr := New(Options{PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL: func() string { return "https://chat.example.com/" }, OAuthSignIn: func() bool { return true },
		UserActive: func(string) (bool, error) { return true, nil }, KV: newMemKV(), Answers: rawKV{newMemKV()}, Log: &memLog{}, Tasks: tasks})
	tr.MCP.AddTool(mcp.NewTool("wait", mcp.WithDescription("test")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Task != nil {
			return mcp.NewToolResultError("the tool saw params.task"), nil
		}
		if task := TaskOf(ctx); task != nil {
			task.Waits("0123456789abcdef0123456789abcdef")
		}
		return mcp.NewToolResultText("waits"), nil
	})
	tr.MCP.AddTool(mcp.NewTool("read", mcp.WithDescription("test")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("read"), nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return tasks, srv
}

func TestACallAugmentedWithATaskIsAnsweredWithTheTaskAndTheToolNeverSeesTheTaskParam(t *testing.T) {
	tasks, srv := taskNode(t)
	session := openSession(t, srv.URL, "alice", initialize)
	got := body(t, post(t, srv.URL, "alice", session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{},"task":{"ttl":60000}}}`))
	var msg struct {
		ID     int `json:"id"`
		Result struct {
			Task struct{ TaskID string } `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(got)), &msg); err != nil || msg.ID != 7 || msg.Result.Task.TaskID != "t1" {
		t.Fatalf("answer %s, want the CreateTaskResult", got)
	}
	if len(tasks.created) != 1 || tasks.created[0].WriteID() == "" || tasks.created[0].Modern || tasks.created[0].Result().IsError {
		t.Fatalf("created %+v", tasks.created)
	}
}

func TestACallWithoutATaskAndACallOfAToolThatNeverWaitsAreAnsweredAsCalls(t *testing.T) {
	tasks, srv := taskNode(t)
	session := openSession(t, srv.URL, "alice", initialize)
	for _, call := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{},"task":{"ttl":60000}}}`,
	} {
		got := body(t, post(t, srv.URL, "alice", session, call))
		if strings.Contains(got, `"task"`) && !strings.Contains(got, "does not support") {
			t.Errorf("%s answered %s", call, got)
		}
	}
	if len(tasks.created) != 0 {
		t.Fatalf("tasks made for calls that asked none: %d", len(tasks.created))
	}
}

func TestOn20260728ATaskIsMadeOnlyForACallThatDeclaredTheExtensionAndTaskRequestsGoToTheTasks(t *testing.T) {
	tasks, srv := taskNode(t)
	modern := func(method, name, params string) string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+MCPPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set(mcp.HeaderMethod, method)
		req.Header.Set(mcp.HeaderName, name)
		req.Header.Set("Mattermost-User-Id", "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return body(t, resp)
	}
	meta := func(caps string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	}
	modern("tools/call", "wait", `{"name":"wait","arguments":{},`+meta(`{}`)+`}`)
	if len(tasks.created) != 0 {
		t.Fatal("a task for a request that did not declare the extension")
	}
	modern("tools/call", "wait", `{"name":"wait","arguments":{},`+meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{"url":{}}}`)+`}`)
	if len(tasks.created) != 1 || !tasks.created[0].Modern || !tasks.created[0].ShowsPages {
		t.Fatalf("created %+v", tasks.created)
	}
	modern("tasks/get", "t1", `{"taskId":"t1",`+meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)+`}`)
	if len(tasks.served) != 1 || !tasks.served[0].Declared || !tasks.served[0].Modern {
		t.Fatalf("served %+v", tasks.served)
	}
}

// sseData is a body's JSON-RPC message, sent as JSON or as an event.
func sseData(body string) string {
	last := strings.TrimSpace(body)
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			last = d
		}
	}
	return last
}
