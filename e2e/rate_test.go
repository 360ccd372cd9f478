package e2e

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

var tryAgainIn = regexp.MustCompile(`Try again in (\d+) seconds`)

func TestPastItsCallsAMinuteAPersonIsToldWhenToTryAgainTheSideChannelAnswers429AndARaisedLimitLetsThemOnAtOnce(t *testing.T) {
	u := newPerson(t, "rate")
	// One node: the limit is counted on each node separately.
	c := connect(t, mm.URL, u.Token)
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.MinMaxCallsPerMinute}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
			t.Errorf("restore the calls a minute: %v", err)
		}
	})

	// Ten calls, two of them for a presigned URL of the side channel.
	if res := call(t, c, "files_write", map[string]any{"name": "rate.txt", "text": "counted\n"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	res := call(t, c, "files_presign", map[string]any{"name": "rate.txt", "direction": "download"})
	if res.IsError {
		t.Fatalf("files_presign: %s", text(res))
	}
	var presigned struct{ URL string }
	structuredAs(t, res, &presigned)
	for i := 3; i <= config.MinMaxCallsPerMinute; i++ {
		if res := call(t, c, "get_me", nil); res.IsError {
			t.Fatalf("call %d of %d: %s", i, config.MinMaxCallsPerMinute, text(res))
		}
	}
	// Listing does not count.
	if names := toolNames(t, c); len(names) == 0 {
		t.Fatal("tools/list answered nothing")
	}

	res, err := callErr(c, "list_teams", nil)
	if err != nil {
		t.Fatalf("the 11th call: a protocol error instead of a tool error: %v", err)
	}
	body := text(res)
	m := tryAgainIn.FindStringSubmatch(body)
	if !res.IsError || m == nil || !strings.Contains(body, "going too fast") || !strings.Contains(body, "at most 10 tool calls a minute") ||
		!strings.Contains(body, "list_teams was not run") {
		t.Fatalf("the 11th call: %s", body)
	}
	if wait, _ := strconv.Atoi(m[1]); wait < 1 || wait > 60 {
		t.Fatalf("the 11th call says to wait %d seconds", wait)
	}

	resp, got := httpDo(t, http.MethodGet, presigned.URL, "", nil)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || retry < 1 || retry > 60 ||
		strings.Count(string(got), "\n") != 1 || !strings.Contains(string(got), "try again in "+resp.Header.Get("Retry-After")+" seconds") {
		t.Fatalf("the presigned download past the limit: %d Retry-After %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), got)
	}
	if resp, _ := httpDo(t, http.MethodGet, pluginURL()+workspace.APIPath, u.Token, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the workspace API past the limit: %d", resp.StatusCode)
	}
	// Another person is not slowed by this one.
	other := newPerson(t, "unhurried")
	if res := call(t, connect(t, mm.URL, other.Token), "get_me", nil); res.IsError {
		t.Fatalf("another person was refused for this one's calls: %s", text(res))
	}

	// The refusal is in the server's log, once per call, without content
	// (Mattermost writes its log in the background).
	refused := regexp.MustCompile(`"msg":"MCP tool call".*"user_id":"` + u.ID + `","tool":"list_teams","outcome":"rate_limited"`)
	eventually(t, "the refused call is in the log "+mm.ServerLog(), func() bool {
		raw, err := os.ReadFile(mm.ServerLog())
		if err != nil {
			t.Fatal(err)
		}
		return refused.Match(raw)
	})

	// Recovery without waiting the minute out: the admin raises the limit.
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
		t.Fatal(err)
	}
	if res := call(t, c, "list_teams", nil); res.IsError {
		t.Fatalf("the next call after the limit was raised: %s", text(res))
	}
	if resp, got := httpDo(t, http.MethodGet, presigned.URL, "", nil); resp.StatusCode != http.StatusOK || string(got) != "counted\n" {
		t.Fatalf("the presigned download after the limit was raised: %d %q", resp.StatusCode, got)
	}
}

// tooFast fails unless text is the rate's refusal: the limit, what was not
// run (notRun, or any read for "") and a wait of 1 to 60 seconds.
func tooFast(t *testing.T, what, text, notRun string) {
	t.Helper()
	m := tryAgainIn.FindStringSubmatch(text)
	if m == nil || !strings.Contains(text, "going too fast") || !strings.Contains(text, "at most 10 tool calls a minute") ||
		!regexp.MustCompile(regexp.QuoteMeta(notRun)+`[a-z_/]* was not run`).MatchString(text) {
		t.Fatalf("%s: %s", what, text)
	}
	if wait, _ := strconv.Atoi(m[1]); wait < 1 || wait > 60 {
		t.Fatalf("%s says to wait %d seconds", what, wait)
	}
}

func TestWithTheRateAt10TheEleventhReadIsRefusedWithTheWaitInsideAPromptAndCompletionsAndResourceListsCountToo(t *testing.T) {
	u := newPerson(t, "promptrate")
	// One node: the limit is counted on each node separately.
	s := officialSDK(t, u)
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.MinMaxCallsPerMinute}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
			t.Errorf("restore the calls a minute: %v", err)
		}
	})
	ctx := context.Background()

	// Nine reads: four tool calls, three completions, two resource lists.
	for range 4 {
		sdkCall(t, s, "get_me", nil)
	}
	for range 3 {
		completePrompt(t, s, "summarize_channel", "channel", "to", nil)
	}
	for range 2 {
		if _, err := s.ListResources(ctx, &sdk.ListResourcesParams{}); err != nil {
			t.Fatalf("resources/list within the rate: %v", err)
		}
	}
	// catch_up reads at least three times (unreads, mentions, threads): its
	// first read is the tenth, its second the eleventh.
	parts := partsOf(t, getPrompt(t, s, "catch_up", nil))
	if first := parts.texts["mattermost://unreads"]; first == "" || strings.Contains(first, "too fast") {
		t.Fatalf("the tenth read, catch_up's first: %q", first)
	}
	refused := 0
	for _, uri := range parts.uris[1:] {
		if text := parts.texts[uri]; strings.Contains(text, "going too fast") {
			tooFast(t, "a read inside catch_up past the rate", text, "")
			refused++
		} else if uri != "mattermost://unreads" {
			t.Fatalf("catch_up's read of %s past the rate was run: %.300s", uri, text)
		}
	}
	if refused < 2 {
		t.Fatalf("%d of catch_up's reads were refused, want every one after the first: %v", refused, parts.uris)
	}

	// Read back on requests of their own: the minute is used up for every
	// kind of read, with the same answer, while tools/list is still free.
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "get_me"})
	if err != nil || !res.IsError {
		t.Fatalf("get_me past the rate: %v %+v", err, res)
	}
	tooFast(t, "get_me past the rate", res.Content[0].(*sdk.TextContent).Text, "get_me")
	_, err = s.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "summarize_channel"},
		Argument: sdk.CompleteParamsArgument{Name: "channel", Value: "to"}})
	if err == nil {
		t.Fatal("completion/complete past the rate was answered")
	}
	tooFast(t, "completion/complete past the rate", err.Error(), "completion/complete")
	if _, err = s.ListResources(ctx, &sdk.ListResourcesParams{}); err == nil {
		t.Fatal("resources/list past the rate was answered")
	}
	tooFast(t, "resources/list past the rate", err.Error(), "resources/list")
	if tools, err := s.ListTools(ctx, &sdk.ListToolsParams{}); err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list past the rate: %v", err)
	}
}
