package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// ownViewTools change only what the person sees.
var ownViewTools = []string{"save_draft", "delete_draft", "save_post", "unsave_post", "follow_thread", "unfollow_thread", "mark_channel_read", "set_post_reminder"}

// ownViewClient is alice's client, able to answer questions, with writes
// on in the mode that asks the most; no own-view tool may ask anything.
func ownViewClient(t *testing.T) *client.Client {
	t.Helper()
	allowWrites(t, config.ConfirmClientThenMattermost)
	p := &person{answer: tick}
	c := connectAsking(t, mm.URL, mm.Users[0].Token, "", formOnly, p)
	t.Cleanup(func() {
		if q := p.asked(); len(q) != 0 {
			t.Errorf("a tool that changes only the person's own view asked them: %+v", q)
		}
	})
	return c
}

// ownView calls an own-view tool that must succeed.
func ownView(t *testing.T, c *client.Client, tool string, args map[string]any) tools.OwnViewResult {
	t.Helper()
	res := call(t, c, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, text(res))
	}
	var out tools.OwnViewResult
	structuredAs(t, res, &out)
	return out
}

// refusedAsNotFound calls a tool that must refuse with "not found", naming
// nothing of what it could not see.
func refusedAsNotFound(t *testing.T, c *client.Client, tool string, args map[string]any, secret string) {
	t.Helper()
	res := call(t, c, tool, args)
	body := strings.ToLower(text(res))
	if !res.IsError || !(strings.Contains(body, "not found") || strings.Contains(body, "no channel matches")) || strings.Contains(body, strings.ToLower(secret)) {
		t.Fatalf("%s on something alice cannot see answered: %s", tool, text(res))
	}
}

// bobsSecrets is a private channel of bob's without alice, with a post,
// and a direct message between bob and the admin, with a post.
func bobsSecrets(t *testing.T) (private *model.Channel, privatePost, dmPost *model.Post) {
	t.Helper()
	bob := mm.Users[1]
	private = createChannel(t, bob, uniq(t, "bobonly-"), "Bob's plans", model.ChannelTypePrivate)
	privatePost = createPost(t, bob, private.Id, "bob's private plans", "")
	dm, _, err := mm.Client(bob).CreateDirectChannel(context.Background(), bob.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	dmPost = createPost(t, bob, dm.Id, "bob tells the admin a secret", "")
	return private, privatePost, dmPost
}

func aliceDrafts(t *testing.T, channelID string) []*model.Draft {
	t.Helper()
	alice := mm.Users[0]
	all, _, err := mm.Client(alice).GetDrafts(context.Background(), alice.ID, mm.Team.Id)
	if err != nil {
		t.Fatalf("GET drafts: %v", err)
	}
	var in []*model.Draft
	for _, d := range all {
		if d.ChannelId == channelID {
			in = append(in, d)
		}
	}
	return in
}

func TestSaveDraftLeavesTheMessageInThePersonsBoxAndDeleteDraftClearsIt(t *testing.T) {
	c := ownViewClient(t)
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "drafts-"), "Drafts", model.ChannelTypeOpen)
	root := createPost(t, alice, ch.Id, "a thread to answer", "")
	reply := createPost(t, alice, ch.Id, "a reply in it", root.Id)

	out := ownView(t, c, "save_draft", map[string]any{"channel": ch.Id, "message": "draft for the channel"})
	if out.Done != "draft_saved" || out.ChannelID != ch.Id || out.RootID != "" {
		t.Fatalf("save_draft answered %+v", out)
	}
	out = ownView(t, c, "save_draft", map[string]any{"channel": "~" + ch.Name, "root_id": reply.Id, "message": "draft for the thread"})
	if out.RootID != root.Id {
		t.Fatalf("a draft in the thread of a reply went to root %q, want %s", out.RootID, root.Id)
	}
	got := map[string]string{}
	for _, d := range aliceDrafts(t, ch.Id) {
		got[d.RootId] = d.Message
	}
	if got[""] != "draft for the channel" || got[root.Id] != "draft for the thread" || len(got) != 2 {
		t.Fatalf("alice's drafts in the channel: %v", got)
	}
	posts, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), ch.Id, 0, 10, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range posts.Posts {
		if strings.HasPrefix(p.Message, "draft for") {
			t.Fatalf("a draft was posted: %q", p.Message)
		}
	}

	ownView(t, c, "delete_draft", map[string]any{"channel": ch.Id, "root_id": root.Id})
	if d := aliceDrafts(t, ch.Id); len(d) != 1 || d[0].RootId != "" {
		t.Fatalf("after deleting the thread's draft: %+v", d)
	}
	ownView(t, c, "delete_draft", map[string]any{"channel": ch.Id})
	if d := aliceDrafts(t, ch.Id); len(d) != 0 {
		t.Fatalf("after deleting the channel's draft: %+v", d)
	}
	if out := ownView(t, c, "delete_draft", map[string]any{"channel": ch.Id}); out.Done != "draft_deleted" {
		t.Fatalf("deleting a draft that is not there: %+v", out)
	}
}

