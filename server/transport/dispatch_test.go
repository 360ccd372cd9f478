package transport

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
)

// TestEveryMethodOfBothRevisionsTakesItsConcernsRoute walks every method a
// client sends on 2025-11-25 and on 2026-07-28 (and the answers to the
// server's questions) through routeOf: a method that gains a concern
// fails here until its row is added.
func TestEveryMethodOfBothRevisionsTakesItsConcernsRoute(t *testing.T) {
	cases := []struct {
		env  envelope
		want string
	}{
		{envelope{method: string(mcp.MethodInitialize)}, "sessions"},
		{envelope{method: string(mcp.MethodPing)}, "mcp-go"},
		{envelope{method: string(mcp.MethodServerDiscover)}, "mcp-go"},
		{envelope{method: string(mcp.MethodToolsList)}, "mcp-go"},
		{envelope{method: string(mcp.MethodToolsCall), tool: "get_me"}, "tool calls"},
		{envelope{method: string(mcp.MethodPromptsList)}, "mcp-go"},
		{envelope{method: string(mcp.MethodPromptsGet)}, "prompts"},
		{envelope{method: string(mcp.MethodResourcesList)}, "resources"},
		{envelope{method: string(mcp.MethodResourcesRead)}, "resources"},
		{envelope{method: string(mcp.MethodResourcesTemplatesList)}, "mcp-go"},
		{envelope{method: string(mcp.MethodResourcesSubscribe)}, "subscriptions"},
		{envelope{method: string(mcp.MethodResourcesUnsubscribe)}, "subscriptions"},
		{envelope{method: string(mcp.MethodSubscriptionsListen)}, "notices"},
		{envelope{method: string(mcp.MethodSetLogLevel)}, "notices"},
		{envelope{method: string(mcp.MethodCompletionComplete)}, "mcp-go"},
		{envelope{method: string(mcp.MethodTasksGet)}, "tasks"},
		{envelope{method: string(mcp.MethodTasksResult)}, "tasks"},
		{envelope{method: string(mcp.MethodTasksList)}, "tasks"},
		{envelope{method: string(mcp.MethodTasksCancel)}, "tasks"},
		{envelope{method: filetransfer.MethodAuthorizeUpload}, "file transfer"},
		{envelope{method: filetransfer.MethodAuthorizeDownload}, "file transfer"},
		{envelope{method: "files/unknown"}, "file transfer"},
		{envelope{method: string(mcp.MethodNotificationInitialized)}, "mcp-go"},
		{envelope{method: string(mcp.MethodNotificationCancelled)}, "cancellation"},
		{envelope{method: string(mcp.MethodNotificationRootsListChanged)}, "mcp-go"},
		{envelope{id: []byte("7"), answer: true}, "answers"},
		{envelope{}, "mcp-go"}, // no message at all: mcp-go answers the parse error
		{envelope{method: "no/such"}, "mcp-go"},
	}
	for _, c := range cases {
		if got := routeOf(c.env).concern; got != c.want {
			t.Errorf("%q (answer %v) goes to %q, want %q", c.env.method, c.env.answer, got, c.want)
		}
	}
}

// TestEveryRouteAndCheckServesSomething keeps the table whole: a row
// without a function would panic on its first message.
func TestEveryRouteAndCheckServesSomething(t *testing.T) {
	for method, rt := range routes {
		if rt.serve == nil || rt.concern == "" {
			t.Errorf("the route of %q has no concern or no serve", method)
		}
	}
	for _, c := range checks {
		if c.pass == nil || c.name == "" {
			t.Errorf("check %q has no function", c.name)
		}
	}
}
