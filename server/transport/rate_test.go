package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit/audittest"
)

// t0 is a second boundary, so that the tests' times read as offsets.
var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

func at(offset time.Duration) time.Time { return t0.Add(offset) }

func TestTheRateAdmitsUpToTheLimitInAMinuteAndSaysExactlyWhenTheNextCallIsAdmitted(t *testing.T) {
	type step struct {
		at    time.Duration
		calls int
		limit int
		// admitted is how many of the calls must be admitted; retry the
		// wait the last refusal answers.
		admitted int
		retry    time.Duration
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"at the limit", []step{{0, 10, 10, 10, 0}}},
		{"one over the limit waits for the whole minute", []step{{0, 11, 10, 10, 60 * time.Second}}},
		{"over it mid-second waits until the oldest second leaves", []step{
			{0, 10, 10, 10, 0}, {1500 * time.Millisecond, 1, 10, 0, 58500 * time.Millisecond}}},
		{"calls spread over the minute leave one second at a time", []step{
			{0, 4, 10, 4, 0}, {20 * time.Second, 6, 10, 6, 0}, {30 * time.Second, 1, 10, 0, 30 * time.Second}}},
		{"after a lowered limit the oldest second leaving is not always enough", []step{
			{0, 5, 600, 5, 0}, {10 * time.Second, 10, 600, 10, 0}, {15 * time.Second, 1, 10, 0, 55 * time.Second}}},
		{"recovered once the minute has passed", []step{
			{0, 10, 10, 10, 0}, {59 * time.Second, 1, 10, 0, time.Second}, {60 * time.Second, 10, 10, 10, 0}}},
		{"refused calls do not count", []step{
			{0, 10, 10, 10, 0}, {30 * time.Second, 50, 10, 0, 30 * time.Second}, {60 * time.Second, 1, 10, 1, 0}}},
		{"a raised limit admits at once", []step{{0, 10, 10, 10, 0}, {time.Second, 1, 10, 0, 59 * time.Second}, {2 * time.Second, 5, 600, 5, 0}}},
		{"a lowered limit refuses at once", []step{{0, 20, 600, 20, 0}, {time.Second, 1, 10, 0, 59 * time.Second}}},
		{"a clock that went back counts in the newest second", []step{
			{10 * time.Second, 9, 10, 9, 0}, {5 * time.Second, 2, 10, 1, 65 * time.Second}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l rateLimiter
			for i, s := range c.steps {
				admitted, last := 0, rateVerdict{ok: true}
				for range s.calls {
					v := l.admit("alice", at(s.at), s.limit)
					if v.ok {
						admitted++
					} else {
						last = v
					}
				}
				if admitted != s.admitted || (!last.ok && last.retry != s.retry) {
					t.Fatalf("step %d (%v, %d calls, limit %d): %d admitted, retry %v; want %d admitted, retry %v",
						i, s.at, s.calls, s.limit, admitted, last.retry, s.admitted, s.retry)
				}
			}
			if v := l.admit("bob", at(c.steps[len(c.steps)-1].at), 10); !v.ok {
				t.Fatal("another person was refused for alice's calls")
			}
		})
	}
}

func TestTheRetryIsWholeSecondsRoundedUpSoACallThatLateIsAdmitted(t *testing.T) {
	for _, c := range []struct {
		wait time.Duration
		want int
	}{{time.Millisecond, 1}, {time.Second, 1}, {58500 * time.Millisecond, 59}, {60 * time.Second, 60}} {
		if got := retrySeconds(c.wait); got != c.want {
			t.Errorf("retrySeconds(%v) = %d, want %d", c.wait, got, c.want)
		}
	}
	var l rateLimiter
	for range 10 {
		l.admit("alice", at(0), 10)
	}
	v := l.admit("alice", at(1500*time.Millisecond), 10)
	if v.ok || retrySeconds(v.retry) != 59 {
		t.Fatalf("verdict %+v", v)
	}
	if late := l.admit("alice", at(1500*time.Millisecond+59*time.Second), 10); !late.ok {
		t.Fatalf("a call %d seconds later, as answered, was refused: %+v", 59, late)
	}
}

