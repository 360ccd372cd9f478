package e2e

// Issue 32: a client of the official TypeScript SDK subscribes to a
// channel and a thread and hears of every post created, edited or deleted
// there, as long as it may read them.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// clientAt is a REST client of u on the Mattermost at site.
func clientAt(site string, u harness.User) *model.Client4 {
	c := model.NewAPIv4Client(site)
	c.SetToken(u.Token)
	return c
}

const resourceUpdated = "notifications/resources/updated"

func waitUpdates(n int, timeoutMs int) sdkStep {
	return sdkStep{Method: "wait", Params: map[string]any{"notification": resourceUpdated, "count": n, "timeoutMs": timeoutMs}}
}

func TestASubscribedChannelTellsOfEachNewEditedAndDeletedPostUntilThePersonLeavesIt(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, bob, uniq(t, "live-"), "Live", model.ChannelTypePrivate)
	if _, _, err := mm.Client(bob).AddChannelMember(context.Background(), ch.Id, alice.ID); err != nil {
		t.Fatal(err)
	}
	uri := resources.ChannelURI(mm.Team.Name, ch.Name)
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	// Alice listens on one node; bob posts, edits, deletes and removes her
	// on the other.
	nodes := mm.NodeURLs()
	var post *model.Post
	pauses := 0
	run := runTasksPlan(t, nodes[0], alice.Token, func([]json.RawMessage) {
		pauses++
		c := clientAt(nodes[1], bob)
		var err error
		switch pauses {
		case 1:
			post, _, err = c.CreatePost(context.Background(), &model.Post{ChannelId: ch.Id, Message: "first live post"})
		case 2:
			post.Message = "first live post, edited"
			_, _, err = c.UpdatePost(context.Background(), post.Id, post)
		case 3:
			_, err = c.DeletePost(context.Background(), post.Id)
		case 4:
			// On alice's node: nodes without a cluster licence share no
			// cache invalidations, so only it knows at once she left.
			c = clientAt(nodes[0], bob)
			if _, err = c.RemoveUserFromChannel(context.Background(), ch.Id, alice.ID); err == nil {
				_, _, err = c.CreatePost(context.Background(), &model.Post{ChannelId: ch.Id, Message: "after alice left"})
			}
		}
		if err != nil {
			t.Error(err)
		}
	},
		sdkStep{Method: "resources/subscribe", Params: map[string]any{"uri": uri}},
		sdkStep{Method: "pause"}, waitUpdates(1, 10000),
		sdkStep{Method: "resources/read", Params: map[string]any{"uri": uri}},
		sdkStep{Method: "pause"}, waitUpdates(2, 10000),
		sdkStep{Method: "pause"}, waitUpdates(3, 10000),
		sdkStep{Method: "pause"}, waitUpdates(4, 3000),
		sdkStep{Method: "resources/read", Params: map[string]any{"uri": uri}},
	)
	for _, i := range []int{0, 2, 5, 7} {
		if r := run.Results[i]; r.Error != nil {
			t.Fatalf("step %d (%s): %s", i, r.Method, r.Error.Message)
		}
	}
	if !strings.Contains(string(run.Results[3].Result), "first live post") {
		t.Fatalf("the channel read after the notice: %s", run.Results[3].Result)
	}
	if run.Results[9].Error == nil {
		t.Fatal("alice heard of a post after she left the channel")
	}
	if run.Results[10].Error == nil {
		t.Fatalf("alice read the channel she left: %s", run.Results[10].Result)
	}
	for _, raw := range run.Notifications {
		var n struct {
			Method string `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &n) == nil && n.Method == resourceUpdated && n.Params.URI != uri {
			t.Fatalf("a notice for %s, want only %s", n.Params.URI, uri)
		}
	}
}

func TestAThreadUnsubscribedFromTellsNothingMore(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	root := createPost(t, alice, townSquare(t).Id, "a question in a thread "+uniq(t, "q"), "")
	uri := resources.ThreadURI(root.Id)
	replies := 0
	run := runTasksPlan(t, mm.URL, alice.Token, func([]json.RawMessage) {
		replies++
		createPost(t, bob, townSquare(t).Id, "an answer", root.Id)
	},
		sdkStep{Method: "resources/subscribe", Params: map[string]any{"uri": uri}},
		sdkStep{Method: "pause"}, waitUpdates(1, 10000),
		sdkStep{Method: "resources/unsubscribe", Params: map[string]any{"uri": uri}},
		sdkStep{Method: "pause"}, waitUpdates(2, 3000),
	)
	if run.Results[2].Error != nil || run.Results[3].Error != nil {
		t.Fatalf("the reply was not told: %+v", run.Results[2].Error)
	}
	if run.Results[5].Error == nil {
		t.Fatal("a reply was told after unsubscribing")
	}
}
