package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// fakeWrites is the pending writes of one test, by id.
type fakeWrites struct {
	writes    map[string]*Write
	withdrawn []string
	declined  []string
}

func (f *fakeWrites) Follow(_ context.Context, _, _ string, id string) (Write, error) {
	return *f.writes[id], nil
}

func (f *fakeWrites) FollowReply(context.Context, string, transport.ReplyWait) (Write, error) {
	return Write{State: Working, Message: "waiting for a reply"}, nil
}

func (f *fakeWrites) Withdraw(_ context.Context, _, id string) error {
	f.withdrawn = append(f.withdrawn, id)
	if w := f.writes[id]; w.State == Waiting {
		*w = Write{State: Withdrawn, Result: mcp.NewToolResultError("withdrawn")}
	}
	return nil
}

func (f *fakeWrites) Decline(_ context.Context, _, id string) error {
	f.declined = append(f.declined, id)
	*f.writes[id] = Write{State: Done, Result: mcp.NewToolResultError("declined")}
	return nil
}

const (
	alice   = "alice0000000000000000000000"
	bob     = "bob00000000000000000000000"
	writeID = "0123456789abcdef0123456789abcdef"
	pageURL = "https://chat.example.com/plugins/mcp/confirm/" + writeID
)

type world struct {
	svc    *Service
	writes *fakeWrites
	now    time.Time
}

func newWorld() *world {
	w := &world{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	q := mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, ElicitationID: writeID, URL: pageURL, Message: "open it"}
	w.writes = &fakeWrites{writes: map[string]*Write{writeID: {State: Waiting, Message: "Waiting at " + pageURL, Question: &q}}}
	w.svc = NewService(&Store{KV: kvtest.New(), Now: func() time.Time { return w.now }}, w.writes, func(tool string) bool { return tool == "create_post" })
	return w
}

// waitingTask is a task of alice's create_post whose write waits.
func (w *world) waitingTask(t *testing.T, modern, showsPages bool) string {
	t.Helper()
	call := &transport.TaskCall{Tool: "create_post", Modern: modern, ShowsPages: showsPages}
	call.Waits(writeID)
	res, err := w.svc.Created(context.Background(), alice, "", call)
	if err != nil {
		t.Fatal(err)
	}
	if modern {
		return res["taskId"].(string)
	}
	return res["task"].(map[string]any)["taskId"].(string)
}

func (w *world) serve(t *testing.T, user string, modern bool, method, taskID string) (map[string]any, *transport.RPCError) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"taskId": taskID})
	res, rpcErr := w.svc.Serve(context.Background(), user, transport.TaskRequest{Method: method, Params: params, Modern: modern, Declared: true})
	if rpcErr != nil {
		return nil, rpcErr
	}
	raw, _ := json.Marshal(res)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out, nil
}

func TestAWaitingWriteIsATaskThatNeedsThePersonWithItsPageInTheStatusMessage(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, false, false)
	got, rpcErr := w.serve(t, alice, false, "tasks/get", id)
	if rpcErr != nil {
		t.Fatal(rpcErr.Message)
	}
	if got["status"] != "input_required" || !strings.Contains(got["statusMessage"].(string), pageURL) {
		t.Fatalf("tasks/get = %v, want input_required naming the page", got)
	}
	if got["ttl"] != float64(Lifetime.Milliseconds()) || got["pollInterval"] != float64(PollInterval.Milliseconds()) {
		t.Fatalf("ttl and pollInterval = %v, %v", got["ttl"], got["pollInterval"])
	}
}

func TestAnotherPersonsTaskIsNotFoundForAnyMethod(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, false, false)
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if _, rpcErr := w.serve(t, bob, false, method, id); rpcErr == nil || rpcErr.Code != mcp.INVALID_PARAMS {
			t.Errorf("bob's %s = %v, want invalid params (not found)", method, rpcErr)
		}
	}
	if len(w.writes.withdrawn) != 0 {
		t.Fatalf("bob's cancel withdrew %v", w.writes.withdrawn)
	}
	list, _ := w.svc.Serve(context.Background(), bob, transport.TaskRequest{Method: "tasks/list"})
	if n := len(list.(map[string]any)["tasks"].([]map[string]any)); n != 0 {
		t.Fatalf("bob lists %d tasks", n)
	}
}

