package e2e

// Issue 33: a connection chooses what it loads in the MCP URL's query or
// headers (toolsets, tools, read_only, the light start), always within the
// admin's settings, and loads the rest on demand with load_tools, which its
// session keeps on every node and tells the client of.

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// chosenNames is what a connection that chose ch is offered under cfg,
// sorted as tools/list answers.
func chosenNames(t *testing.T, cfg config.Configuration, ch config.Choice) []string {
	t.Helper()
	cat, err := catalogue.New(tools.All(tools.Deps{Config: config.Defaults}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range append(cat.All(), cat.Loaders()...) {
		if catalogue.OfferedTo(tool, cfg, ch) {
			names = append(names, tool.Name)
		}
	}
	slices.Sort(names)
	return names
}

// connectChoosing is connect to the MCP endpoint at url with headers
// besides the bearer token.
func connectChoosing(t *testing.T, url, token string, headers map[string]string) (*client.Client, error) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	for k, v := range headers {
		h[k] = v
	}
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(h))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacyVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-choosing", Version: "1"}
	_, err = c.Initialize(ctx, req)
	return c, err
}

func writesOn(t *testing.T) config.Configuration {
	t.Helper()
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowWrites": false}) })
	cfg := config.Defaults()
	cfg.AllowWrites = true
	return cfg
}

