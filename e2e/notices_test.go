package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// listener is the official Go SDK connected to one node, hearing change
// notices and log messages.
type listener struct {
	name    string
	s       *sdk.ClientSession
	changed chan struct{}
	// prompts and resources hear prompts/list_changed and
	// resources/list_changed.
	prompts, resources chan struct{}
	mu                 sync.Mutex
	logs               []*sdk.LoggingMessageParams
}

// listening connects the official Go SDK to site as the token's user,
// speaking version ("" for the SDK's own, 2026-07-28, which listens with
// subscriptions/listen; 2025-11-25 opens the standalone GET stream). Once
// Connect returned, its stream is open: the SDK waits for the answer's
// header, which the plugin sends only once the stream is counted.
func listening(t *testing.T, site, token, version string) *listener {
	t.Helper()
	return listeningAt(t, mcpURL(site), token, version)
}

// listeningAt is listening to the MCP endpoint at url, which may carry a
// query (what the connection loads).
func listeningAt(t *testing.T, url, token, version string) *listener {
	t.Helper()
	l := &listener{name: url + " " + version, changed: make(chan struct{}, 8), prompts: make(chan struct{}, 8), resources: make(chan struct{}, 8)}
	c := sdk.NewClient(&sdk.Implementation{Name: "sdk-notices", Version: "1.8.0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case l.changed <- struct{}{}:
			default:
			}
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			select {
			case l.prompts <- struct{}{}:
			default:
			}
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			select {
			case l.resources <- struct{}{}:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			l.mu.Lock()
			l.logs = append(l.logs, req.Params)
			l.mu.Unlock()
		},
	})
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	// No client timeout: a notice stream stays open.
	s, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerTransport{map[string]string{"Authorization": "Bearer " + token}}}}, opts)
	if err != nil {
		t.Fatalf("the official SDK could not connect to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	l.s = s
	return l
}

// heard waits for the listener's next tools/list_changed; the bound only
// keeps a failing run from hanging the suite.
func (l *listener) heard(t *testing.T) {
	t.Helper()
	select {
	case <-l.changed:
	case <-time.After(time.Minute):
		t.Fatalf("%s heard no tools/list_changed (server log: %s)", l.name, mm.ServerLogTail(30))
	}
}

// tools is what the listener's session lists now.
func (l *listener) tools(t *testing.T) []string {
	t.Helper()
	res, err := l.s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("%s tools/list: %v", l.name, err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestSwitchingWritesOnTellsClientsOnBothNodesWhichThenListTheWriteToolsWithoutReconnecting(t *testing.T) {
	if !streams(t) {
		return
	}
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": false}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowWrites": false}) })
	alice := mm.Users[0]
	var clients []*listener
	for _, site := range mm.NodeURLs() {
		for _, version := range []string{"2025-11-25", ""} {
			clients = append(clients, listening(t, site, alice.Token, version))
		}
	}
	if len(clients) != 4 {
		t.Fatalf("%d clients on %v, want two on each of two nodes", len(clients), mm.NodeURLs())
	}
	for _, l := range clients {
		if slices.Contains(l.tools(t), "create_post") {
			t.Fatalf("%s lists create_post with writes off", l.name)
		}
	}

	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range clients {
		l.heard(t)
		if names := l.tools(t); !slices.Contains(names, "create_post") || !slices.Contains(names, "add_reaction") {
			t.Fatalf("%s, told the tools changed, lists %v without the write tools", l.name, names)
		}
	}
}

func TestTurningAToolsetOffTellsAConnectedClientWhichThenNoLongerListsItsTools(t *testing.T) {
	if !streams(t) {
		return
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"ToolsetStatus": true}) })
	l := listening(t, mm.URL, mm.Users[0].Token, "2025-11-25")
	status := toolsOf(t, config.ToolsetStatus)
	if !slices.Contains(l.tools(t), "get_status") {
		t.Fatalf("get_status is not listed with its toolset on: %v", status)
	}
	if err := mm.PatchPluginSettings(map[string]any{"ToolsetStatus": false}); err != nil {
		t.Fatal(err)
	}
	l.heard(t)
	names := l.tools(t)
	for _, tool := range status {
		if slices.Contains(names, tool) {
			t.Fatalf("%s is still listed with its toolset off: %v", tool, names)
		}
	}
	if !slices.Contains(names, "get_me") {
		t.Fatalf("the list lost what stays offered: %v", names)
	}
}

