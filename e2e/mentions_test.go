package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestListMentionsFindsTheUsernameAMentionKeyAndHereButNotLookalikesOrOwnPosts(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ctx := context.Background()
	key := "zeppelin" + strings.ToLower(model.NewId()[:6])
	me, _, err := mm.Client(carol).GetMe(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	props := me.NotifyProps
	props["mention_keys"] = key
	if _, _, err := mm.Client(carol).PatchUser(ctx, carol.ID, &model.UserPatch{NotifyProps: props}); err != nil {
		t.Fatal(err)
	}
	ch := createChannel(t, dave, uniq(t, "ment-"), "Mentions", model.ChannelTypeOpen)
	if _, _, err := mm.Client(dave).AddChannelMember(ctx, ch.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	byName := createPost(t, dave, ch.Id, "can you check this @"+carol.Username+"?", "")
	byKey := createPost(t, dave, ch.Id, "the "+key+" has landed", "")
	here := createPost(t, dave, ch.Id, "@here standup in five", "")
	createPost(t, dave, ch.Id, "ask @"+carol.Username+"x about it", "")
	createPost(t, dave, ch.Id, "the plan is here, for all", "")
	createPost(t, carol, ch.Id, "note to self @"+carol.Username+" "+key, "")
	// A private channel carol is not in: a mention there is not hers to see.
	priv := createChannel(t, dave, uniq(t, "mpriv-"), "Mention private", model.ChannelTypePrivate)
	hidden := createPost(t, dave, priv.Id, "secret for @"+carol.Username+" "+key, "")

	res := call(t, connect(t, mm.URL, carol.Token), "list_mentions", nil)
	if res.IsError {
		t.Fatalf("list_mentions: %s", text(res))
	}
	var page tools.MentionPage
	structuredAs(t, res, &page)
	var got []string
	for _, p := range page.Posts {
		if p.ChannelID == ch.Id || p.ChannelID == priv.Id {
			got = append(got, p.ID)
		}
	}
	want := []string{byKey.Id, byName.Id}
	// list_mentions finds channel-wide mentions through Mattermost's post
	// search, which finds "@here" on 11.4 and not on 9.11: it must find
	// what that search finds.
	hereFound, _, err := mm.Client(carol).SearchPostsWithParams(ctx, mm.Team.Id, &model.SearchParameter{Terms: model.NewPointer(`"@here"`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hereFound.Posts[here.Id]; ok {
		want = append([]string{here.Id}, want...)
	} else {
		t.Logf("Mattermost %s's post search does not find @here, so list_mentions cannot", mm.Version())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("list_mentions found %v, want newest first %v (@here, key, @username): %s", got, want, text(res))
	}
	if strings.Contains(text(res), hidden.Id) || strings.Contains(text(res), "secret for") {
		t.Errorf("list_mentions shows a post in a private channel carol is not in: %s", text(res))
	}
	if m := page.Matched[byKey.Id]; len(m) != 1 || m[0] != key {
		t.Errorf("the key post matched %v, want [%s]", m, key)
	}
	// Mattermost's own search, as carol, finds the personal mentions too.
	found, _, err := mm.Client(carol).SearchPostsWithParams(ctx, mm.Team.Id, &model.SearchParameter{
		Terms: model.NewPointer("@" + carol.Username + " " + key), IsOrSearch: model.NewPointer(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{byName.Id, byKey.Id} {
		if _, ok := found.Posts[id]; !ok {
			t.Errorf("Mattermost's own search does not find %s, so the fixture is wrong", id)
		}
	}
}

// mentionCount is Mattermost's own count of u's mentions in a channel, as
// its unread badge shows it.
func mentionCount(t *testing.T, u harness.User, channelID string) int64 {
	t.Helper()
	m, _, err := mm.Client(u).GetChannelMember(context.Background(), channelID, u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	return m.MentionCount
}

func TestListMentionsAgreesWithMattermostsMentionCountCaseByCase(t *testing.T) {
	gail, hank := newPerson(t, "gail"), newPerson(t, "hank")
	ctx := context.Background()
	at := "@" + gail.Username
	cases := []struct {
		name, message string
		// props are gail's notification settings in the channel.
		props model.StringMap
	}{
		{"plain", "please review, " + at, nil},
		{"code span", "the handle is `" + at + "` in the config", nil},
		{"fenced block", "```\nnotify " + at + "\n```", nil},
		{"indented code", "the log says\n\n    paged " + at + " at 3am", nil},
		{"link target", "[the runbook](https://wiki.example.com/people/" + at + ")", nil},
		// Mattermost's markdown splits link text where a "w" could start a
		// www link, so this counts unless the username holds a w: either
		// way list_mentions must agree.
		{"link text", "[ask " + at + "](https://wiki.example.com/runbook)", nil},
		{"trailing underscore", "thanks " + at + "_", nil},
		{"end of sentence", "over to " + at + ".", nil},
		{"channel mention", "@channel the deploy is done", nil},
		{"channel mention where ignored", "@channel the deploy is done",
			model.StringMap{model.IgnoreChannelMentionsNotifyProp: model.IgnoreChannelMentionsOn}},
		{"all in a muted channel", "@all lunch is here",
			model.StringMap{model.MarkUnreadNotifyProp: model.ChannelMarkUnreadMention}},
	}
	posts := map[string]*model.Post{}
	counts := map[string]int64{}
	for _, c := range cases {
		// gail makes the channel, so no "added to the channel" mention of
		// hers is counted.
		ch := createChannel(t, gail, uniq(t, "mc-"), "Mention count "+c.name, model.ChannelTypeOpen)
		if _, _, err := mm.Client(gail).AddChannelMember(ctx, ch.Id, hank.ID); err != nil {
			t.Fatal(err)
		}
		if c.props != nil {
			if _, err := mm.Client(gail).UpdateChannelNotifyProps(ctx, ch.Id, gail.ID, c.props); err != nil {
				t.Fatal(err)
			}
		}
		before := mentionCount(t, gail, ch.Id)
		posts[c.name] = createPost(t, hank, ch.Id, c.message, "")
		counts[c.name] = mentionCount(t, gail, ch.Id) - before
	}

	res := call(t, connect(t, mm.URL, gail.Token), "list_mentions", map[string]any{"limit": 100})
	if res.IsError {
		t.Fatalf("list_mentions: %s", text(res))
	}
	var page tools.MentionPage
	structuredAs(t, res, &page)
	listed := map[string]bool{}
	for _, p := range page.Posts {
		listed[p.ID] = true
	}
	counted := 0
	for _, c := range cases {
		if counts[c.name] > 0 {
			counted++
		}
		if got, want := listed[posts[c.name].Id], counts[c.name] > 0; got != want {
			t.Errorf("%s (%q): list_mentions lists it %v, Mattermost's mention_count went up by %d", c.name, c.message, got, counts[c.name])
		}
	}
	t.Logf("Mattermost's mention_count, case by case: %v", counts)
	// The fixture tells both kinds apart, or agreement proves nothing.
	if counted == 0 || counted == len(cases) {
		t.Fatalf("Mattermost counted %d of %d cases as mentions; the fixture is wrong: %v", counted, len(cases), counts)
	}
}

func TestChannelWideMentionsAreNotListedForSomeoneWhoTurnedThemOffInTheirAccount(t *testing.T) {
	ivy, hank := newPerson(t, "ivy"), newPerson(t, "hank")
	ctx := context.Background()
	me, _, err := mm.Client(ivy).GetMe(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	props := me.NotifyProps
	props[model.ChannelMentionsNotifyProp] = "false"
	if _, _, err := mm.Client(ivy).PatchUser(ctx, ivy.ID, &model.UserPatch{NotifyProps: props}); err != nil {
		t.Fatal(err)
	}
	ch := createChannel(t, ivy, uniq(t, "mcoff-"), "Channel mentions off", model.ChannelTypeOpen)
	if _, _, err := mm.Client(ivy).AddChannelMember(ctx, ch.Id, hank.ID); err != nil {
		t.Fatal(err)
	}
	all := createPost(t, hank, ch.Id, "@all the office is closed", "")
	byName := createPost(t, hank, ch.Id, "@"+ivy.Username+" the office is closed", "")
	if n := mentionCount(t, ivy, ch.Id); n != 1 {
		t.Fatalf("Mattermost counts %d mentions of ivy, want 1 (the @username only)", n)
	}
	res := call(t, connect(t, mm.URL, ivy.Token), "list_mentions", nil)
	var page tools.MentionPage
	structuredAs(t, res, &page)
	var got []string
	for _, p := range page.Posts {
		got = append(got, p.ID)
	}
	if strings.Join(got, ",") != byName.Id {
		t.Errorf("list_mentions lists %v, want only %s (not the @all post %s): %s", got, byName.Id, all.Id, text(res))
	}
	for _, k := range page.Keys {
		if strings.HasPrefix(k, "@all") || k == "@channel" || k == "@here" {
			t.Errorf("list_mentions searches %q for someone who turned channel-wide mentions off", k)
		}
	}
}
