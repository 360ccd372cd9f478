package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// botDMWait bounds how long a test waits for the bot's direct message to
// say something: the expiry job runs once a minute.
const botDMWait = 150 * time.Second

// theBot is the plugin's bot account, read as u.
func theBot(t *testing.T, u harness.User) *model.User {
	t.Helper()
	bot, _, err := mm.Client(u).GetUserByUsername(context.Background(), harness.PluginID, "")
	if err != nil {
		t.Fatalf("the plugin's bot: %v", err)
	}
	if !bot.IsBot {
		t.Fatalf("%s is not a bot", bot.Username)
	}
	return bot
}

// botDMAbout polls u's direct message with the bot, read back through the
// REST API as u, for a post that contains part and for which ok holds.
func botDMAbout(t *testing.T, u harness.User, part string, ok func(msg string) bool) *model.Post {
	t.Helper()
	ctx := context.Background()
	c := mm.Client(u)
	ch, _, err := c.CreateDirectChannel(ctx, u.ID, theBot(t, u).Id)
	if err != nil {
		t.Fatalf("open the direct message with the bot as %s: %v", u.Username, err)
	}
	last := ""
	for deadline := time.Now().Add(botDMWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		list, resp, err := c.GetPostsForChannel(ctx, ch.Id, 0, 100, "", false, false)
		if err != nil && resp != nil && resp.StatusCode == http.StatusForbidden {
			// When the bot opens the same channel at once, Mattermost may
			// answer from the person's channel memberships it kept before
			// the channel existed, until it drops them: read again.
			last = "(not yet a member: " + err.Error() + ")"
			continue
		}
		if err != nil {
			t.Fatalf("read the direct message with the bot: %v", err)
		}
		for _, p := range list.Posts {
			if strings.Contains(p.Message, part) || strings.Contains(p.Message, "/confirm/"+part) {
				last = p.Message
				if ok(p.Message) {
					return p
				}
			}
		}
	}
	t.Fatalf("no direct message from the bot about %s came as expected; last seen:\n%s", part, last)
	return nil
}

func anyMessage(string) bool { return true }

func contains(parts ...string) func(string) bool {
	return func(msg string) bool {
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				return false
			}
		}
		return true
	}
}

// noBotDMAbout checks that u's direct message with the bot holds nothing
// about part (it may not exist at all).
func noBotDMAbout(t *testing.T, u harness.User, part string) {
	t.Helper()
	ctx := context.Background()
	c := mm.Client(u)
	ch, _, err := c.CreateDirectChannel(ctx, u.ID, theBot(t, u).Id)
	if err != nil {
		t.Fatalf("open the direct message with the bot as %s: %v", u.Username, err)
	}
	list, _, err := c.GetPostsForChannel(ctx, ch.Id, 0, 200, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Posts {
		if strings.Contains(p.Message, part) {
			t.Fatalf("%s's direct message with the bot mentions %s:\n%s", u.Username, part, p.Message)
		}
	}
}

func notifyByDM(t *testing.T, on bool) {
	t.Helper()
	if err := mm.PatchPluginSettings(map[string]any{"NotifyByDM": on}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"NotifyByDM": true}) })
}

func TestTheBotTellsThePersonOfAWaitingPostAndSaysPostedAfterTheyAcceptInTheBrowser(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "harbour-"), "Harbour ops", model.ChannelTypeOpen)
	marker := uniq(t, "dmtold")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker + " opens at dawn\nsecond line",
		"files": []map[string]any{{"name": "tide-table.csv", "content": "time,height\n06:00,1.2\n"}}})
	id := waitPending(t, alice, marker)

	dm := botDMAbout(t, alice, id, anyMessage)
	for _, want := range []string{"Harbour ops", marker + " opens at dawn", "tide-table.csv", pageOf(id)} {
		if !strings.Contains(dm.Message, want) {
			t.Errorf("the bot's message lacks %q:\n%s", want, dm.Message)
		}
	}
	if len(dm.Attachments()) != 0 {
		t.Errorf("the bot's message carries attachments (actions?): %v", dm.Attachments())
	}
	noBotDMAbout(t, bob, marker)

	tab := chromeAs(t, alice)
	step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("accept")))
	if state := outcomeAfterClick(t, tab, "accept"); state != approval.StateDone {
		t.Fatalf("outcome %q", state)
	}
	_, out := waitTool(t, done)
	if out.PostID == "" {
		t.Fatal("no post was made")
	}
	botPostBecomes(t, alice, dm.Id, contains("Posted", "Harbour ops", "/pl/"+out.PostID))
}

