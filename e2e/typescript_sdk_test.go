package e2e

// Issue 20: the official MCP TypeScript SDK (run with Node 22 by
// harness.RunNodeScript and e2e/node/mcp-client.mjs) connects to the
// plugin on the real server, lists the tools and calls get_me and
// read_channel; the answers match what Mattermost's REST API says.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// sdkStep is one step of mcp-client.mjs's plan.
type sdkStep struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// sdkRun is what mcp-client.mjs prints.
type sdkRun struct {
	ProtocolVersion string `json:"protocolVersion"`
	SessionID       string `json:"sessionId"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities map[string]json.RawMessage `json:"capabilities"`
	Results      []struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"results"`
	Notifications []json.RawMessage `json:"notifications"`
}

// runTypeScriptSDK runs plan with the official TypeScript SDK against the
// MCP endpoint of site, signed in with token, and fails the test on any
// step that answered an error.
func runTypeScriptSDK(t *testing.T, site, token string, plan ...sdkStep) sdkRun {
	t.Helper()
	run := runTypeScriptSDKPlan(t, site, token, plan...)
	for _, r := range run.Results {
		if r.Error != nil {
			t.Fatalf("%s answered an error through the TypeScript SDK: %s", r.Method, r.Error.Message)
		}
	}
	return run
}

// runTypeScriptSDKPlan is runTypeScriptSDK for a plan whose steps may
// answer errors: the test reads them.
func runTypeScriptSDKPlan(t *testing.T, site, token string, plan ...sdkStep) sdkRun {
	t.Helper()
	return runTypeScriptSDKAt(t, mcpURL(site), token, plan...)
}

// runTypeScriptSDKAt is runTypeScriptSDKPlan against the MCP endpoint at
// url, which may carry a query (what the connection loads).
func runTypeScriptSDKAt(t *testing.T, url, token string, plan ...sdkStep) sdkRun {
	t.Helper()
	raw, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var run sdkRun
	if err := harness.RunNodeScript(ctx, "mcp-client.mjs", []string{string(raw)},
		map[string]string{"MCP_URL": url, "MCP_TOKEN": token}, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != len(plan) {
		t.Fatalf("the plan had %d steps and %d answered", len(plan), len(run.Results))
	}
	return run
}

// sdkToolResult is a tools/call result as the SDK returns it.
type sdkToolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func TestTheOfficialTypeScriptSDKListsTheToolsAndReadsWhoIAmAndAChannelAsRESTDoes(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "ts-sdk-"), "TypeScript SDK", model.ChannelTypeOpen)
	for i := range 3 {
		createPost(t, alice, ch.Id, fmt.Sprintf("note %d from the TypeScript SDK test", i), "")
	}

	run := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/list"},
		sdkStep{Method: "tools/call", Params: map[string]any{"name": "get_me", "arguments": map[string]any{}}},
		sdkStep{Method: "tools/call", Params: map[string]any{"name": "read_channel", "arguments": map[string]any{"channel": ch.Id}}},
	)
	if run.ProtocolVersion != legacyVersion || run.SessionID == "" || run.ServerInfo.Name != "Mattermost" || run.Capabilities["tools"] == nil {
		t.Fatalf("the SDK negotiated %q, session %q, server %+v, capabilities %v", run.ProtocolVersion, run.SessionID, run.ServerInfo, run.Capabilities)
	}

	var listed struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(run.Results[0].Result, &listed); err != nil {
		t.Fatal(err)
	}
	var sdkNames []string
	for _, tool := range listed.Tools {
		sdkNames = append(sdkNames, tool.Name)
	}
	goNames := toolNames(t, connect(t, mm.URL, alice.Token))
	slices.Sort(sdkNames)
	slices.Sort(goNames)
	if !slices.Equal(sdkNames, goNames) || !slices.Contains(sdkNames, "read_channel") {
		t.Fatalf("the TypeScript SDK lists %v, the Go client %v", sdkNames, goNames)
	}

	var meResult sdkToolResult
	var me tools.Me
	if err := json.Unmarshal(run.Results[1].Result, &meResult); err != nil || meResult.IsError || json.Unmarshal(meResult.StructuredContent, &me) != nil {
		t.Fatalf("get_me: %v %s", err, run.Results[1].Result)
	}
	rest, _, err := mm.Client(alice).GetMe(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if me.UserID != rest.Id || me.Username != rest.Username || me.Email != rest.Email {
		t.Fatalf("get_me through the TypeScript SDK says %s/%s/%s, REST %s/%s/%s", me.UserID, me.Username, me.Email, rest.Id, rest.Username, rest.Email)
	}

	var readResult sdkToolResult
	var page tools.PostPage
	if err := json.Unmarshal(run.Results[2].Result, &readResult); err != nil || readResult.IsError || json.Unmarshal(readResult.StructuredContent, &page) != nil {
		t.Fatalf("read_channel: %v %s", err, run.Results[2].Result)
	}
	posts, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), ch.Id, 0, 60, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Posts) != len(posts.Order) {
		t.Fatalf("read_channel through the TypeScript SDK shows %d posts, REST %d", len(page.Posts), len(posts.Order))
	}
	for _, p := range page.Posts {
		want, ok := posts.Posts[p.ID]
		if !ok || p.AuthorID != want.UserId || (want.Type == "" && p.Message != want.Message) {
			t.Fatalf("read_channel's post %s (%q by %s) is not REST's (%+v)", p.ID, p.Message, p.AuthorID, want)
		}
	}
}
