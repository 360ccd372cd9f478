package e2e

// Issue 45: waiting is bounded per person and woken by what happened.
// A person past their share of held waits is answered at once with what
// to do, while others are served; a reply posted on node 2 wakes a wait
// held on node 1 without cluster events; a wait whose person lost the
// channel answers not found when it is woken.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

// waitAsync calls wait_for_reply in the background.
func waitAsync(c *client.Client, postID string, seconds int) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "wait_for_reply"
		req.Params.Arguments = map[string]any{"post": postID, "seconds": seconds}
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		done <- res
	}()
	return done
}

// repliedWith is the id of the reply a wait answered, "" for none.
func repliedWith(res *mcp.CallToolResult) string {
	raw, _ := json.Marshal(res.StructuredContent)
	var r tools.ReplyResult
	if res.IsError || json.Unmarshal(raw, &r) != nil || r.State != "replied" || len(r.Posts) != 1 {
		return ""
	}
	return r.Posts[0].ID
}

// waitRegistered polls until some node waits for a post in channelID.
func waitRegistered(t *testing.T, channelID string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if raw, err := mm.KVValue(context.Background(), "wkt_"+wake.Channel(channelID)); err == nil && raw != nil {
			return
		}
	}
	t.Fatalf("no wait for channel %s was registered", channelID)
}

func TestAPersonPastTheirShareOfWaitsIsAnsweredAtOnceWhileAnotherPersonsWaitIsServedAndWoken(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := sharedChannel(t, alice, bob, model.ChannelTypeOpen)
	asked := createPost(t, alice, ch.Id, "Who reviews the release notes?", "")
	c := connect(t, mm.URL, alice.Token)
	// One wait more than her share: whichever comes last is answered at
	// once, saying why and what to call, while the others are held.
	var held []<-chan *mcp.CallToolResult
	for range transport.MaxHeldWaits + 1 {
		held = append(held, waitAsync(c, asked.Id, 20))
	}
	var past *mcp.CallToolResult
	for deadline := time.Now().Add(15 * time.Second); past == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for i, h := range held {
			select {
			case past = <-h:
				held = append(held[:i:i], held[i+1:]...)
			default:
				continue
			}
			break
		}
	}
	if past == nil || past.IsError || !strings.Contains(text(past), "10 requests waiting") || !strings.Contains(text(past), "wait_for_reply(") {
		t.Fatalf("the wait past alice's share answered %v", past)
	}

	// bob is served as before: his own wait holds and is woken by alice's
	// reply, and his other calls answer.
	b := connect(t, mm.URL, bob.Token)
	his := createPost(t, bob, ch.Id, "Can someone check the changelog?", "")
	waiting := waitAsync(b, his.Id, 20)
	if res := call(t, b, "get_me", nil); res.IsError {
		t.Fatalf("bob's get_me while alice is at her share: %s", text(res))
	}
	waitRegistered(t, ch.Id)
	reply := createPost(t, alice, ch.Id, "I will, this afternoon.", his.Id)
	if res := <-waiting; repliedWith(res) != reply.Id {
		t.Fatalf("bob's wait answered %s, want alice's reply %s", text(res), reply.Id)
	}

	// bob's reply to alice's question wakes her ten held waits.
	answer := createPost(t, bob, ch.Id, "Me.", asked.Id)
	var wg sync.WaitGroup
	for i, h := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := <-h; repliedWith(res) != answer.Id {
				t.Errorf("alice's held wait %d answered %s", i, text(res))
			}
		}()
	}
	wg.Wait()
}

func TestAReplyPostedOnNodeTwoWakesAWaitHeldOnNodeOneWithoutClusterEvents(t *testing.T) {
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	// Someone node 2 has never served: without cluster events, node 2's
	// caches of a person it served before do not hear of a channel they
	// joined through node 1.
	alice, replier := mm.Users[0], newPerson(t, "replier")
	ch := sharedChannel(t, alice, replier, model.ChannelTypeOpen)
	asked := createPost(t, alice, ch.Id, "Is the deploy window still 5pm?", "")
	done := waitAsync(connect(t, nodes[0], alice.Token), asked.Id, 20)
	waitRegistered(t, ch.Id)

	onNode2 := model.NewAPIv4Client(nodes[1])
	onNode2.SetToken(replier.Token)
	posted := time.Now()
	reply, _, err := onNode2.CreatePost(context.Background(), &model.Post{ChannelId: ch.Id, Message: "Yes, 5pm.", RootId: asked.Id})
	if err != nil {
		t.Fatal(err)
	}
	res := <-done
	took := time.Since(posted)
	if repliedWith(res) != reply.Id {
		t.Fatalf("the wait on node 1 answered %s", text(res))
	}
	// Only a wake answers before the wait's slow look for itself.
	if took >= wake.SafetyLook {
		t.Fatalf("the wait answered %v after the reply on node 2: it was not woken", took)
	}
	t.Logf("the wait on node 1 answered %v after the reply was posted on node 2", took.Round(time.Millisecond))
}

func TestAHeldWaitWhosePersonLostTheChannelAnswersNotFoundWhenWoken(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	shared := sharedChannel(t, bob, alice, model.ChannelTypePrivate)
	asked := createPost(t, alice, shared.Id, "Is the budget approved?", "")
	done := waitAsync(connect(t, mm.URL, alice.Token), asked.Id, 20)
	waitRegistered(t, shared.Id)
	if _, err := mm.Client(bob).RemoveUserFromChannel(context.Background(), shared.Id, alice.ID); err != nil {
		t.Fatal(err)
	}
	marker := uniq(t, "approved-after-you-left-")
	createPost(t, bob, shared.Id, marker, asked.Id)
	res := <-done
	if !res.IsError || !strings.Contains(text(res), "No post") || strings.Contains(text(res), marker) {
		t.Fatalf("the wait of a person who left the channel answered %s", text(res))
	}
}