func TestTheRateCountsAtMostItsCapOfPeopleAndDropsIdleOnesFirst(t *testing.T) {
	var l rateLimiter
	for i := range maxRatedPeople {
		l.admit(fmt.Sprintf("idle-%d", i), at(0), 10)
	}
	if n := len(l.people); n != maxRatedPeople {
		t.Fatalf("%d people counted, want %d", n, maxRatedPeople)
	}
	for range 10 {
		l.admit("busy", at(61*time.Second), 10)
	}
	if n := len(l.people); n != 1 {
		t.Fatalf("%d people counted after a minute, want only the one who called since", n)
	}
	// All of them calling within the same minute: the cap still holds, and
	// the person least recently seen makes room.
	for i := range maxRatedPeople + 100 {
		l.admit(fmt.Sprintf("active-%d", i), at(70*time.Second+time.Duration(i)*time.Millisecond), 10)
	}
	if n := len(l.people); n > maxRatedPeople {
		t.Fatalf("%d people counted, over the cap of %d", n, maxRatedPeople)
	}
	if l.people["busy"] != nil {
		t.Fatal("the person seen longest ago was kept while the cap was reached")
	}
	if l.people[fmt.Sprintf("active-%d", maxRatedPeople+99)] == nil {
		t.Fatal("the newest person was not counted")
	}
}

// rateNode is a node with a tool that counts its runs, a limit and a clock
// the test sets.
func rateNode(t *testing.T, limit *atomic.Int64, now *atomic.Pointer[time.Time]) (*Transport, *httptest.Server, *atomic.Int64, *audittest.Trail) {
	t.Helper()
	tr, srv := newNode(t, newMemKV(), &memLog{}, map[string]bool{"alice": true, "bob": true})
	runs := &atomic.Int64{}
	tr.MCP.AddTool(mcp.NewTool("count", mcp.WithDescription("test")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText("counted"), nil
	})
	rec := &audittest.Trail{}
	tr.opts.MaxCallsPerMinute = func() int { return int(limit.Load()) }
	tr.opts.Audit = rec
	tr.clock = func() time.Time { return *now.Load() }
	return tr, srv, runs, rec
}

const callCount = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`

func TestACallOverThePersonsRateIsAnsweredWithTheLimitAndTheRetryWithoutRunningTheTool(t *testing.T) {
	limit, now := rateClock(10)
	_, srv, runs, rec := rateNode(t, limit, now)
	session := openSession(t, srv.URL, "alice", initialize)

	for i := range 10 {
		if got := body(t, post(t, srv.URL, "alice", session, callCount)); !strings.Contains(got, "counted") {
			t.Fatalf("call %d: %s", i+1, got)
		}
	}
	// Lists and pings do not count.
	for _, m := range []string{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":4,"method":"ping"}`} {
		if resp := post(t, srv.URL, "alice", session, m); resp.StatusCode != http.StatusOK || strings.Contains(body(t, resp), "too fast") {
			t.Fatalf("%s was refused", m)
		}
	}
	later := at(1500 * time.Millisecond)
	now.Store(&later)
	for range 3 {
		resp := post(t, srv.URL, "alice", session, callCount)
		got := body(t, resp)
		if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `"id":7`) ||
			!strings.Contains(got, "going too fast") || !strings.Contains(got, "at most 10 tool calls a minute") ||
			!strings.Contains(got, "count was not run") || !strings.Contains(got, "Try again in 59 seconds") {
			t.Fatalf("the 11th call: %d %s", resp.StatusCode, got)
		}
	}
	if n := runs.Load(); n != 10 {
		t.Fatalf("the tool ran %d times, want 10", n)
	}
	if got := body(t, post(t, srv.URL, "bob", openSession(t, srv.URL, "bob", initialize), callCount)); !strings.Contains(got, "counted") {
		t.Fatalf("bob was refused for alice's calls: %s", got)
	}
	events := rec.All()
	if len(events) != 1 {
		t.Fatalf("%d refusals recorded, want one a minute: %+v", len(events), events)
	}
	if e := events[0]; e.Kind != audit.KindSignIn || e.Outcome != audit.OutcomeRefused || e.Reason != "rate_limited" ||
		e.Tool != "count" || e.UserID != "alice" || e.ClientName != "test-client" || !e.At.Equal(later) {
		t.Fatalf("recorded %+v", e)
	}

	limit.Store(600)
	if got := body(t, post(t, srv.URL, "alice", session, callCount)); !strings.Contains(got, "counted") {
		t.Fatalf("after the limit was raised: %s", got)
	}
	limit.Store(10)
	recovered := at(61 * time.Second)
	now.Store(&recovered)
	if got := body(t, post(t, srv.URL, "alice", session, callCount)); !strings.Contains(got, "counted") {
		t.Fatalf("a minute later: %s", got)
	}
}

