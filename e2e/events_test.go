package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

const pendingEvent = "custom_mcp-server_pending_confirmation"

func listen(t *testing.T, u harness.User) *model.WebSocketClient {
	t.Helper()
	ws, err := model.NewWebSocketClient4(strings.Replace(mm.URL, "http", "ws", 1), u.Token)
	if err != nil {
		t.Fatalf("websocket for %s: %v", u.Username, err)
	}
	ws.Listen()
	t.Cleanup(ws.Close)
	return ws
}

// pendingIDs are the confirmation ids a pending event names.
func pendingIDs(ev *model.WebSocketEvent) []string {
	var ids []string
	list, _ := ev.GetData()["confirmations"].([]any)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func TestOnlyThePersonAskedGetsThePendingConfirmationEvent(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	aliceWS, bobWS := listen(t, alice), listen(t, bob)
	marker := uniq(t, "event")
	postAsync(t, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker})
	id := waitPending(t, alice, marker)

	deadline := time.After(20 * time.Second)
	for got := false; !got; {
		select {
		case ev := <-aliceWS.EventChannel:
			if ev.EventType() == pendingEvent {
				ids := pendingIDs(ev)
				if len(ids) != 1 || ids[0] != id {
					t.Fatalf("alice's event names %v, want %s", ids, id)
				}
				got = true
			}
		case <-deadline:
			t.Fatal("alice's Mattermost was not told of the pending post")
		}
	}
	// A post made after the question reaches bob's socket after anything
	// the question could have sent him.
	sentinel := createPost(t, alice, townSquare(t).Id, uniq(t, "sentinel"), "")
	for {
		select {
		case ev := <-bobWS.EventChannel:
			if ev.EventType() == pendingEvent {
				t.Fatalf("bob was told of alice's pending post: %v", ev.GetData())
			}
			if ev.EventType() == model.WebsocketEventPosted && strings.Contains(ev.GetData()["post"].(string), sentinel.Id) {
				return
			}
		case <-deadline:
			t.Fatal("bob's socket never saw the post made after the question")
		}
	}
}
