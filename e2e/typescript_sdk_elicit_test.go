package e2e

// Issue 31, item 2: a client shown the confirmation page (url-mode
// elicitation) is told the question is over when the person answers there,
// also after the call returned that the write still waits: the plugin
// sends notifications/elicitation/complete on the session's GET stream,
// wherever the person answered (ADR 0018).

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
	if !streams(t) {
		return
	}
	heard := urlQuestionClosedAfterItsCallReturned(t, mm.URL, mm.URL)
	t.Logf("the SDK heard the question was over %s after the person's answer", heard.Round(time.Millisecond))
}

func TestTheSDKOnOneNodeHearsItsURLQuestionIsOverWhenThePersonAnswersOnTheOtherNodeWithoutClusterEvents(t *testing.T) {
	if !streams(t) {
		return
	}
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	// The harness's two nodes run without a licence, so share no cluster
	// events: the notice goes through the KV inbox of the client's node.
	heard := urlQuestionClosedAfterItsCallReturned(t, nodes[0], nodes[1])
	t.Logf("the SDK on node 1 heard the question answered on node 2 was over %s after the answer", heard.Round(time.Millisecond))
}

// sdkShownPages is a run of mcp-client.mjs as a client that shows pages,
// with the url-mode questions it was asked.
type sdkShownPages struct {
	run struct {
		sdkRun
		Elicitations []struct {
			Mode          string `json:"mode"`
			URL           string `json:"url"`
			ElicitationID string `json:"elicitationId"`
		} `json:"elicitations"`
	}
	err error
}

// runSDKShownPages runs plan in the official SDK against site as token's
// person, declaring url-mode elicitation, in the background; steps is the
// file it notes each finished step in.
func runSDKShownPages(site, token string, plan []byte, steps string) chan *sdkShownPages {
	done := make(chan *sdkShownPages, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		o := &sdkShownPages{}
		o.err = harness.RunNodeScript(ctx, "mcp-client.mjs", []string{string(plan)}, map[string]string{
			"MCP_URL": mcpURL(site), "MCP_TOKEN": token, "MCP_STEPS_FILE": steps,
			"MCP_CLIENT_CAPABILITIES": `{"elicitation":{"url":{}}}`,
		}, &o.run)
		done <- o
	}()
	return done
}

// urlQuestionClosedAfterItsCallReturned has the SDK, with every request
// (its GET stream among them) on clientSite, call create_post as a client
// that shows pages; once the call answered that the write still waits, the
// person accepts on answerSite. The SDK must hear once that the question is
// over, and the post reads back once. It answers how long after the accept
// the SDK heard it.
func urlQuestionClosedAfterItsCallReturned(t *testing.T, clientSite, answerSite string) time.Duration {
	t.Helper()
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
	done := runSDKShownPages(clientSite, alice.Token, plan, steps)

	id := waitPendingAt(t, answerSite, alice, marker)
	// The person answers only once the call has answered that the write
	// still waits (after its 20 seconds).
	stepDone := func(method string) bool {
		b, _ := os.ReadFile(steps)
		return strings.Contains(string(b), method+"\n")
	}
	for !stepDone("tools/call") {
		select {
		case o := <-done:
			t.Fatalf("the SDK's run ended before its call answered: %v", o.err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	web := browserAt(t, answerSite, alice)
	_, page := get(t, web, confirmAt(answerSite)+"/"+id, "")
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page at %s: %s", answerSite, page)
	}
	if code, body := answerAt(t, answerSite, web, id, "accept", m[1]); code != 200 {
		t.Fatalf("accept at %s: %d %s", answerSite, code, body)
	}
	answered := time.Now()
	// The SDK notes its wait's end in the steps file as the notice comes.
	for !stepDone("wait") {
		select {
		case o := <-done:
			if !stepDone("wait") {
				t.Fatalf("the SDK's run ended before it heard the question was over: %v", o.err)
			}
			done <- o
		case <-time.After(10 * time.Millisecond):
		}
	}
	heard := time.Since(answered)

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
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts read back through REST, want 1", n)
	}
	return heard
}