func TestTurningTheFilesToolsetOffTellsAConnectedClientThatItsPromptsAndResourcesChangedToo(t *testing.T) {
	if !streams(t) {
		return
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"ToolsetFiles": true}) })
	l := listening(t, mm.URL, mm.Users[0].Token, "2025-11-25")
	if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": false}); err != nil {
		t.Fatal(err)
	}
	for what, ch := range map[string]chan struct{}{"prompts/list_changed": l.prompts, "resources/list_changed": l.resources} {
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("%s heard no %s", l.name, what)
		}
	}
	prompts, err := l.s.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Name == "find_file" {
			t.Fatal("find_file is still listed with the files toolset off")
		}
	}
	templates, err := l.s.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tpl := range templates.ResourceTemplates {
		if strings.HasPrefix(tpl.URITemplate, "mattermost://file/") {
			t.Fatal("the file template is still listed with the files toolset off")
		}
	}
}

// levelsBelow is the log levels below level.
func levelsBelow(level sdk.LoggingLevel) []sdk.LoggingLevel {
	all := []sdk.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	return all[:slices.Index(all, level)]
}

func TestAWriteThatWaitsForThePersonSendsLogMessagesAtTheSetLevelAndNoneBelowNorItsContent(t *testing.T) {
	if !streams(t) {
		return
	}
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	l := listening(t, mm.URL, alice.Token, "2025-11-25")
	if err := l.s.SetLoggingLevel(t.Context(), &sdk.SetLoggingLevelParams{Level: "notice"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	marker := uniq(t, "logged")
	ch := createChannel(t, alice, uniq(t, "logs-"), "Logs", "O")
	res, err := l.s.CallTool(t.Context(), &sdk.CallToolParams{Name: "create_post", Arguments: map[string]any{
		"channel": ch.Id, "message": marker + " the quarterly figures",
		"files": []map[string]any{{"name": marker + "-figures.txt", "content": "figures\n"}}}})
	if err != nil {
		t.Fatalf("create_post: %v", err)
	}
	if res.IsError {
		t.Fatalf("create_post refused: %v", res.Content)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	waited := false
	for _, m := range l.logs {
		data := fmt.Sprint(m.Data)
		if slices.Contains(levelsBelow("notice"), m.Level) {
			t.Errorf("a log message below the level set: %s %s", m.Level, data)
		}
		if strings.Contains(data, marker) || strings.Contains(data, "quarterly") {
			t.Errorf("a log message carries the write's content: %s", data)
		}
		waited = waited || (m.Level == "notice" && m.Logger == "mattermost" && strings.Contains(data, "has not answered yet"))
	}
	if !waited {
		t.Fatalf("no notice that the write waits for the person: %+v", l.logs)
	}
}

func TestReadsThatWaitForMemorySendLogMessagesAtTheSetLevelOnAnyNode(t *testing.T) {
	if !streams(t) {
		return
	}
	lowBudget(t)
	data := gradientPNG(t, 2500, 2500, false) // more than half the budget: the reads go one by one
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "a large gradient", map[string][]byte{"logged-gradient.png": data})
	c, err := harness.ConnectMCPVersion(t.Context(), mm.URL, mm.Users[0].Token, "e2e-logging", "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	set := mcp.SetLevelRequest{}
	set.Params.Level = mcp.LoggingLevelNotice
	if err := c.SetLevel(t.Context(), set); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	var mu sync.Mutex
	var logs []mcp.JSONRPCNotification
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationMessage) {
			mu.Lock()
			logs = append(logs, n)
			mu.Unlock()
		}
	})
	readAtOnce(t, c, infos[0].Id, 6)
	mu.Lock()
	defer mu.Unlock()
	waits := 0
	for _, n := range logs {
		level, _ := n.Params.AdditionalFields["level"].(string)
		text := fmt.Sprint(n.Params.AdditionalFields["data"])
		if level == "debug" || level == "info" || strings.Contains(text, "logged-gradient") {
			t.Errorf("a log message below notice or naming the file: %s %s", level, text)
		}
		if level == "notice" && strings.Contains(text, "waits its turn for memory") {
			waits++
		}
	}
	if waits == 0 {
		t.Fatalf("reads that waited for memory sent no notice: %+v", logs)
	}
}
