package prompts

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// jsonKV is the transport's session store in memory.
type jsonKV struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (k *jsonKV) Get(key string, out any) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if b, ok := k.m[key]; ok {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (k *jsonKV) SetWithExpiry(key string, value any, _ time.Duration) error {
	b, err := json.Marshal(value)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = b
	return err
}

func (k *jsonKV) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, key)
	return nil
}

type quietLog struct{}

func (quietLog) Debug(string, ...any) {}
func (quietLog) Info(string, ...any)  {}
func (quietLog) Warn(string, ...any)  {}
func (quietLog) Error(string, ...any) {}

// ratedEndpoint serves the prompts of s on an MCP endpoint whose rate is
// callsPerMinute, and returns a function that posts one message as alice in
// her session.
func ratedEndpoint(t *testing.T, s *Set, callsPerMinute int) func(message string) string {
	t.Helper()
	tr := transport.New(transport.Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com" },
		UserActive: func(string) (bool, error) { return true, nil },
		KV:         &jsonKV{m: map[string][]byte{}}, Answers: kvtest.New(), Log: quietLog{},
		MaxCallsPerMinute: func() int { return callsPerMinute },
	})
	s.Register(tr.MCP)
	srv := httptest.NewServer(http.HandlerFunc(tr.ServeMCP))
	t.Cleanup(srv.Close)
	session := ""
	post := func(message string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+transport.MCPPath, strings.NewReader(message))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mattermost-User-Id", "alice")
		if session != "" {
			req.Header.Set(server.HeaderKeySessionID, session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s %v", message, resp.StatusCode, b, err)
		}
		if id := resp.Header.Get(server.HeaderKeySessionID); id != "" {
			session = id
		}
		return string(b)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	return post
}

func TestEachToolAPromptRunsCountsAgainstTheRateAndTheEleventhReadIsLeftOutWithTheWait(t *testing.T) {
	cfg := config.Defaults()
	s, c := fakeSet(t, &cfg, 100)
	post := ratedEndpoint(t, s, 10)
	const catchUp = `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"catch_up"}}`

	// catch_up reads eight times here: the list of unreads, three unread
	// channels, mentions, followed threads and two of them.
	if got := post(catchUp); strings.Contains(got, "too fast") {
		t.Fatalf("the first catch_up: %s", got)
	}
	got := post(catchUp)
	var msg struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(got), &msg); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	res, err := mcp.ParseGetPromptResult(&msg.Result)
	if err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	_, texts, _ := embedded(res)
	if text := texts["mattermost://channel/eng/name-c1"]; strings.Contains(text, "too fast") {
		t.Fatalf("the tenth read was refused: %s", text)
	}
	refused := texts["mattermost://channel/eng/name-c2"]
	if !strings.Contains(refused, "going too fast") || !strings.Contains(refused, "at most 10 tool calls a minute") ||
		!strings.Contains(refused, "read_unread was not run") || !regexp.MustCompile(`Try again in \d+ seconds`).MatchString(refused) {
		t.Fatalf("the eleventh read: %q", refused)
	}
	if !strings.Contains(texts["mattermost://mentions"], "list_mentions was not run") {
		t.Fatalf("a read after the eleventh: %q", texts["mattermost://mentions"])
	}
	runs := 0
	for _, made := range c {
		runs += len(made)
	}
	if runs != 10 || len(c["read_unread"]) != 4 || len(c["list_mentions"]) != 1 {
		t.Fatalf("the tools ran %d times, want the 10 the rate admits: %v", runs, c)
	}
}
