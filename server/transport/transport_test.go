package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// memKV is the KV store shared by every "node" in a test, as the plugin KV
// store is shared by every node of a cluster.
type memKV struct {
	mu   sync.Mutex
	data map[string][]byte
	// reads and writes count the calls, as the plugin KV store's round trips.
	reads, writes int
}

func newMemKV() *memKV { return &memKV{data: map[string][]byte{}} }

func (m *memKV) counts() (reads, writes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads, m.writes
}

func (m *memKV) Get(key string, out any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	raw, ok := m.data[key]
	if !ok {
		return nil
	}
	return json.Unmarshal(raw, out)
}

func (m *memKV) SetWithExpiry(key string, value any, _ time.Duration) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.writes++
	m.data[key] = raw
	m.mu.Unlock()
	return nil
}

// rawKV is the same store as raw bytes, the mailbox's view of it.
type rawKV struct{ *memKV }

func (r rawKV) Get(key string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	return r.data[key], nil
}

func (r rawKV) CompareAndSet(key string, old, value []byte, _ time.Duration) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	if cur, ok := r.data[key]; !bytes.Equal(cur, old) || (old == nil && ok) {
		return false, nil
	}
	if value == nil {
		// As in the plugin KV store: setting nil deletes the key.
		delete(r.data, key)
		return true, nil
	}
	r.data[key] = value
	return true, nil
}

func (r rawKV) Set(key string, value []byte, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	r.data[key] = value
	return nil
}

func (r rawKV) SetIfAbsent(key string, value []byte, ttl time.Duration) (bool, error) {
	return r.CompareAndSet(key, nil, value, ttl)
}

func (r rawKV) CompareAndDelete(key string, old []byte) (bool, error) {
	return r.CompareAndSet(key, old, nil, 0)
}

func (r rawKV) ListKeys(string, int, int) ([]string, bool, error) {
	return nil, false, errors.New("the transport lists no keys")
}

func (m *memKV) Delete(key string) error {
	m.mu.Lock()
	m.writes++
	delete(m.data, key)
	m.mu.Unlock()
	return nil
}

type logLine struct {
	msg string
	kv  []any
}

type memLog struct {
	mu    sync.Mutex
	lines []logLine
}

func (l *memLog) add(msg string, kv []any) {
	l.mu.Lock()
	l.lines = append(l.lines, logLine{msg, kv})
	l.mu.Unlock()
}
func (l *memLog) Debug(msg string, kv ...any) { l.add(msg, kv) }
func (l *memLog) Info(msg string, kv ...any)  { l.add(msg, kv) }
func (l *memLog) Warn(msg string, kv ...any)  { l.add(msg, kv) }
func (l *memLog) Error(msg string, kv ...any) { l.add(msg, kv) }

// node is one plugin process: its own Transport over the shared KV.
func node(t testing.TB, kv *memKV, log *memLog, active map[string]bool) *httptest.Server {
	t.Helper()
	_, srv := newNode(t, kv, log, active)
	return srv
}

// newNode is node with its Transport, for tests that look inside.
func newNode(t testing.TB, kv *memKV, log *memLog, active map[string]bool) (*Transport, *httptest.Server) {
	t.Helper()
	return newNodeWithOAuth(t, kv, log, active, func() bool { return true })
}