func TestSaveDraftInAChannelOrThreadThePersonCannotSeeIsNotFound(t *testing.T) {
	c := ownViewClient(t)
	private, privatePost, dmPost := bobsSecrets(t)
	refusedAsNotFound(t, c, "save_draft", map[string]any{"channel": private.Id, "message": "x"}, "Bob's plans")
	refusedAsNotFound(t, c, "save_draft", map[string]any{"channel": dmPost.ChannelId, "message": "x"}, "secret")
	// A thread of a channel alice cannot see, under a channel she can.
	refusedAsNotFound(t, c, "save_draft", map[string]any{"channel": townSquare(t).Id, "root_id": privatePost.Id, "message": "x"}, "private plans")
	for _, id := range []string{private.Id, dmPost.ChannelId} {
		if d := aliceDrafts(t, id); len(d) != 0 {
			t.Fatalf("a refused draft was kept: %+v", d)
		}
	}
}

func savedByAlice(t *testing.T, postID string) bool {
	t.Helper()
	alice := mm.Users[0]
	// All of them: Mattermost answers an error, not an empty list, for a
	// category with nothing in it.
	prefs, _, err := mm.Client(alice).GetPreferences(context.Background(), alice.ID)
	if err != nil {
		t.Fatalf("GET preferences: %v", err)
	}
	for _, p := range prefs {
		if p.Category == model.PreferenceCategoryFlaggedPost && p.Name == postID && p.Value == "true" {
			return true
		}
	}
	return false
}

func TestSavePostAndUnsavePostChangeThePersonsSavedMessages(t *testing.T) {
	c := ownViewClient(t)
	p := createPost(t, mm.Users[1], townSquare(t).Id, "worth keeping", "")
	if out := ownView(t, c, "save_post", map[string]any{"post_id": p.Id}); out.Done != "post_saved" || out.PostID != p.Id {
		t.Fatalf("save_post answered %+v", out)
	}
	if !savedByAlice(t, p.Id) {
		t.Fatal("the post is not among alice's saved posts")
	}
	ownView(t, c, "save_post", map[string]any{"post_id": p.Id})
	ownView(t, c, "unsave_post", map[string]any{"post_id": p.Id})
	if savedByAlice(t, p.Id) {
		t.Fatal("the post is still among alice's saved posts")
	}
	ownView(t, c, "unsave_post", map[string]any{"post_id": p.Id})
}

func TestSavingAPostThePersonCannotReadIsNotFound(t *testing.T) {
	c := ownViewClient(t)
	_, privatePost, dmPost := bobsSecrets(t)
	for _, p := range []*model.Post{privatePost, dmPost} {
		refusedAsNotFound(t, c, "save_post", map[string]any{"post_id": p.Id}, p.Message)
		if savedByAlice(t, p.Id) {
			t.Fatalf("alice saved %q, which she cannot read", p.Message)
		}
	}
}

func aliceFollows(t *testing.T, rootID string) bool {
	t.Helper()
	alice := mm.Users[0]
	th, resp, err := mm.Client(alice).GetUserThread(context.Background(), alice.ID, mm.Team.Id, rootID, false)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false
	}
	if err != nil {
		t.Fatalf("GET thread: %v", err)
	}
	return th.PostId == rootID
}

