package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

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
	want := []string{here.Id, byKey.Id, byName.Id}
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