func TestATaskKeepsItsResultOnceTheWriteSettledEvenAfterTheWriteIsGone(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, false, false)
	*w.writes.writes[writeID] = Write{State: Done, Result: mcp.NewToolResultText("The person accepted. Posted: https://chat.example.com/t/pl/p1")}
	got, _ := w.serve(t, alice, false, "tasks/result", id)
	if !strings.Contains(got["content"].([]any)[0].(map[string]any)["text"].(string), "Posted") {
		t.Fatalf("tasks/result = %v", got)
	}
	related := got["_meta"].(map[string]any)[mcp.RelatedTaskMetaKey].(map[string]any)
	if related["taskId"] != id {
		t.Fatalf("related task = %v", related)
	}
	// The write's record leaves the store; the task still tells.
	*w.writes.writes[writeID] = Write{State: Done, Result: mcp.NewToolResultError("expired")}
	again, _ := w.serve(t, alice, false, "tasks/get", id)
	if again["status"] != "completed" {
		t.Fatalf("status after the write is gone = %v", again["status"])
	}
	res, _ := w.serve(t, alice, false, "tasks/result", id)
	if res["isError"] == true {
		t.Fatalf("the kept result changed: %v", res)
	}
}

func TestCancellingAWaitingTaskWithdrawsItsWriteAndEndsItCancelled(t *testing.T) {
	for _, modern := range []bool{false, true} {
		w := newWorld()
		id := w.waitingTask(t, modern, false)
		got, rpcErr := w.serve(t, alice, modern, "tasks/cancel", id)
		if rpcErr != nil {
			t.Fatal(rpcErr.Message)
		}
		if len(w.writes.withdrawn) != 1 {
			t.Fatalf("withdrawn = %v", w.writes.withdrawn)
		}
		if modern && (got["resultType"] != "complete" || got["taskId"] != nil) {
			t.Fatalf("2026-07-28 cancel = %v, want an empty ack", got)
		}
		if !modern && got["status"] != "cancelled" {
			t.Fatalf("2025-11-25 cancel = %v, want the task cancelled", got)
		}
		after, _ := w.serve(t, alice, modern, "tasks/get", id)
		if after["status"] != "cancelled" {
			t.Fatalf("status after cancel = %v", after["status"])
		}
		// Cancelling again: 2025-11-25 refuses a task that ended, 2026-07-28 acknowledges.
		_, rpcErr = w.serve(t, alice, modern, "tasks/cancel", id)
		if modern != (rpcErr == nil) {
			t.Fatalf("modern=%v: second cancel = %v", modern, rpcErr)
		}
	}
}

func TestOnTheExtensionATaskInlinesThePageAsAnInputRequestOnlyForAClientThatShowsPages(t *testing.T) {
	w := newWorld()
	shows := w.waitingTask(t, true, true)
	got, _ := w.serve(t, alice, true, "tasks/get", shows)
	if got["status"] != "input_required" || got["inputRequests"] == nil || got["resultType"] != "complete" {
		t.Fatalf("tasks/get = %v, want input_required with the page", got)
	}
	req := got["inputRequests"].(map[string]any)[writeID].(map[string]any)
	if req["method"] != "elicitation/create" || req["params"].(map[string]any)["url"] != pageURL {
		t.Fatalf("input request = %v", req)
	}
	if _, ok := got["ttlMs"]; !ok || got["ttl"] != nil {
		t.Fatalf("2026-07-28 fields = %v", got)
	}
	// The client's no to the page declines the write.
	params, _ := json.Marshal(map[string]any{"taskId": shows, "inputResponses": map[string]any{writeID: map[string]any{"action": "decline"}}})
	if _, rpcErr := w.svc.Serve(context.Background(), alice, transport.TaskRequest{Method: "tasks/update", Params: params, Modern: true, Declared: true}); rpcErr != nil {
		t.Fatal(rpcErr.Message)
	}
	if len(w.writes.declined) != 1 {
		t.Fatalf("declined = %v", w.writes.declined)
	}
}