func TestFollowThreadAndUnfollowThreadChangeThePersonsThreadMembership(t *testing.T) {
	c := ownViewClient(t)
	bob := mm.Users[1]
	root := createPost(t, bob, townSquare(t).Id, "bob starts a thread", "")
	reply := createPost(t, bob, root.ChannelId, "bob answers himself", root.Id)
	if aliceFollows(t, root.Id) {
		t.Fatal("alice follows bob's thread before asking to")
	}
	if out := ownView(t, c, "follow_thread", map[string]any{"post_id": reply.Id}); out.Done != "thread_followed" || out.PostID != root.Id {
		t.Fatalf("follow_thread by a reply answered %+v", out)
	}
	if !aliceFollows(t, root.Id) {
		t.Fatal("alice does not follow the thread")
	}
	ownView(t, c, "unfollow_thread", map[string]any{"post_id": root.Id})
	if aliceFollows(t, root.Id) {
		t.Fatal("alice still follows the thread")
	}
	if member, following, err := mm.ThreadMembership(context.Background(), mm.Users[0].ID, root.Id); err != nil || !member || following {
		t.Fatalf("alice's membership of the thread after unfollowing: member %v, following %v (%v)", member, following, err)
	}
}

func TestFollowingAThreadThePersonCannotReadIsNotFound(t *testing.T) {
	c := ownViewClient(t)
	_, privatePost, dmPost := bobsSecrets(t)
	for _, p := range []*model.Post{privatePost, dmPost} {
		refusedAsNotFound(t, c, "follow_thread", map[string]any{"post_id": p.Id}, p.Message)
	}
	for _, p := range []*model.Post{privatePost, dmPost} {
		if member, _, err := mm.ThreadMembership(context.Background(), mm.Users[0].ID, p.Id); err != nil || member {
			t.Fatalf("alice has a membership of the thread %q: %v %v", p.Message, member, err)
		}
	}
}