// botPostBecomes polls one of the bot's posts, read as u, until ok holds.
func botPostBecomes(t *testing.T, u harness.User, postID string, ok func(string) bool) {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(botDMWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, _, err := mm.Client(u).GetPost(context.Background(), postID, "")
		if err != nil {
			t.Fatalf("read the bot's message: %v", err)
		}
		if last = p.Message; ok(last) {
			return
		}
	}
	t.Fatalf("the bot's message did not change as expected; it reads:\n%s", last)
}

func TestTheBotsMessageSaysDeclinedAfterADecline(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "dmdeclined")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	id := waitPending(t, alice, marker)
	dm := botDMAbout(t, alice, id, anyMessage)
	answerOnPage(t, alice, id, "decline", marker)
	waitTool(t, done)
	botPostBecomes(t, alice, dm.Id, contains("Declined", "nothing was sent"))
}

func TestTheBotsMessageSaysExpiredWhenTheWriteExpiresUnanswered(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "dmexpired")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	id := waitPending(t, alice, marker)
	dm := botDMAbout(t, alice, id, anyMessage)
	// The pending write's lifetime runs out now rather than in 10 minutes.
	if err := mm.ExpireKV(context.Background(), "pc_"+alice.ID+"_"+id); err != nil {
		t.Fatal(err)
	}
	botPostBecomes(t, alice, dm.Id, contains("Expired", "nothing was sent"))
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after the expiry", n)
	}
	select {
	case res := <-done:
		if !res.IsError || !strings.Contains(text(res), "expired") {
			t.Fatalf("the waiting call answered %s", text(res))
		}
	case <-time.After(botDMWait):
		t.Fatal("the waiting call did not answer after the write expired")
	}
}

func TestWithTheSettingOffNoBotMessageIsSentAndTheWriteStillWaitsForThePage(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	notifyByDM(t, false)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "dmoff")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	id := waitPending(t, alice, marker)
	answerOnPage(t, alice, id, "accept", marker)
	_, out := waitTool(t, done)
	if out.State != approval.StateDone {
		t.Fatalf("the write answered on the page ended %s", out.State)
	}
	noBotDMAbout(t, alice, id)
	noBotDMAbout(t, alice, marker)
}

// pluginBots are the active bots the plugin owns, read by the admin.
func pluginBots(t *testing.T) []*model.Bot {
	t.Helper()
	bots, _, err := mm.Client(mm.Admin).GetBotsIncludeDeleted(context.Background(), 0, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []*model.Bot
	for _, b := range bots {
		if b.OwnerId == harness.PluginID && b.DeleteAt == 0 {
			out = append(out, b)
		}
	}
	return out
}

func TestThePluginHasOneBotAfterADisableAndEnableAndOnASecondNode(t *testing.T) {
	first := pluginBots(t)
	if len(first) != 1 || first[0].Username != harness.PluginID || first[0].DisplayName != "MCP Server" {
		t.Fatalf("the plugin's bots: %+v", first)
	}
	if err := mm.DisablePlugin(); err != nil {
		t.Fatal(err)
	}
	if err := mm.EnablePlugin(); err != nil {
		t.Fatal(err)
	}
	nodeURLs(t)
	again := pluginBots(t)
	if len(again) != 1 || again[0].UserId != first[0].UserId {
		t.Fatalf("after a restart and a second node the plugin's bots are %+v, want only %s", again, first[0].UserId)
	}
}
