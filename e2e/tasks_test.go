package e2e

// Issue 31: a write that waits for the person, followed as an MCP task by
// a client of the official TypeScript SDK (protocol 2025-11-25) on one node
// while the person answers on the other, and by a client of 2026-07-28's
// tasks extension.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// sdkTask is a task as the SDK answers it.
type sdkTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// sdkWriteResult is a write tool's result as the SDK answers it.
type sdkWriteResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		State     string `json:"state"`
		Permalink string `json:"permalink"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

func (r sdkWriteResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// runTasksPlan runs plan with the SDK against site as token; at each pause
// onPause gets the results so far.
func runTasksPlan(t *testing.T, site, token string, onPause func(results []json.RawMessage), plan ...sdkStep) sdkRun {
	t.Helper()
	raw, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var run sdkRun
	err = harness.RunNodeScriptPaused(ctx, "mcp-client.mjs", []string{string(raw)}, map[string]string{"MCP_URL": mcpURL(site), "MCP_TOKEN": token},
		func(line []byte) error {
			var paused struct {
				Paused []json.RawMessage `json:"paused"`
			}
			if err := json.Unmarshal(line, &paused); err != nil {
				return err
			}
			onPause(paused.Paused)
			return nil
		}, &run)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// pausedTask is the task a paused plan's step i answered (tasks/get).
func pausedTask(t *testing.T, results []json.RawMessage, i int) sdkTask {
	var step struct {
		Result sdkTask `json:"result"`
	}
	if i >= len(results) || json.Unmarshal(results[i], &step) != nil {
		t.Errorf("no task at step %d of %d", i, len(results))
	}
	return step.Result
}

func TestAPostCalledAsATaskWaitsForThePersonAndItsResultOnOneNodeIsThePostAcceptedOnTheOther(t *testing.T) {
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "tasked")
	var accepted time.Time
	run := runTasksPlan(t, nodes[0], alice.Token, func(results []json.RawMessage) {
		task := pausedTask(t, results, 1)
		if task.Status != "input_required" || !strings.Contains(task.StatusMessage, confirmAt(mm.URL)+"/") {
			t.Errorf("tasks/get before the answer = %+v, want input_required naming the page", task)
		}
		id := waitPendingAt(t, nodes[1], alice, marker)
		web := browserAt(t, nodes[1], alice)
		_, page := get(t, web, confirmAt(nodes[1])+"/"+id, "")
		m := csrfField.FindStringSubmatch(page)
		if m == nil {
			t.Errorf("the page on the second node: %s", page)
			return
		}
		if code, body := answerAt(t, nodes[1], web, id, "accept", m[1]); code != 200 {
			t.Errorf("accept on the second node: %d %s", code, body)
		}
		accepted = time.Now()
	},
		sdkStep{Method: "tools/call-task", Params: map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "pause"},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
	)
	var created struct{ Task sdkTask }
	sdkDecode(t, run, 0, &created)
	if created.Task.TaskID == "" || created.Task.TTL <= 0 || created.Task.PollInterval <= 0 {
		t.Fatalf("the call made no task: %+v", created)
	}
	var res sdkWriteResult
	sdkDecode(t, run, 3, &res)
	t.Logf("tasks/result came %s after the person accepted", time.Since(accepted).Round(time.Millisecond))
	if res.IsError || res.StructuredContent.State != "posted" || res.StructuredContent.Permalink == "" || !strings.Contains(res.text(), res.StructuredContent.Permalink) {
		t.Fatalf("tasks/result = %+v (%s), want the post's permalink", res, res.text())
	}
	var after sdkTask
	sdkDecode(t, run, 4, &after)
	if after.Status != "completed" {
		t.Fatalf("the task after the post is %s", after.Status)
	}
	if n := postsWith(t, mm.Admin, townSquare(t).Id, marker); n != 1 {
		t.Fatalf("%d posts for one accepted task", n)
	}
}

// heardStatus waits for a task's status notice where a stream can carry one,
// and is a tasks/list otherwise.
func heardStatus(streams bool) sdkStep {
	if !streams {
		return sdkStep{Method: "tasks/list"}
	}
	return sdkStep{Method: "wait", Params: map[string]any{"notification": "notifications/tasks/status", "timeoutMs": 10000}}
}

func TestATaskDeclinedExpiredOrCancelledPostsNothingAndACancelledTasksMessageSaysWithdrawn(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	declined, expired, cancelled := uniq(t, "taskno"), uniq(t, "taskgone"), uniq(t, "taskoff")
	call := func(marker string) sdkStep {
		return sdkStep{Method: "tools/call-task", Params: map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}}
	}
	pauses, askedDM := 0, ""
	run := runTasksPlan(t, mm.URL, alice.Token, func([]json.RawMessage) {
		pauses++
		switch pauses {
		case 1:
			answerOnPage(t, alice, waitPending(t, alice, declined), "decline", declined)
		case 2:
			id := waitPending(t, alice, expired)
			if err := mm.ExpireKV(context.Background(), "pc_"+alice.ID+"_"+id); err != nil {
				t.Error(err)
			}
		case 3:
			id := waitPending(t, alice, cancelled)
			askedDM = botDMAbout(t, alice, id, contains("/confirm/"+id)).Id
		}
	},
		call(declined), sdkStep{Method: "pause"}, sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		call(expired), sdkStep{Method: "pause"}, sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		call(cancelled), sdkStep{Method: "pause"}, sdkStep{Method: "tasks/cancel", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		// Where Mattermost cannot stream, no stream carries a notice: the
		// client polls, and hears of each end from tasks/result above.
		heardStatus(streams(t)),
	)
	var no, gone, withdrawn sdkWriteResult
	sdkDecode(t, run, 2, &no)
	sdkDecode(t, run, 5, &gone)
	sdkDecode(t, run, 9, &withdrawn)
	if !no.IsError || !strings.Contains(no.text(), "declined") {
		t.Errorf("the declined task's result: %s", no.text())
	}
	if !gone.IsError || !strings.Contains(gone.text(), "expired") {
		t.Errorf("the expired task's result: %s", gone.text())
	}
	var cancel sdkTask
	sdkDecode(t, run, 8, &cancel)
	if cancel.Status != "cancelled" || !withdrawn.IsError || !strings.Contains(withdrawn.text(), "withdrawn") {
		t.Errorf("the cancelled task: %+v, result %s", cancel, withdrawn.text())
	}
	for _, marker := range []string{declined, expired, cancelled} {
		if n := postsWith(t, mm.Admin, townSquare(t).Id, marker); n != 0 {
			t.Errorf("%d posts of a task that posted nothing (%s)", n, marker)
		}
	}
	editedDM(t, alice, askedDM, "**Withdrawn**")
	if !mm.Streams() {
		return
	}
	// The session's stream heard each task end that happened on this node.
	heard := map[string]string{}
	for _, raw := range run.Notifications {
		var n struct {
			Method string  `json:"method"`
			Params sdkTask `json:"params"`
		}
		if json.Unmarshal(raw, &n) == nil && n.Method == "notifications/tasks/status" {
			heard[n.Params.TaskID] = n.Params.Status
		}
	}
	var first, third struct{ Task sdkTask }
	sdkDecode(t, run, 0, &first)
	sdkDecode(t, run, 6, &third)
	if heard[first.Task.TaskID] != "completed" || heard[third.Task.TaskID] != "cancelled" {
		t.Fatalf("task status notices heard: %v; want the declined task completed and the cancelled one cancelled", heard)
	}
}

func TestAnotherPersonCannotGetTheResultOfOrCancelSomeoneElsesTask(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	marker := uniq(t, "taskmine")
	run := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/call-task", Params: map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}})
	var created struct{ Task sdkTask }
	sdkDecode(t, run, 0, &created)
	id := created.Task.TaskID
	other := runTypeScriptSDKPlan(t, mm.URL, bob.Token,
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": id}},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": id}},
		sdkStep{Method: "tasks/cancel", Params: map[string]any{"taskId": id}},
		sdkStep{Method: "tasks/list"},
	)
	for i, r := range other.Results[:3] {
		if r.Error == nil || r.Error.Code == nil || *r.Error.Code != -32602 {
			t.Errorf("bob's %s of alice's task: %+v %s", r.Method, r.Error, r.Result)
		}
		_ = i
	}
	var list struct{ Tasks []sdkTask }
	sdkDecode(t, other, 3, &list)
	for _, task := range list.Tasks {
		if task.TaskID == id {
			t.Fatalf("bob lists alice's task")
		}
	}
	mine := runTypeScriptSDK(t, mm.URL, alice.Token, sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": id}}, sdkStep{Method: "tasks/list"})
	var still sdkTask
	sdkDecode(t, mine, 0, &still)
	if still.Status != "input_required" {
		t.Fatalf("alice's task after bob's tries is %s", still.Status)
	}
	sdkDecode(t, mine, 1, &list)
	found := false
	for _, task := range list.Tasks {
		found = found || task.TaskID == id
	}
	if !found {
		t.Fatalf("alice's own tasks/list does not hold her task")
	}
	answerOnPage(t, alice, waitPending(t, alice, marker), "decline", marker)
}

func TestAHostFollowingATaskGetsThePostSoonAfterThePersonAccepts(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "streamed")
	acceptedAt := make(chan time.Time, 1)
	go func() {
		id := waitPending(t, alice, marker)
		answered := time.Now()
		if _, err := tryAnswerOnPage(t, alice, id, "accept", marker); err != nil {
			t.Error(err)
		}
		acceptedAt <- answered
	}()
	run := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/call-stream", Params: map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}})
	var stream struct {
		Messages []struct {
			Type   string         `json:"type"`
			Task   sdkTask        `json:"task"`
			Result sdkWriteResult `json:"result"`
			Error  string         `json:"error"`
			At     int64          `json:"at"`
		} `json:"messages"`
	}
	sdkDecode(t, run, 0, &stream)
	var types []string
	for _, m := range stream.Messages {
		types = append(types, m.Type)
	}
	last := stream.Messages[len(stream.Messages)-1]
	if stream.Messages[0].Type != "taskCreated" || last.Type != "result" || last.Result.StructuredContent.State != "posted" {
		t.Fatalf("callToolStream yielded %v, last %+v %s", types, last.Result, last.Error)
	}
	accepted := <-acceptedAt
	t.Logf("the host saw the post %s after the person opened the page to accept (messages %v)",
		time.UnixMilli(last.At).Sub(accepted).Round(time.Millisecond), types)
	if n := postsWith(t, mm.Admin, townSquare(t).Id, marker); n != 1 {
		t.Fatalf("%d posts for one accepted task", n)
	}
}

// modernCall posts one 2026-07-28 request of token declaring the tasks
// extension (and url-mode elicitation when showsPages), with the standard
// headers, and decodes its result.
func modernCall(t *testing.T, token, method, name string, params map[string]any, showsPages bool) (map[string]any, map[string]any) {
	t.Helper()
	caps := map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
	if showsPages {
		caps["elicitation"] = map[string]any{"url": map[string]any{}}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "e2e-tasks", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": caps}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	headers := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		headers["Mcp-Name"] = name
	}
	code, _, raw := namingHost(t, http.MethodPost, mcpURL(mm.URL), "", token, string(body), headers)
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if code != 200 || json.Unmarshal([]byte(sseData(raw)), &msg) != nil {
		t.Fatalf("%s: %d %s", method, code, raw)
	}
	return msg.Result, msg.Error
}

func TestOnTheTasksExtensionAWaitingPostIsATaskWhosePageIsItsInputRequestAndWhoseResultIsInlined(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "modern")
	created, rpcErr := modernCall(t, alice.Token, "tools/call", "create_post", map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}, true)
	if rpcErr != nil || created["resultType"] != "task" || created["task"] != nil {
		t.Fatalf("tools/call = %v %v, want a flat CreateTaskResult", created, rpcErr)
	}
	id := created["taskId"].(string)
	got, _ := modernCall(t, alice.Token, "tasks/get", id, map[string]any{"taskId": id}, true)
	requests, _ := got["inputRequests"].(map[string]any)
	if got["status"] != "input_required" || len(requests) != 1 || !strings.Contains(fmt.Sprint(requests), confirmAt(mm.URL)) {
		t.Fatalf("tasks/get = %v, want the page as the input request", got)
	}
	for key := range requests {
		ack, rpcErr := modernCall(t, alice.Token, "tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{key: map[string]any{"action": "accept"}}}, true)
		if rpcErr != nil || ack["resultType"] != "complete" {
			t.Fatalf("tasks/update = %v %v", ack, rpcErr)
		}
	}
	answerOnPage(t, alice, waitPending(t, alice, marker), "accept", marker)
	done, _ := modernCall(t, alice.Token, "tasks/get", id, map[string]any{"taskId": id}, true)
	result, _ := done["result"].(map[string]any)
	if done["status"] != "completed" || result == nil || !strings.Contains(fmt.Sprint(result["content"]), "accepted") {
		t.Fatalf("tasks/get after the accept = %v", done)
	}
	if n := postsWith(t, mm.Admin, townSquare(t).Id, marker); n != 1 {
		t.Fatalf("%d posts for one accepted task", n)
	}
	_, rpcErr = modernCall(t, mm.Users[1].Token, "tasks/get", id, map[string]any{"taskId": id}, true)
	if rpcErr == nil || rpcErr["code"] != float64(-32602) {
		t.Fatalf("another person's tasks/get = %v", rpcErr)
	}
}

// sseData is a response body's one JSON-RPC message, whether sent as JSON
// or as the last data line of an event stream.
func sseData(body string) string {
	last := strings.TrimSpace(body)
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			last = d
		}
	}
	return last
}

func TestOnTheTasksExtensionAListenStreamThatAskedForATaskHearsItEndWithItsResult(t *testing.T) {
	if !streams(t) {
		return
	}
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "heard")
	created, rpcErr := modernCall(t, alice.Token, "tools/call", "create_post", map[string]any{"name": "create_post", "arguments": map[string]any{"channel": townSquare(t).Id, "message": marker}}, false)
	if rpcErr != nil || created["resultType"] != "task" {
		t.Fatalf("tools/call = %v %v", created, rpcErr)
	}
	id := created["taskId"].(string)
	stream := listenFor(t, mm.URL, alice.Token, map[string]any{"taskIds": []string{id, "0123456789abcdef0123456789abcdef"}})
	ack := nextMessage(stream, 10*time.Second)
	if ack == nil || ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("the stream began with %v", ack)
	}
	if got := fmt.Sprint(ack["params"]); !strings.Contains(got, id) || strings.Contains(got, "0123456789abcdef0123456789abcdef") {
		t.Fatalf("acknowledged %s: want alice's task and not an unknown one", got)
	}
	answerOnPage(t, alice, waitPending(t, alice, marker), "accept", marker)
	n := nextMessage(stream, 10*time.Second)
	params, _ := n["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if n == nil || n["method"] != "notifications/tasks" || params["taskId"] != id || params["status"] != "completed" || params["result"] == nil || meta["io.modelcontextprotocol/subscriptionId"] == nil {
		t.Fatalf("after the accept the stream carried %v, want the task completed with its result, tagged", n)
	}
}