func TestAConnectionsToolsetsAndReadOnlyFromItsURLOrHeadersAreListedAndEnforcedOnBothNodes(t *testing.T) {
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	cfg := writesOn(t)
	alice := mm.Users[0]
	ch := config.Choice{Chosen: true, Toolsets: config.ToolsetFiles | config.ToolsetPosting, ReadOnly: true}
	want := chosenNames(t, cfg, ch)
	if !slices.Contains(want, "read_file") || slices.Contains(want, "create_post") || !slices.Contains(want, "load_tools") {
		t.Fatalf("the expectation is not what this test is about: %v", want)
	}
	for node, site := range mm.NodeURLs() {
		for how, c := range map[string]struct {
			query   string
			headers map[string]string
		}{
			"query":   {query: "?toolsets=files,posting&read_only=true"},
			"headers": {headers: map[string]string{"X-MCP-Toolsets": "files, posting", "X-MCP-Read-Only": "true"}},
		} {
			cl, err := connectChoosing(t, mcpURL(site)+c.query, alice.Token, c.headers)
			if err != nil {
				t.Fatalf("node %d, %s: initialize: %v", node+1, how, err)
			}
			if listed := toolNames(t, cl); !slices.Equal(listed, want) {
				t.Fatalf("node %d, %s: listed %v, want %v", node+1, how, listed, want)
			}
			res, err := callErr(cl, "create_post", map[string]any{"channel": "town-square", "message": "must not be posted"})
			if err != nil || !res.IsError || !strings.Contains(text(res), "this connection is read-only") {
				t.Fatalf("node %d, %s: create_post on a read-only connection: %v %+v", node+1, how, err, res)
			}
			res, err = callErr(cl, "list_teams", map[string]any{})
			if err != nil || !res.IsError || !strings.Contains(text(res), `load_tools {"tools":["list_teams"]}`) {
				t.Fatalf("node %d, %s: list_teams not loaded: %v %+v", node+1, how, err, res)
			}
			me := text(call(t, cl, "get_me", nil))
			if !strings.Contains(me, "loads only files, posting") || !strings.Contains(me, "read-only") {
				t.Fatalf("node %d, %s: get_me says %q", node+1, how, me)
			}
		}
	}

	// An unknown toolset is refused at initialize, naming the valid ones.
	_, err := connectChoosing(t, mcpURL(mm.URL)+"?toolsets=chanels", alice.Token, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown toolset "chanels"`) || !strings.Contains(err.Error(), "channels, files, people") {
		t.Fatalf("initialize ?toolsets=chanels: %v", err)
	}
}

func TestTheLightStartLoadsAToolsetWithLoadToolsAndTheTypeScriptSDKHearsListsAndCallsItWithoutReconnecting(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	statusCall := sdkStep{"tools/call", map[string]any{"name": "get_status", "arguments": map[string]any{"users": []string{"@" + bob.Username}}}}
	// Where Mattermost streams, the client hears the list changed; where it
	// cannot, load_tools' answer says to list again, and the client does.
	hears := streams(t)
	heard := sdkStep{"wait", map[string]any{"notification": "notifications/tools/list_changed", "timeoutMs": 10000}}
	if !hears {
		heard = sdkStep{"tools/list", nil}
	}
	run := runTypeScriptSDKAt(t, mcpURL(mm.URL)+"?toolsets=light", alice.Token,
		sdkStep{"tools/list", nil},
		statusCall,
		sdkStep{"tools/call", map[string]any{"name": "find_tools", "arguments": map[string]any{"query": "status"}}},
		sdkStep{"tools/call", map[string]any{"name": "load_tools", "arguments": map[string]any{"toolsets": []string{"status"}}}},
		heard,
		sdkStep{"tools/list", nil},
		statusCall,
	)
	for i, r := range run.Results {
		if r.Error != nil {
			t.Fatalf("step %d %s: %s", i, r.Method, r.Error.Message)
		}
	}
	var before, after struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	sdkDecode(t, run, 0, &before)
	sdkDecode(t, run, 5, &after)
	names := func(l []struct {
		Name string `json:"name"`
	}) []string {
		var out []string
		for _, x := range l {
			out = append(out, x.Name)
		}
		slices.Sort(out)
		return out
	}
	light := chosenNames(t, config.Defaults(), config.Choice{Chosen: true, Light: true})
	if got := names(before.Tools); !slices.Equal(got, light) {
		t.Fatalf("the light start lists %v, want %v", got, light)
	}
	t.Logf("tools/list of the light start on the server: %d tools, %d bytes", len(before.Tools), len(run.Results[0].Result))
	var refused, found, loaded, called sdkToolResult
	sdkDecode(t, run, 1, &refused)
	sdkDecode(t, run, 2, &found)
	sdkDecode(t, run, 3, &loaded)
	sdkDecode(t, run, 6, &called)
	if !refused.IsError || !strings.Contains(refused.Content[0].Text, `load_tools {"tools":["get_status"]}`) {
		t.Fatalf("get_status before it is loaded: %+v", refused)
	}
	if !strings.Contains(found.Content[0].Text, "get_status (toolset status, not loaded)") {
		t.Fatalf("find_tools status: %+v", found)
	}
	if loaded.IsError || !strings.Contains(loaded.Content[0].Text, "get_status") {
		t.Fatalf("load_tools status: %+v", loaded)
	}
	if listAgain := strings.Contains(loaded.Content[0].Text, "list tools again (tools/list)"); listAgain == hears {
		t.Fatalf("load_tools on a Mattermost that streams=%v says to list again=%v: %s", hears, listAgain, loaded.Content[0].Text)
	}
	if got := names(after.Tools); !slices.Contains(got, "get_status") || len(got) != len(light)+1 {
		t.Fatalf("after load_tools, listed %v", got)
	}
	if called.IsError || !strings.Contains(called.Content[0].Text, bob.Username) {
		t.Fatalf("get_status once loaded: %+v", called)
	}
}

func TestALoadedToolsetHoldsOnTheOtherNodeAndTheAdminTurningItOffRemovesItWithTheNotice(t *testing.T) {
	if !streams(t) {
		return
	}
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"ToolsetStatus": true}) })
	alice := mm.Users[0]
	nodes := mm.NodeURLs()
	l := listeningAt(t, mcpURL(nodes[0])+"?toolsets=light", alice.Token, legacyVersion)
	if slices.Contains(l.tools(t), "get_status") {
		t.Fatal("get_status is listed before it is loaded")
	}
	res, err := l.s.CallTool(t.Context(), &sdk.CallToolParams{Name: "load_tools", Arguments: map[string]any{"tools": []string{"get_status", "set_status"}}})
	if err != nil || res.IsError {
		t.Fatalf("load_tools: %v %+v", err, res)
	}
	l.heard(t)
	if got := l.tools(t); !slices.Contains(got, "get_status") || slices.Contains(got, "set_status") {
		t.Fatalf("after loading get_status and set_status with writes off: %v", got)
	}
	// The session's record carries what it loaded: the other node lists it.
	listOn := func(site string) []string {
		status, _, body := mcpPost(t, site, alice.Token, l.s.ID(), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
		if status != 200 {
			t.Fatalf("tools/list on %s: %d %s", site, status, body)
		}
		var answer struct {
			Result mcp.ListToolsResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(sseData(body)), &answer); err != nil {
			t.Fatalf("tools/list on %s: %v in %s", site, err, body)
		}
		var names []string
		for _, tool := range answer.Result.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	if got := listOn(nodes[1]); !slices.Contains(got, "get_status") {
		t.Fatalf("node 2 lists %v for the session that loaded get_status on node 1", got)
	}

	if err := mm.PatchPluginSettings(map[string]any{"ToolsetStatus": false}); err != nil {
		t.Fatal(err)
	}
	l.heard(t)
	if got := l.tools(t); slices.Contains(got, "get_status") {
		t.Fatalf("get_status is still listed with its toolset off: %v", got)
	}
	if got := listOn(nodes[1]); slices.Contains(got, "get_status") {
		t.Fatalf("node 2 still lists get_status with its toolset off: %v", got)
	}
	res, err = l.s.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_status", Arguments: map[string]any{"users": []string{"@" + alice.Username}}})
	if err != nil || !res.IsError {
		t.Fatalf("get_status with its toolset off: %v %+v", err, res)
	}
	if txt := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(txt, `the admin has turned off the toolset "Status"`) {
		t.Fatalf("get_status with its toolset off: %q", txt)
	}
}