func TestMarkChannelReadMarksTheChannelViewedByThePersonNow(t *testing.T) {
	c := ownViewClient(t)
	alice, bob := mm.Users[0], mm.Users[1]
	ctx := context.Background()
	ch := createChannel(t, bob, uniq(t, "unread-"), "Unread", model.ChannelTypeOpen)
	if _, _, err := mm.Client(bob).AddChannelMember(ctx, ch.Id, alice.ID); err != nil {
		t.Fatal(err)
	}
	var last *model.Post
	for _, m := range []string{"one", "two", "three"} {
		last = createPost(t, bob, ch.Id, m, "")
	}
	before, _, err := mm.Client(alice).GetChannelMember(ctx, ch.Id, alice.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if before.LastViewedAt >= last.CreateAt {
		t.Fatalf("alice viewed the channel before the test: %d >= %d", before.LastViewedAt, last.CreateAt)
	}
	if out := ownView(t, c, "mark_channel_read", map[string]any{"channel": ch.Id}); out.Done != "channel_read" || out.ChannelID != ch.Id {
		t.Fatalf("mark_channel_read answered %+v", out)
	}
	after, _, err := mm.Client(alice).GetChannelMember(ctx, ch.Id, alice.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := mm.Client(alice).GetChannel(ctx, ch.Id)
	if err != nil {
		t.Fatal(err)
	}
	if after.LastViewedAt < last.CreateAt || after.MsgCount != got.TotalMsgCount {
		t.Fatalf("after mark_channel_read: last viewed %d (last post %d), %d of %d messages read",
			after.LastViewedAt, last.CreateAt, after.MsgCount, got.TotalMsgCount)
	}
}

func TestMarkChannelReadRefusesAChannelThePersonIsNotInOrCannotSee(t *testing.T) {
	c := ownViewClient(t)
	private, _, dmPost := bobsSecrets(t)
	refusedAsNotFound(t, c, "mark_channel_read", map[string]any{"channel": private.Id}, "Bob's plans")
	refusedAsNotFound(t, c, "mark_channel_read", map[string]any{"channel": dmPost.ChannelId}, "secret")
	public := createChannel(t, mm.Users[1], uniq(t, "notjoined-"), "Not joined", model.ChannelTypeOpen)
	if res := call(t, c, "mark_channel_read", map[string]any{"channel": public.Id}); !res.IsError || !strings.Contains(text(res), "not a member") {
		t.Fatalf("marking a public channel alice is not in: %s", text(res))
	}
}

func TestSetPostReminderStoresAReminderForThePersonAtThatTime(t *testing.T) {
	c := ownViewClient(t)
	ctx := context.Background()
	alice := mm.Users[0]
	p := createPost(t, mm.Users[1], townSquare(t).Id, "remind me of this", "")
	start := time.Now()
	out := ownView(t, c, "set_post_reminder", map[string]any{"post_id": p.Id, "in_minutes": 90})
	at, found, err := mm.PostReminder(ctx, alice.ID, p.Id)
	if err != nil || !found {
		t.Fatalf("no reminder stored for alice: %v", err)
	}
	want := start.Add(90 * time.Minute).Unix()
	if at < want-5 || at > want+60 || out.At != time.Unix(at, 0).UTC().Format(time.RFC3339) {
		t.Fatalf("reminder at %d (answered %s), want about %d", at, out.At, want)
	}
	exact := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	ownView(t, c, "set_post_reminder", map[string]any{"post_id": p.Id, "at": exact.Format(time.RFC3339)})
	if at, _, err := mm.PostReminder(ctx, alice.ID, p.Id); err != nil || at != exact.Unix() {
		t.Fatalf("the second reminder is at %d, want %d (%v)", at, exact.Unix(), err)
	}
	if res := call(t, c, "set_post_reminder", map[string]any{"post_id": p.Id, "at": "2001-01-01T00:00:00Z"}); !res.IsError || !strings.Contains(text(res), "has passed") {
		t.Fatalf("a reminder in the past: %s", text(res))
	}
}

func TestAReminderOnAPostThePersonCannotReadIsNotFound(t *testing.T) {
	c := ownViewClient(t)
	_, privatePost, dmPost := bobsSecrets(t)
	for _, p := range []*model.Post{privatePost, dmPost} {
		refusedAsNotFound(t, c, "set_post_reminder", map[string]any{"post_id": p.Id, "in_minutes": 30}, p.Message)
		if _, found, err := mm.PostReminder(context.Background(), mm.Users[0].ID, p.Id); err != nil || found {
			t.Fatalf("a reminder for alice on %q: %v %v", p.Message, found, err)
		}
	}
}

func TestWithWritesOffNoToolThatChangesThePersonsOwnViewIsListedOrCallable(t *testing.T) {
	a := aliceClient(t)
	listed := toolNames(t, a)
	p := createPost(t, mm.Users[1], townSquare(t).Id, "not to be saved", "")
	for _, name := range ownViewTools {
		if slices.Contains(listed, name) {
			t.Fatalf("%s is listed with writes off", name)
		}
		res, err := callErr(a, name, map[string]any{"channel": townSquare(t).Id, "post_id": p.Id, "message": "x", "in_minutes": 5})
		if err == nil && !res.IsError {
			t.Fatalf("%s was callable with writes off: %s", name, text(res))
		}
	}
	if savedByAlice(t, p.Id) {
		t.Fatal("save_post saved a post with writes off")
	}
	if _, found, err := mm.PostReminder(context.Background(), mm.Users[0].ID, p.Id); err != nil || found {
		t.Fatalf("set_post_reminder set a reminder with writes off: %v %v", found, err)
	}
}

// The own-view tools are listed with writes on (the catalogue's own test
// checks the rule; this checks the running plugin agrees).
func TestWithWritesOnEveryToolThatChangesThePersonsOwnViewIsListed(t *testing.T) {
	c := ownViewClient(t)
	listed := toolNames(t, c)
	for _, name := range ownViewTools {
		if !slices.Contains(listed, name) {
			t.Errorf("%s is not listed with writes on", name)
		}
	}
}

func TestOwnViewToolsActAsThePersonWhenTheySignedInWithAPersonalAccessToken(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	token, err := mm.PersonalAccessToken(alice)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, token)
	ch := createChannel(t, alice, uniq(t, "patdraft-"), "PAT drafts", model.ChannelTypeOpen)
	ownView(t, c, "save_draft", map[string]any{"channel": ch.Id, "message": "drafted with a token"})
	if d := aliceDrafts(t, ch.Id); len(d) != 1 || d[0].Message != "drafted with a token" || d[0].UserId != alice.ID {
		t.Fatalf("alice's drafts after save_draft with a personal access token: %+v", d)
	}
}