func TestACallOfAToolNotOfferedIsAnsweredWithWhyWithoutRunningIt(t *testing.T) {
	limit, now := rateClock(600)
	tr, srv, runs, _ := rateNode(t, limit, now)
	tr.opts.NotOffered = func(_ context.Context, name string) string {
		if name == "count" {
			return "count is not offered: the admin left this tool out."
		}
		return ""
	}
	session := openSession(t, srv.URL, "alice", initialize)
	got := body(t, post(t, srv.URL, "alice", session, callCount))
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "the admin left this tool out") || runs.Load() != 0 {
		t.Fatalf("a call of a tool not offered: %s (ran %d times)", got, runs.Load())
	}
	if got := body(t, post(t, srv.URL, "alice", session, callWhoami)); !strings.Contains(got, "secret-content") {
		t.Fatalf("an offered tool: %s", got)
	}
}

func TestASideChannelRequestOverThePersonsRateGets429WithRetryAfter(t *testing.T) {
	limit, now := rateClock(10)
	tr, _, _, rec := rateNode(t, limit, now)
	for i := range 10 {
		if w := httptest.NewRecorder(); !tr.LimitRequest(w, "alice", "presigned_get") {
			t.Fatalf("request %d refused: %d %s", i+1, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	if tr.LimitRequest(w, "alice", "presigned_get") || w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "60" {
		t.Fatalf("the 11th: %d Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	if text := w.Body.String(); strings.Count(text, "\n") != 1 || !strings.Contains(text, "try again in 60 seconds") {
		t.Fatalf("body %q: want one line with the wait", text)
	}
	if e := rec.All(); len(e) != 1 || e[0].Tool != "presigned_get" || e[0].Reason != "rate_limited" {
		t.Fatalf("recorded %+v", e)
	}
}

func BenchmarkTheRateCheck(b *testing.B) {
	var l rateLimiter
	people := make([]string, 1000)
	for i := range people {
		people[i] = fmt.Sprintf("user-%04d", i)
	}
	start := time.Now()
	b.ResetTimer()
	for i := range b.N {
		l.admit(people[i%len(people)], start.Add(time.Duration(i)*time.Microsecond), 6000)
	}
}

// eightReads is a prompt that reads eight times, as catch_up may: each read
// asks CountRead first, and the prompt's text says which were run.
func eightReads(runs *atomic.Int64) (mcp.Prompt, func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error)) {
	return mcp.NewPrompt("eight_reads"), func(ctx context.Context, _ mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var msgs []mcp.PromptMessage
		for range 8 {
			text := "read"
			if refusal := CountRead(ctx, "read_unread"); refusal != "" {
				text = refusal
			} else {
				runs.Add(1)
			}
			msgs = append(msgs, mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)))
		}
		return mcp.NewGetPromptResult("eight reads", msgs), nil
	}
}

const getEightReads = `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"eight_reads"}}`

func TestEveryReadInsideAPromptCountsAgainstTheRateAndTheEleventhIsRefusedWithTheWait(t *testing.T) {
	limit, now := rateClock(10)
	tr, srv, calls, rec := rateNode(t, limit, now)
	reads := &atomic.Int64{}
	tr.MCP.AddPrompt(eightReads(reads))
	session := openSession(t, srv.URL, "alice", initialize)

	if got := body(t, post(t, srv.URL, "alice", session, getEightReads)); strings.Contains(got, "too fast") || reads.Load() != 8 {
		t.Fatalf("the first prompt ran %d reads: %s", reads.Load(), got)
	}
	later := at(1500 * time.Millisecond)
	now.Store(&later)
	got := body(t, post(t, srv.URL, "alice", session, getEightReads))
	if reads.Load() != 10 {
		t.Fatalf("the two prompts ran %d reads, want the 10 the rate admits: %s", reads.Load(), got)
	}
	for _, want := range []string{"going too fast", "at most 10 tool calls a minute", "read_unread was not run", "Try again in 59 seconds"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the eleventh read's refusal lacks %q: %s", want, got)
		}
	}
	// Read back on another request: the prompt's reads used the minute up.
	if got := body(t, post(t, srv.URL, "alice", session, callCount)); !strings.Contains(got, "count was not run") || calls.Load() != 0 {
		t.Fatalf("a tool call after the prompts' ten reads: %s", got)
	}
	if e := rec.All(); len(e) != 1 || e[0].Tool != "read_unread" || e[0].Reason != "rate_limited" || e[0].UserID != "alice" {
		t.Fatalf("recorded %+v", e)
	}
}

