package e2e

// Issue 31, item 2: a client shown the confirmation page (url-mode
// elicitation) is told the question is over when the person answers there,
// also after the call returned that the write still waits: the plugin
// sends notifications/elicitation/complete on the session's GET stream.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestTheOfficialTypeScriptSDKHearsItsURLQuestionIsOverWhenThePersonAnswersAfterTheCallReturned(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "ts-url-closed")
	steps := filepath.Join(t.TempDir(), "steps")
	plan, err := json.Marshal([]sdkStep{
		{Method: "tools/call", Params: map[string]any{"name": "create_post", "arguments": map[string]any{"channel": ch.Id, "message": marker}}},
		{Method: "wait", Params: map[string]any{"notification": "notifications/elicitation/complete", "timeoutMs": 30000}},
	})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		run struct {
			sdkRun
			Elicitations []struct {
				Mode          string `json:"mode"`
				ElicitationID string `json:"elicitationId"`
				URL           string `json:"url"`
			} `json:"elicitations"`
		}
		err error
	}
	done := make(chan *outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		o := &outcome{}
		o.err = harness.RunNodeScript(ctx, "mcp-client.mjs", []string{string(plan)}, map[string]string{
			"MCP_URL": mcpURL(mm.URL), "MCP_TOKEN": alice.Token, "MCP_STEPS_FILE": steps,
			"MCP_CLIENT_CAPABILITIES": `{"elicitation":{"url":{}}}`,
		}, &o.run)
		done <- o
	}()

	id := waitPending(t, alice, marker)
	// The person answers only once the call has answered that the write
	// still waits (after its 20 seconds).
	var finished *outcome
	for finished == nil {
		if b, _ := os.ReadFile(steps); strings.Contains(string(b), "tools/call") {
			break
		}
		select {
		case finished = <-done:
		case <-time.After(100 * time.Millisecond):
		}
	}
	if finished != nil {
		t.Fatalf("the SDK's run ended before its call answered: %v", finished.err)
	}
	answerOnPage(t, alice, id, "accept", marker)
	answered := time.Now()
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	run := o.run
	if len(run.Elicitations) != 1 || run.Elicitations[0].Mode != "url" || run.Elicitations[0].ElicitationID != id {
		t.Fatalf("the SDK was asked %+v, want one url-mode question about %s", run.Elicitations, id)
	}
	var call sdkToolResult
	var wrote tools.WriteResult
	sdkDecode(t, run.sdkRun, 0, &call)
	if err := json.Unmarshal(call.StructuredContent, &wrote); err != nil || wrote.State != "pending" || wrote.ID != id {
		t.Fatalf("create_post answered %s, not that %s still waits", run.Results[0].Result, id)
	}
	if r := run.Results[1]; r.Error != nil {
		t.Fatalf("the SDK was not told the question was over: %s", r.Error.Message)
	}
	var closed []string
	for _, raw := range run.Notifications {
		var n struct {
			Method string `json:"method"`
			Params struct {
				ElicitationID string `json:"elicitationId"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &n) == nil && n.Method == "notifications/elicitation/complete" {
			closed = append(closed, n.Params.ElicitationID)
		}
	}
	if len(closed) != 1 || closed[0] != id {
		t.Fatalf("the SDK was told the questions %q were over, not once %q", closed, id)
	}
	t.Logf("the SDK heard the question was over within %s of the person's answer (the run's end)", time.Since(answered).Round(time.Millisecond))
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts read back through REST, want 1", n)
	}
}
