package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// strangersDM is a direct message between bob and a new person, which
// alice cannot read.
func strangersDM(t *testing.T) *model.Channel {
	t.Helper()
	bob := mm.Users[1]
	carol, err := mm.CreateUser(uniq(t, "carol"))
	if err != nil {
		t.Fatal(err)
	}
	dm, _, err := mm.Client(bob).CreateDirectChannel(context.Background(), bob.ID, carol.ID)
	if err != nil {
		t.Fatal(err)
	}
	return dm
}

func pin(t *testing.T, u harness.User, postID string) {
	t.Helper()
	if _, err := mm.Client(u).PinPost(context.Background(), postID); err != nil {
		t.Fatalf("pin %s: %v", postID, err)
	}
}

func postIDs(page tools.PostPage) []string {
	var ids []string
	for _, p := range page.Posts {
		ids = append(ids, p.ID)
	}
	return ids
}

func TestListPinnedPostsPagesThePinnedPostsNewestFirstAsMattermostHasThem(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "pins-"), "Pins", model.ChannelTypeOpen)
	var pinned []string
	for i := range 3 {
		p := createPost(t, alice, ch.Id, "pinned "+string(rune('a'+i)), "")
		pin(t, alice, p.Id)
		pinned = append(pinned, p.Id)
	}
	createPost(t, alice, ch.Id, "not pinned", "")

	c := connect(t, mm.URL, alice.Token)
	var first, second tools.PostPage
	res := call(t, c, "list_pinned_posts", map[string]any{"channel": ch.Id, "limit": 2})
	structuredAs(t, res, &first)
	if res.IsError || first.Complete || first.NextCursor == "" || !strings.Contains(text(res), "list_pinned_posts ") {
		t.Fatalf("first page should say how to go on: %s", text(res))
	}
	res = call(t, c, "list_pinned_posts", map[string]any{"channel": ch.Id, "limit": 2, "cursor": first.NextCursor})
	structuredAs(t, res, &second)
	if res.IsError || !second.Complete {
		t.Fatalf("second page should be the last: %s", text(res))
	}
	got := append(postIDs(first), postIDs(second)...)

	list, _, err := mm.Client(alice).GetPinnedPosts(context.Background(), ch.Id, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Order) != 3 {
		t.Fatalf("Mattermost has %d pinned posts, want 3", len(list.Order))
	}
	want := []string{pinned[2], pinned[1], pinned[0]}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("list_pinned_posts = %v, want newest first %v", got, want)
	}
	for _, id := range got {
		if _, ok := list.Posts[id]; !ok {
			t.Errorf("%s is not pinned in Mattermost", id)
		}
	}
}

func TestThePinnedPostsOfAnotherPersonsDMAreNotFound(t *testing.T) {
	dm := strangersDM(t)
	p := createPost(t, mm.Users[1], dm.Id, "between us", "")
	pin(t, mm.Users[1], p.Id)
	res := call(t, connect(t, mm.URL, mm.Users[0].Token), "list_pinned_posts", map[string]any{"channel": dm.Id})
	if !res.IsError || !strings.Contains(text(res), "No channel matches") || strings.Contains(text(res), "between us") {
		t.Fatalf("alice should not find bob's DM: %s", text(res))
	}
}

func save(t *testing.T, u harness.User, postID string) {
	t.Helper()
	if _, err := mm.Client(u).UpdatePreferences(context.Background(), u.ID, model.Preferences{
		{UserId: u.ID, Category: model.PreferenceCategoryFlaggedPost, Name: postID, Value: "true"},
	}); err != nil {
		t.Fatalf("save %s: %v", postID, err)
	}
}

func TestListSavedShowsTheSavedPostsNewestFirstAndLeavesOutThoseNoLongerReadable(t *testing.T) {
	alice := mm.Users[0]
	dave, err := mm.CreateUser(uniq(t, "dave"))
	if err != nil {
		t.Fatal(err)
	}
	open := createChannel(t, alice, uniq(t, "saved-"), "Saved", model.ChannelTypeOpen)
	secret := createChannel(t, alice, uniq(t, "gone-"), "Gone", model.ChannelTypePrivate)
	for _, ch := range []*model.Channel{open, secret} {
		// Mattermost lists saved posts of the channels one is in.
		if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, dave.ID); err != nil {
			t.Fatal(err)
		}
	}
	older := createPost(t, alice, open.Id, "saved older", "")
	hidden := createPost(t, alice, secret.Id, "saved then left", "")
	newer := createPost(t, alice, open.Id, "saved newer", "")
	for _, id := range []string{older.Id, hidden.Id, newer.Id} {
		save(t, dave, id)
	}
	if _, err := mm.Client(alice).RemoveUserFromChannel(context.Background(), secret.Id, dave.ID); err != nil {
		t.Fatal(err)
	}

	var page tools.PostPage
	res := call(t, connect(t, mm.URL, dave.Token), "list_saved", nil)
	structuredAs(t, res, &page)
	got := strings.Join(postIDs(page), ",")
	if res.IsError || got != newer.Id+","+older.Id || !page.Complete || strings.Contains(text(res), "saved then left") {
		t.Fatalf("list_saved = %s, want %s then %s only: %s", got, newer.Id, older.Id, text(res))
	}
	flagged, _, err := mm.Client(dave).GetFlaggedPostsForUser(context.Background(), dave.ID, 0, 60)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range postIDs(page) {
		if _, ok := flagged.Posts[id]; !ok {
			t.Errorf("%s is not saved in Mattermost", id)
		}
	}
}