func TestCompletionsAndResourceListsCountAgainstTheRateWhileInitializeListsOfToolsAndPromptsAndPingsDoNot(t *testing.T) {
	limit, now := rateClock(10)
	tr, srv, _, _ := rateNode(t, limit, now)
	tr.opts.Resources = aliceOnly{offered: []string{"mattermost://file/{file_id}"}}
	tr.MCP.AddPrompt(eightReads(&atomic.Int64{}))
	session := openSession(t, srv.URL, "alice", initialize)
	const (
		complete = `{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"eight_reads"},"argument":{"name":"channel","value":"to"}}}`
		list     = `{"jsonrpc":"2.0","id":10,"method":"resources/list","params":{}}`
	)
	for range 5 {
		for _, m := range []string{complete, list} {
			if got := body(t, post(t, srv.URL, "alice", session, m)); strings.Contains(got, "too fast") {
				t.Fatalf("%s within the rate: %s", m, got)
			}
		}
	}
	for _, m := range []string{complete, list, readFileA} {
		got := rpc(t, body(t, post(t, srv.URL, "alice", session, m)))
		if got.Error == nil || got.Error.Code != rateLimitedCode || !strings.Contains(got.Error.Message, "going too fast") ||
			!strings.Contains(got.Error.Message, "at most 10 tool calls a minute") || !strings.Contains(got.Error.Message, "Try again in 60 seconds") {
			t.Fatalf("%s past the rate: %s %+v", m, got.Result, got.Error)
		}
	}
	for _, m := range []string{
		initialize,
		`{"jsonrpc":"2.0","id":11,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":12,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":13,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":14,"method":"ping"}`,
	} {
		s := session
		if strings.Contains(m, `"initialize"`) {
			s = ""
		}
		if resp := post(t, srv.URL, "alice", s, m); resp.StatusCode != http.StatusOK || strings.Contains(body(t, resp), "too fast") {
			t.Fatalf("%s was refused past the rate", m)
		}
	}
}

// rateClock is a limit of calls a minute and a clock at the start of the
// minute, both changed by the test as it goes.
func rateClock(limit int64) (*atomic.Int64, *atomic.Pointer[time.Time]) {
	var l atomic.Int64
	l.Store(limit)
	var now atomic.Pointer[time.Time]
	start := at(0)
	now.Store(&start)
	return &l, &now
}
