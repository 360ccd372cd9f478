package e2e

// Issue 32, item 2: an agent waits for a person's reply with
// wait_for_reply, through the official TypeScript SDK, as a call held
// within its bound or as a task; bob answers through REST.

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// sdkReplyResult is wait_for_reply's result as the SDK answers it.
type sdkReplyResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		State string `json:"state"`
		Posts []struct {
			ID          string `json:"id"`
			AuthorID    string `json:"author_id"`
			Message     string `json:"message"`
			Attachments []struct {
				FileID string `json:"file_id"`
			} `json:"attachments"`
		} `json:"posts"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

func (r sdkReplyResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// replyID is the id of the reply the result answered, "" for none.
func (r sdkReplyResult) replyID() string {
	if r.StructuredContent.State != "replied" || len(r.StructuredContent.Posts) != 1 {
		return ""
	}
	return r.StructuredContent.Posts[0].ID
}

// sharedChannel is a channel of alice's that bob is in too.
func sharedChannel(t *testing.T, alice, bob harness.User, typ model.ChannelType) *model.Channel {
	t.Helper()
	ch := createChannel(t, alice, uniq(t, "ask-"), "Ask", typ)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	return ch
}

// postAs posts p as u from any goroutine: a failure fails the test
// without stopping it.
func postAs(t *testing.T, u harness.User, p *model.Post) {
	if _, _, err := mm.Client(u).CreatePost(context.Background(), p); err != nil {
		t.Errorf("post as %s: %v", u.Username, err)
	}
}

func waitCall(postID string, seconds int) map[string]any {
	return map[string]any{"name": "wait_for_reply", "arguments": map[string]any{"post": postID, "seconds": seconds}}
}

func TestWaitForReplyAnswersBobsReplyPostedThreeSecondsAfterTheCallAndNotAlicesOwnOrAnotherThreads(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := sharedChannel(t, alice, bob, model.ChannelTypeOpen)
	root := createPost(t, alice, ch.Id, "Shall we ship on Friday?", "")
	marker := uniq(t, "yes-ship-")
	var called time.Time
	posted := make(chan struct{})
	run := runTasksPlan(t, mm.URL, alice.Token, func([]json.RawMessage) {
		called = time.Now()
		go func() {
			defer close(posted)
			// What does not answer the question comes first: alice's own
			// reply, and bob's post outside the thread; bob's reply comes
			// 3 seconds after the call.
			<-time.After(time.Second)
			postAs(t, alice, &model.Post{ChannelId: ch.Id, Message: "Adding context to my own question", RootId: root.Id})
			postAs(t, bob, &model.Post{ChannelId: ch.Id, Message: "Lunch, anyone?"})
			<-time.After(time.Until(called.Add(3 * time.Second)))
			up, _, err := mm.Client(bob).UploadFile(context.Background(), []byte("friday: go\n"), ch.Id, "plan.txt")
			if err != nil {
				t.Error(err)
				return
			}
			postAs(t, bob, &model.Post{ChannelId: ch.Id, Message: marker, RootId: root.Id, FileIds: []string{up.FileInfos[0].Id}})
		}()
	},
		sdkStep{Method: "pause"},
		sdkStep{Method: "tools/call", Params: waitCall(root.Id, 15)},
	)
	<-posted
	var res sdkReplyResult
	sdkDecode(t, run, 1, &res)
	t.Logf("the call answered %s after it began", time.Since(called).Round(100*time.Millisecond))
	id := res.replyID()
	if res.IsError || id == "" || res.StructuredContent.Posts[0].Message != marker || res.StructuredContent.Posts[0].AuthorID != bob.ID {
		t.Fatalf("wait_for_reply = %+v\n%s", res.StructuredContent, res.text())
	}
	files := res.StructuredContent.Posts[0].Attachments
	if len(files) != 1 || !strings.Contains(res.text(), "file_id="+files[0].FileID) || !strings.Contains(res.text(), "@"+bob.Username) {
		t.Fatalf("the reply's text does not show its author and file as read_thread does:\n%s", res.text())
	}
	// Read back through REST: the reply answered is bob's post in the thread.
	got, _, err := mm.Client(alice).GetPost(context.Background(), id, "")
	if err != nil || got.RootId != root.Id || got.UserId != bob.ID || got.Message != marker {
		t.Fatalf("the post answered reads back as %+v (%v)", got, err)
	}
}

// nextWait is the call a "no reply yet" answer names.
var nextWait = regexp.MustCompile(`wait_for_reply\(post="([^"]+)", seconds=(\d+), since="([^"]+)"\)`)

func TestWaitForReplyAnswersNoReplyAfterItsTimeAndTheCallItNamesMissesNoReplyPostedMeanwhile(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := sharedChannel(t, alice, bob, model.ChannelTypeOpen)
	root := createPost(t, alice, ch.Id, "Any objections?", "")
	run := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/call", Params: waitCall(root.Id, 2)},
		sdkStep{Method: "tools/call", Params: waitCall(root.Id, 120)},
	)
	var over, yet sdkReplyResult
	sdkDecode(t, run, 0, &over)
	sdkDecode(t, run, 1, &yet)
	if over.IsError || over.StructuredContent.State != "no_reply" || !strings.Contains(over.text(), "the wait is over") {
		t.Fatalf("a wait of 2 s: %+v\n%s", over.StructuredContent, over.text())
	}
	// The second call outlasts what a call holds: it names the call that
	// goes on waiting.
	m := nextWait.FindStringSubmatch(yet.text())
	if yet.IsError || yet.StructuredContent.State != "no_reply" || m == nil || m[1] != root.Id {
		t.Fatalf("a wait of 120 s after a call's bound: %+v\n%s", yet.StructuredContent, yet.text())
	}
	// bob answers between the two calls; the call named still hears it.
	reply := createPost(t, bob, ch.Id, uniq(t, "no-objection-"), root.Id)
	again := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/call", Params: map[string]any{"name": "wait_for_reply", "arguments": map[string]any{"post": m[1], "seconds": json.Number(m[2]), "since": m[3]}}})
	var res sdkReplyResult
	sdkDecode(t, again, 0, &res)
	if res.replyID() != reply.Id {
		t.Fatalf("the call named answered %+v, want bob's reply %s\n%s", res.StructuredContent, reply.Id, res.text())
	}
}

func TestWaitForReplyAsATaskEndsWithBobsReplyOrWithNoReplyWhenItsTimeIsUp(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	dm, _, err := mm.Client(alice).CreateDirectChannel(context.Background(), alice.ID, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	asked := createPost(t, alice, dm.Id, "Can you review my change?", "")
	marker := uniq(t, "on-it-")
	var reply *model.Post
	run := runTasksPlan(t, mm.URL, alice.Token, func([]json.RawMessage) {
		// In a direct message, the other person's next post answers,
		// in the thread or not.
		reply = createPost(t, bob, dm.Id, marker, "")
	},
		sdkStep{Method: "tools/list"},
		sdkStep{Method: "tools/call-task", Params: waitCall(asked.Id, 120)},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "pause"},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tools/call-task", Params: waitCall(asked.Id, 1)},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
	)
	var listed struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	sdkDecode(t, run, 0, &listed)
	for _, tool := range listed.Tools {
		if tool.Name == "wait_for_reply" && tool.Execution.TaskSupport != "optional" {
			t.Fatalf("wait_for_reply declares task support %q", tool.Execution.TaskSupport)
		}
	}
	var created struct{ Task sdkTask }
	sdkDecode(t, run, 1, &created)
	var waiting, done sdkTask
	sdkDecode(t, run, 2, &waiting)
	if created.Task.TaskID == "" || waiting.Status != "working" || !strings.Contains(waiting.StatusMessage, asked.Id) {
		t.Fatalf("the task while no reply came: %+v then %+v", created.Task, waiting)
	}
	var res sdkReplyResult
	sdkDecode(t, run, 4, &res)
	if res.IsError || res.replyID() != reply.Id || !strings.Contains(res.text(), marker) {
		t.Fatalf("tasks/result = %+v, want bob's post %s\n%s", res.StructuredContent, reply.Id, res.text())
	}
	sdkDecode(t, run, 5, &done)
	if done.Status != "completed" {
		t.Fatalf("the task after the reply is %s", done.Status)
	}
	var over sdkReplyResult
	sdkDecode(t, run, 7, &over)
	if over.IsError || over.StructuredContent.State != "no_reply" || !strings.Contains(over.text(), "the wait is over") {
		t.Fatalf("a task of a 1 s wait ended with %+v\n%s", over.StructuredContent, over.text())
	}
}

func TestWaitForReplyNeverAnswersAReplyFromAChannelTheCallerCannotRead(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	// A private channel alice is not in: its post is not found, called or
	// asked as a task.
	secret := createChannel(t, bob, uniq(t, "secret-"), "Secret", model.ChannelTypePrivate)
	hidden := createPost(t, bob, secret.Id, "Only bob reads this", "")
	// A private channel alice is removed from while she waits.
	shared := sharedChannel(t, bob, alice, model.ChannelTypePrivate)
	asked := createPost(t, alice, shared.Id, "Is the plan final?", "")
	marker := uniq(t, "after-you-left-")
	run := runTasksPlan(t, mm.URL, alice.Token, func([]json.RawMessage) {
		if _, err := mm.Client(bob).RemoveUserFromChannel(context.Background(), shared.Id, alice.ID); err != nil {
			t.Error(err)
		}
		createPost(t, bob, shared.Id, marker, asked.Id)
	},
		sdkStep{Method: "tools/call", Params: waitCall(hidden.Id, 2)},
		sdkStep{Method: "tools/call-task", Params: waitCall(hidden.Id, 60)},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tools/call-task", Params: waitCall(asked.Id, 60)},
		sdkStep{Method: "pause"},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
	)
	for _, i := range []int{0, 2, 5} {
		var res sdkReplyResult
		sdkDecode(t, run, i, &res)
		if !res.IsError || !strings.Contains(res.text(), "No post") || strings.Contains(res.text(), marker) || strings.Contains(res.text(), "Only bob") {
			t.Errorf("step %d (%s) = %+v\n%s; want not found", i, run.Results[i].Method, res.StructuredContent, res.text())
		}
	}
	// bob's reply is there for bob: alice was answered "not found" for a
	// thread that did get a reply.
	thread, _, err := mm.Client(bob).GetPostThread(context.Background(), asked.Id, "", false)
	if err != nil || len(thread.Posts) != 2 {
		t.Fatalf("the thread as bob reads it: %v (%v)", thread, err)
	}
}
