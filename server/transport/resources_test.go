package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// aliceOnly is a resource store where alice can read mattermost://file/a
// and bob nothing, as the Caller answers.
type aliceOnly struct{ offered []string }

func (aliceOnly) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	if CallerID(ctx) == "alice" && uri == "mattermost://file/a" {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "alice's file"}}, nil
	}
	return nil, &ResourceNotFound{Message: uri + " was not found: it is not there, or you cannot read it. resources/list lists what you can read."}
}

func (aliceOnly) List(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	if cursor == "bad" {
		return nil, "", ErrBadResourceCursor
	}
	if CallerID(ctx) != "alice" {
		return []mcp.Resource{}, "", nil
	}
	return []mcp.Resource{mcp.NewResource("mattermost://file/a", "a.txt")}, "bmV4dA==", nil
}

func (a aliceOnly) Templates(context.Context) []string { return a.offered }

func resourceNode(t *testing.T, callsPerMinute int) *httptest.Server {
	t.Helper()
	kv := newMemKV()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com/" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
		Resources:         aliceOnly{offered: []string{"mattermost://file/{file_id}"}},
		MaxCallsPerMinute: func() int { return callsPerMinute },
	})
	for _, uri := range []string{"mattermost://file/{file_id}", "mattermost://thread/{post_id}"} {
		tr.MCP.AddResourceTemplate(mcp.NewResourceTemplate(uri, uri), ReadResource)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func sessionOf(t *testing.T, url, user string) string {
	t.Helper()
	resp := post(t, url, user, "", initialize)
	body(t, resp)
	return resp.Header.Get(server.HeaderKeySessionID)
}

type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			URI string `json:"uri"`
		} `json:"data"`
	} `json:"error"`
}

func rpc(t *testing.T, raw string) rpcAnswer {
	t.Helper()
	if i := strings.Index(raw, "data: "); i >= 0 {
		raw = raw[i+len("data: "):]
	}
	var a rpcAnswer
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &a); err != nil {
		t.Fatalf("not JSON-RPC: %q", raw)
	}
	return a
}

const readFileA = `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mattermost://file/a"}}`

func TestAResourceThePersonCanReadIsAnsweredAndOneTheyCannotIsNotFoundWithTheNextStep(t *testing.T) {
	srv := resourceNode(t, 100)
	got := rpc(t, body(t, post(t, srv.URL, "alice", sessionOf(t, srv.URL, "alice"), readFileA)))
	if got.Error != nil || !strings.Contains(string(got.Result), "alice's file") {
		t.Fatalf("alice read %s %+v", got.Result, got.Error)
	}
	got = rpc(t, body(t, post(t, srv.URL, "bob", sessionOf(t, srv.URL, "bob"), readFileA)))
	if got.Error == nil || got.Error.Code != mcp.RESOURCE_NOT_FOUND || !strings.Contains(got.Error.Message, "resources/list") {
		t.Fatalf("bob read %s %+v", got.Result, got.Error)
	}
}

func TestAStatelessClientIsToldOfAMissingResourceAs2026Says(t *testing.T) {
	srv := resourceNode(t, 100)
	resp := postStateless(t, srv.URL, "bob", "resources/read", "mattermost://file/a", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mattermost://file/a",
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"stateless-client","version":"1"},
		"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if got := rpc(t, body(t, resp)); got.Error == nil || got.Error.Code != mcp.INVALID_PARAMS {
		t.Fatalf("answered %+v", got.Error)
	}
}

func TestAMissingResourceNamesTheURIItWasAskedForOnEitherProtocol(t *testing.T) {
	srv := resourceNode(t, 100)
	classic := rpc(t, body(t, post(t, srv.URL, "bob", sessionOf(t, srv.URL, "bob"), readFileA)))
	resp := postStateless(t, srv.URL, "bob", "resources/read", "mattermost://file/a", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mattermost://file/a",
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"stateless-client","version":"1"},
		"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	modern := rpc(t, body(t, resp))
	for protocol, got := range map[string]rpcAnswer{"2025-11-25": classic, "2026-07-28": modern} {
		if got.Error == nil || got.Error.Data.URI != "mattermost://file/a" {
			t.Errorf("on %s answered %+v, want data.uri mattermost://file/a", protocol, got.Error)
		}
	}
}

func TestResourcesListIsThePersonsOwnAndABadCursorIsInvalid(t *testing.T) {
	srv := resourceNode(t, 100)
	list := `{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{}}`
	var res mcp.ListResourcesResult
	got := rpc(t, body(t, post(t, srv.URL, "alice", sessionOf(t, srv.URL, "alice"), list)))
	if err := json.Unmarshal(got.Result, &res); err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "mattermost://file/a" || res.NextCursor != "bmV4dA==" {
		t.Fatalf("alice listed %s", got.Result)
	}
	got = rpc(t, body(t, post(t, srv.URL, "bob", sessionOf(t, srv.URL, "bob"), list)))
	if err := json.Unmarshal(got.Result, &res); err != nil || len(res.Resources) != 0 {
		t.Fatalf("bob listed %s", got.Result)
	}
	got = rpc(t, body(t, post(t, srv.URL, "alice", sessionOf(t, srv.URL, "alice"), `{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"cursor":"bad"}}`)))
	if got.Error == nil || got.Error.Code != mcp.INVALID_PARAMS {
		t.Fatalf("a bad cursor answered %s %+v", got.Result, got.Error)
	}
}

func TestOnlyTheTemplatesOfferedNowAreListed(t *testing.T) {
	srv := resourceNode(t, 100)
	got := rpc(t, body(t, post(t, srv.URL, "alice", sessionOf(t, srv.URL, "alice"), `{"jsonrpc":"2.0","id":6,"method":"resources/templates/list","params":{}}`)))
	if !strings.Contains(string(got.Result), "mattermost://file/{file_id}") || strings.Contains(string(got.Result), "thread") {
		t.Fatalf("listed %s", got.Result)
	}
}

func TestAResourceReadCountsAgainstThePersonsRate(t *testing.T) {
	srv := resourceNode(t, 1)
	session := sessionOf(t, srv.URL, "alice")
	if got := rpc(t, body(t, post(t, srv.URL, "alice", session, readFileA))); got.Error != nil {
		t.Fatalf("the first read: %+v", got.Error)
	}
	got := rpc(t, body(t, post(t, srv.URL, "alice", session, readFileA)))
	if got.Error == nil || got.Error.Code != rateLimitedCode || !strings.Contains(got.Error.Message, "Try again in") {
		t.Fatalf("the second read within the minute: %s %+v", got.Result, got.Error)
	}
}