func TestOnTheExtensionTaskMethodsNeedTheDeclaredExtensionAndListAndResultAreGone(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, true, false)
	params, _ := json.Marshal(map[string]any{"taskId": id})
	_, rpcErr := w.svc.Serve(context.Background(), alice, transport.TaskRequest{Method: "tasks/get", Params: params, Modern: true})
	if rpcErr == nil || rpcErr.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY {
		t.Fatalf("undeclared tasks/get = %v", rpcErr)
	}
	for _, m := range []string{"tasks/list", "tasks/result"} {
		if _, rpcErr := w.serve(t, alice, true, m, id); rpcErr == nil || rpcErr.Code != mcp.METHOD_NOT_FOUND {
			t.Fatalf("%s = %v, want method not found", m, rpcErr)
		}
	}
}

func TestAPersonKeepsAtMostTheBoundOfTasksAndTheOldestGoFirst(t *testing.T) {
	w := newWorld()
	first := w.waitingTask(t, false, false)
	for range MaxPerPerson {
		w.now = w.now.Add(time.Second)
		w.waitingTask(t, false, false)
	}
	list, _ := w.svc.Serve(context.Background(), alice, transport.TaskRequest{Method: "tasks/list"})
	if n := len(list.(map[string]any)["tasks"].([]map[string]any)); n != MaxPerPerson {
		t.Fatalf("alice lists %d tasks, want %d", n, MaxPerPerson)
	}
	if _, rpcErr := w.serve(t, alice, false, "tasks/get", first); rpcErr == nil {
		t.Fatal("the oldest task past the bound is still found")
	}
}

func TestATaskIsGoneOnceItsLifetimeIsOver(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, false, false)
	w.now = w.now.Add(Lifetime - time.Second)
	if _, rpcErr := w.serve(t, alice, false, "tasks/get", id); rpcErr != nil {
		t.Fatalf("a task within its lifetime: %v", rpcErr.Message)
	}
	w.now = w.now.Add(time.Second)
	if _, rpcErr := w.serve(t, alice, false, "tasks/get", id); rpcErr == nil || rpcErr.Code != mcp.INVALID_PARAMS {
		t.Fatalf("a task past its lifetime: %v", rpcErr)
	}
}

func TestTheStatusNoticeOfATaskIsItsTaskInTheCoreFormOnceItsWriteEnded(t *testing.T) {
	w := newWorld()
	id := w.waitingTask(t, false, false)
	*w.writes.writes[writeID] = Write{State: Done, Result: mcp.NewToolResultError("declined")}
	got, err := w.svc.Status(context.Background(), alice, id)
	if err != nil || got["status"] != mcp.TaskStatusCompleted || got["taskId"] != id || got["result"] != nil {
		t.Fatalf("status notice = %v, %v", got, err)
	}
	if _, err := w.svc.Status(context.Background(), bob, id); err == nil {
		t.Fatal("bob's status notice of alice's task")
	}
}

func TestACallThatNeededNoWaitIsATaskEndedWithTheCallsResult(t *testing.T) {
	w := newWorld()
	call := &transport.TaskCall{Tool: "create_post"}
	res, err := w.svc.Created(context.Background(), alice, "", call)
	if err != nil {
		t.Fatal(err)
	}
	task := res["task"].(map[string]any)
	if task["status"] != mcp.TaskStatusCompleted {
		t.Fatalf("status = %v", task["status"])
	}
}

func TestAResultLargerThanTheBoundIsKeptAsItsCutText(t *testing.T) {
	big := mcp.NewToolResultText(strings.Repeat("x", maxResultBytes))
	raw, _ := json.Marshal(big)
	rec := Record{End: &End{Result: raw}}
	bound(&rec)
	if len(rec.End.Result) > maxResultBytes || !strings.Contains(string(rec.End.Result), "xxx") {
		t.Fatalf("bounded result is %d bytes", len(rec.End.Result))
	}
}