// newNodeWithOAuth is newNode whose Mattermost can or cannot sign clients in
// with OAuth as oauth says at each request.
func newNodeWithOAuth(t testing.TB, kv *memKV, log *memLog, active map[string]bool, oauth func() bool) (*Transport, *httptest.Server) {
	t.Helper()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:     func() string { return "https://chat.example.com/" },
		OAuthSignIn: oauth,
		UserActive:  func(id string) (bool, error) { return active[id], nil },
		KV:          kv, Answers: rawKV{kv}, Log: log,
	})
	tr.MCP.AddTool(mcp.NewTool("ask_direct", mcp.WithDescription("test")), askDirect)
	tr.MCP.AddTool(mcp.NewTool("whoami", mcp.WithDescription("test")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caps := mcp.ClientCapabilities{}
		if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			caps = s.GetClientCapabilities()
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s elicitation=%v secret-content", CallerID(ctx), caps.Elicitation != nil)), nil
	})
	tr.MCP.AddTool(mcp.NewTool("client", mcp.WithDescription("test")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := Client(ctx)
		return mcp.NewToolResultText(fmt.Sprintf("client=%s/%s", c.Name, c.Version)), nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc(MCPPath, tr.ServeMCP)
	mux.HandleFunc(MetadataPath, tr.ServeMetadata)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return tr, srv
}

func post(t testing.TB, url, user, session string, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if user != "" {
		req.Header.Set("Mattermost-User-Id", user)
	}
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"test-client","version":"1"}}}`
const callWhoami = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestARequestWithoutASignedInUserGetsTheOAuthChallenge(t *testing.T) {
	srv := node(t, newMemKV(), &memLog{}, nil)
	resp := post(t, srv.URL, "", "", initialize)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	want := `Bearer resource_metadata="https://chat.example.com/plugins/plugin-under-test/.well-known/oauth-protected-resource", scope="user"`
	if got := resp.Header.Get("WWW-Authenticate"); got != want {
		t.Fatalf("challenge %q, want %q", got, want)
	}
}

func TestARejectedTokenGetsTheSameChallengeMarkedInvalid(t *testing.T) {
	srv := node(t, newMemKV(), &memLog{}, map[string]bool{"u1": false})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+MCPPath, strings.NewReader(initialize))
	req.Header.Set("Authorization", "Bearer nonsense")
	req.Header.Set("Mattermost-User-Id", "u1") // a deactivated user
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(got, `resource_metadata="https://chat.example.com/plugins/plugin-under-test/.well-known/oauth-protected-resource"`) || !strings.Contains(got, `error="invalid_token"`) {
		t.Fatalf("status %d challenge %q", resp.StatusCode, got)
	}
}

func TestTheMetadataNamesTheEndpointAndMattermostAsTheAuthorizationServer(t *testing.T) {
	srv := node(t, newMemKV(), &memLog{}, nil)
	resp, err := http.Get(srv.URL + MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc ProtectedResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if doc.Resource != "https://chat.example.com/plugins/plugin-under-test/mcp" || len(doc.AuthorizationServers) != 1 ||
		doc.AuthorizationServers[0] != "https://chat.example.com" || doc.ScopesSupported[0] != "user" {
		t.Fatalf("metadata %+v", doc)
	}
}

func TestWithoutOAuthSignInThe401AndTheMetadataNameNoAuthorizationServerAndAskForAToken(t *testing.T) {
	var oauth atomic.Bool
	_, srv := newNodeWithOAuth(t, newMemKV(), &memLog{}, map[string]bool{"u1": false}, oauth.Load)

	resp := post(t, srv.URL, "", "", initialize)
	text := body(t, resp)
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || challenge != `Bearer realm="Mattermost"` {
		t.Fatalf("status %d challenge %q", resp.StatusCode, challenge)
	}
	if !strings.Contains(text, "personal access token") || strings.Contains(text, "OAuth starts") {
		t.Fatalf("the 401 must say to use a personal access token: %s", text)
	}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+MCPPath, strings.NewReader(initialize))
	req.Header.Set("Authorization", "Bearer nonsense")
	rejected, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rejected.Body.Close()
	if got := rejected.Header.Get("WWW-Authenticate"); got != `Bearer realm="Mattermost", error="invalid_token"` {
		t.Fatalf("rejected token challenge %q", got)
	}

	metadata := func() map[string]any {
		resp, err := http.Get(srv.URL + MetadataPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		doc := map[string]any{}
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	if doc := metadata(); doc["authorization_servers"] != nil || doc["resource"] != "https://chat.example.com/plugins/plugin-under-test/mcp" {
		t.Fatalf("metadata without OAuth %v", doc)
	}

	// Switched on, the next request advertises it again.
	oauth.Store(true)
	if doc := metadata(); fmt.Sprint(doc["authorization_servers"]) != "[https://chat.example.com]" {
		t.Fatalf("metadata with OAuth %v", doc)
	}
	if got := post(t, srv.URL, "", "", initialize).Header.Get("WWW-Authenticate"); !strings.Contains(got, "resource_metadata=") {
		t.Fatalf("challenge with OAuth %q", got)
	}
}

func TestASessionStartedOnOneNodeWorksOnAnotherAndKeepsTheClientsCapabilities(t *testing.T) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, log, active), node(t, kv, log, active)

	resp := post(t, a.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	if !strings.HasPrefix(session, sessionIDPrefix) {
		t.Fatalf("no session id from initialize: %q", session)
	}
	got := body(t, post(t, b.URL, "alice", session, callWhoami))
	if !strings.Contains(got, "alice elicitation=true") {
		t.Fatalf("node b answered %s", got)
	}
}

func TestAnotherUsersSessionIsNotFound(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true, "bob": true})
	resp := post(t, srv.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	resp = post(t, srv.URL, "bob", session, callWhoami)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("bob using alice's session: status %d, want 404: %s", resp.StatusCode, body(t, resp))
	}
	body(t, resp)
}

func TestAnEndedSessionIsNotFoundOnEveryNode(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, &memLog{}, active), node(t, kv, &memLog{}, active)
	resp := post(t, a.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	endOn(t, a.URL, session)
	if resp := post(t, b.URL, "alice", session, callWhoami); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ended session on node b: status %d", resp.StatusCode)
	}
}

func TestEveryToolCallIsLoggedWithUserToolDurationAndOutcomeButNotItsContent(t *testing.T) {
	kv, log := newMemKV(), &memLog{}
	srv := node(t, kv, log, map[string]bool{"alice": true})
	resp := post(t, srv.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	body(t, post(t, srv.URL, "alice", session, callWhoami))

	log.mu.Lock()
	defer log.mu.Unlock()
	var found bool
	for _, l := range log.lines {
		line := fmt.Sprint(l.msg, l.kv)
		if strings.Contains(line, "secret-content") {
			t.Fatalf("a log line carries tool output: %s", line)
		}
		if l.msg == "MCP tool call" {
			found = true
			want := []string{"user_id alice", "tool whoami", "duration_ms", "outcome ok"}
			for _, w := range want {
				if !strings.Contains(line, w) {
					t.Errorf("tool call log %q lacks %q", line, w)
				}
			}
		}
	}
	if !found {
		t.Fatal("no log line for the tool call")
	}
}

func TestAnOversizedRequestIsRefusedWithTheWayAround(t *testing.T) {
	srv := node(t, newMemKV(), &memLog{}, map[string]bool{"alice": true})
	big := bytes.Repeat([]byte("x"), maxRequestBytes+1)
	resp := post(t, srv.URL, "alice", "", string(big))
	text := body(t, resp)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(text, "request_upload") {
		t.Fatalf("status %d: %s", resp.StatusCode, text)
	}
}

// onlySession is the id of the one session in the store.
func (m *memKV) onlySession(t *testing.T) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for k := range m.data {
		if strings.HasPrefix(k, sessionKeyPrefix) {
			ids = append(ids, strings.TrimPrefix(k, sessionKeyPrefix))
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%d sessions in the store", len(ids))
	}
	return ids[0]
}

func TestAnotherUsersDeleteOfASessionIsNotFoundAndTheOwnersSessionGoesOnOnEveryNode(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true, "bob": true}
	a, b := node(t, kv, &memLog{}, active), node(t, kv, &memLog{}, active)
	resp := post(t, a.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	// Both nodes hold alice's session in memory before bob tries.
	for _, n := range []string{a.URL, b.URL} {
		if got := body(t, post(t, n, "alice", session, callWhoami)); !strings.Contains(got, "alice") {
			t.Fatalf("alice before: %s", got)
		}
	}
	for _, n := range []string{a.URL, b.URL} {
		req, _ := http.NewRequest(http.MethodDelete, n+MCPPath, nil)
		req.Header.Set("Mattermost-User-Id", "bob")
		req.Header.Set(server.HeaderKeySessionID, session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		del, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		del.Body.Close()
		if del.StatusCode != http.StatusNotFound {
			t.Fatalf("bob's delete of alice's session: %d, want 404", del.StatusCode)
		}
	}
	for _, n := range []string{a.URL, b.URL} {
		if got := body(t, post(t, n, "alice", session, callWhoami)); !strings.Contains(got, "alice elicitation=true") {
			t.Fatalf("alice after bob's delete: %s", got)
		}
	}
}

func TestAToolCallKnowsItsClientsNameAndVersionOnANodeThatNeverSawTheInitialize(t *testing.T) {
	kv, log := newMemKV(), &memLog{}
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, log, active), node(t, kv, log, active)
	resp := post(t, a.URL, "alice", "", initialize)
	session := resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	got := body(t, post(t, b.URL, "alice", session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"client","arguments":{}}}`))
	if !strings.Contains(got, "client=test-client/1") {
		t.Fatalf("node b answered %s", got)
	}
}

func TestAToolCallWithoutASessionKnowsItsClientFromTheRequestsOwnMeta(t *testing.T) {
	srv := node(t, newMemKV(), &memLog{}, map[string]bool{"alice": true})
	resp := postStateless(t, srv.URL, "alice", "tools/call", "client", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"client","arguments":{},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"stateless-client","version":"9.9"},
		"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if got := body(t, resp); !strings.Contains(got, "client=stateless-client/9.9") {
		t.Fatalf("answered %d %s", resp.StatusCode, got)
	}
}

// postStateless sends one request of protocol 2026-07-28 (no session) as
// user, with the headers that protocol has a client name its method by.
func postStateless(t *testing.T, url, user, method, name, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+MCPPath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set(mcp.HeaderMethod, method)
	req.Header.Set(mcp.HeaderName, name)
	req.Header.Set("Mattermost-User-Id", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
