package e2e

// Issue 32: a client of the official TypeScript SDK subscribes to a
// channel and a thread and hears of every post created, edited or deleted
// there, as long as it may read them.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

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
	if !streams(t) {
		return
	}
	alice, bob := mm.Users[0], mm.Users[1]
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	// Alice listens on one node; bob posts, edits and deletes on the other.
	// Each person's membership is made on the node they act on: nodes
	// without a cluster licence share no cache invalidations.
	nodes := mm.NodeURLs()
	admin1, admin2 := clientAt(nodes[0], mm.Admin), clientAt(nodes[1], mm.Admin)
	ch, _, err := admin1.CreateChannel(context.Background(), &model.Channel{TeamId: mm.Team.Id, Name: uniq(t, "live-"), DisplayName: "Live", Type: model.ChannelTypePrivate})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin1.AddChannelMember(context.Background(), ch.Id, alice.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin2.AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	uri := resources.ChannelURI(mm.Team.Name, ch.Name)
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
			// On alice's node, which then knows at once she left.
			if _, err = admin1.RemoveUserFromChannel(context.Background(), ch.Id, alice.ID); err == nil {
				_, _, err = admin1.CreatePost(context.Background(), &model.Post{ChannelId: ch.Id, Message: "after alice left"})
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
	if !streams(t) {
		return
	}
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

// listenStream opens a subscriptions/listen stream (protocol 2026-07-28)
// of token at site asking for notices of uris, and hands each message it
// carries to the channel it returns, until the test ends.
func listenStream(t *testing.T, site, token string, uris []string) <-chan map[string]any {
	t.Helper()
	return listenFor(t, site, token, map[string]any{"resourceSubscriptions": uris})
}

// listenFor opens a subscriptions/listen stream (protocol 2026-07-28,
// declaring the tasks extension) of token at site asking for notifications,
// and hands each message it carries to the channel it returns, until the
// test ends.
func listenFor(t *testing.T, site, token string, notifications map[string]any) <-chan map[string]any {
	t.Helper()
	params := map[string]any{"notifications": notifications,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e-listen", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 41, "method": "subscriptions/listen", "params": params})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mcpURL(site), strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan map[string]any, 64)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					out <- m
				}
			}
		}
	}()
	return out
}

// nextMessage is the stream's next message, or nil after within.
func nextMessage(stream <-chan map[string]any, within time.Duration) map[string]any {
	select {
	case m := <-stream:
		return m
	case <-time.After(within):
		return nil
	}
}

func TestOn20260728AListenStreamHearsOfPostsInTheChannelsItSubscribedToThatThePersonMayRead(t *testing.T) {
	if !streams(t) {
		return
	}
	alice, bob := mm.Users[0], mm.Users[1]
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	// Bob's channels and memberships are made on the node he posts on:
	// nodes without a cluster licence share no cache invalidations.
	bobThere, admin2 := clientAt(nodes[1], bob), clientAt(nodes[1], mm.Admin)
	open, _, err := admin2.CreateChannel(context.Background(), &model.Channel{TeamId: mm.Team.Id, Name: uniq(t, "listen-"), DisplayName: "Listen", Type: model.ChannelTypeOpen})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin2.AddChannelMember(context.Background(), open.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	secret, _, err := admin2.CreateChannel(context.Background(), &model.Channel{TeamId: mm.Team.Id, Name: uniq(t, "hidden-"), DisplayName: "Hidden", Type: model.ChannelTypePrivate})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin2.AddChannelMember(context.Background(), secret.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	openURI, secretURI := resources.ChannelURI(mm.Team.Name, open.Name), resources.ChannelURI(mm.Team.Name, secret.Name)
	stream := listenStream(t, nodes[0], alice.Token, []string{openURI, secretURI})
	ack := nextMessage(stream, 10*time.Second)
	if ack == nil || ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("the stream began with %v, want the acknowledgement", ack)
	}
	got := fmt.Sprint(ack["params"])
	if !strings.Contains(got, openURI) || strings.Contains(got, secretURI) {
		t.Fatalf("acknowledged %s: want %s and not the channel alice cannot read", got, openURI)
	}
	// Bob posts on the other node, where alice has no stream.
	if _, _, err := bobThere.CreatePost(context.Background(), &model.Post{ChannelId: secret.Id, Message: "not for alice"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bobThere.CreatePost(context.Background(), &model.Post{ChannelId: open.Id, Message: "for everyone"}); err != nil {
		t.Fatal(err)
	}
	n := nextMessage(stream, 10*time.Second)
	if n == nil || n["method"] != resourceUpdated {
		t.Fatalf("after bob's posts the stream carried %v", n)
	}
	params, _ := n["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if params["uri"] != openURI || meta["io.modelcontextprotocol/subscriptionId"] == nil {
		t.Fatalf("the notice %v, want the open channel's URI tagged with the subscription", n)
	}
}
