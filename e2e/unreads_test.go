package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// viewChannel sets u's read point in a channel, as the web app does when
// they open it.
func viewChannel(t *testing.T, u harness.User, channelID string) {
	t.Helper()
	if _, _, err := mm.Client(u).ViewChannel(context.Background(), u.ID, &model.ChannelView{ChannelId: channelID}); err != nil {
		t.Fatal(err)
	}
}

// readPoint is u's read point and Mattermost's own unread counts for a
// channel, each read back with its own request.
func readPoint(t *testing.T, u harness.User, channelID string) (int64, *model.ChannelUnread) {
	t.Helper()
	ctx := context.Background()
	m, _, err := mm.Client(u).GetChannelMember(ctx, channelID, u.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	unread, _, err := mm.Client(u).GetChannelUnread(ctx, channelID, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m.LastViewedAt, unread
}

// eventually polls cond until it holds or ten seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

// eventuallyWithin is eventually for what Mattermost does in the
// background at its own pace, which a loaded machine slows: it polls up
// to within.
func eventuallyWithin(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after %s: %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestListUnreadsAndReadUnreadAgreeWithMattermostsCountsAndMarkNothingRead(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "news-"), "News", model.ChannelTypeOpen)
	if _, _, err := mm.Client(dave).AddChannelMember(context.Background(), ch.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	// Mattermost writes the "added to the channel" post in the background;
	// wait for it so that it lies before carol's read point.
	var addedAt int64
	eventually(t, "the added-to-channel post is written", func() bool {
		list, _, err := mm.Client(dave).GetPostsForChannel(context.Background(), ch.Id, 0, 50, "", false, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list.Posts {
			if p.Type == model.PostTypeAddToChannel {
				addedAt = p.CreateAt
				return true
			}
		}
		return false
	})
	// A view sets the read point from the channel's last post time, which
	// Mattermost 9.11 may update a moment after the post is readable: view
	// again until the read point covers the post.
	eventually(t, "carol's read point covers the added-to-channel post", func() bool {
		viewChannel(t, carol, ch.Id)
		viewed, _ := readPoint(t, carol, ch.Id)
		return viewed >= addedAt
	})
	want := map[string]bool{}
	for _, msg := range []string{"first news", "second news for @" + carol.Username, "third news"} {
		want[createPost(t, dave, ch.Id, msg, "").Id] = true
	}
	dm, _, err := mm.Client(dave).CreateDirectChannel(context.Background(), dave.ID, carol.ID)
	if err != nil {
		t.Fatal(err)
	}
	createPost(t, dave, dm.Id, "a word in private", "")
	viewedBefore, mmUnread := readPoint(t, carol, ch.Id)
	// Other tests of the suite may give carol more mention keys; the
	// plugin's counts are compared with Mattermost's own below.
	if mmUnread.MsgCount != 3 || mmUnread.MentionCount < 1 {
		t.Fatalf("Mattermost counts %d unread and %d mentions, want 3 and at least 1", mmUnread.MsgCount, mmUnread.MentionCount)
	}

	c := connect(t, mm.URL, carol.Token)
	res := call(t, c, "list_unreads", nil)
	var list tools.UnreadList
	structuredAs(t, res, &list)
	got := map[string]tools.UnreadChannel{}
	for _, u := range list.Channels {
		got[u.ID] = u
	}
	if u, ok := got[ch.Id]; !ok || u.Unread != mmUnread.MsgCount || u.Mentions != mmUnread.MentionCount || u.UnreadRoot != mmUnread.MsgCountRoot {
		t.Fatalf("list_unreads shows the channel as %+v, Mattermost counts %+v: %s", got[ch.Id], mmUnread, text(res))
	}
	if u, ok := got[dm.Id]; !ok || u.Unread != 1 || u.DisplayName != "@"+dave.Username {
		t.Fatalf("list_unreads shows the DM as %+v: %s", got[dm.Id], text(res))
	}
	if list.Channels[0].ID != dm.Id || !strings.Contains(text(res), `read_unread(channel="`+ch.Id+`")`) {
		t.Errorf("the newest unread (the DM) should come first, each with its next call: %s", text(res))
	}

	seen := map[string]bool{}
	args := map[string]any{"channel": ch.Id, "limit": 2}
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("read_unread did not reach the read point in 3 pages")
		}
		res := call(t, c, "read_unread", args)
		if res.IsError {
			t.Fatalf("read_unread: %s", text(res))
		}
		var page tools.UnreadPage
		structuredAs(t, res, &page)
		if page.Unread != mmUnread.MsgCount {
			t.Errorf("read_unread says %d unread, Mattermost %d", page.Unread, mmUnread.MsgCount)
		}
		for _, p := range page.Posts {
			if seen[p.ID] || !want[p.ID] {
				t.Fatalf("read_unread shows %s (%q), which is not one of the unread posts or is shown twice", p.ID, p.Message)
			}
			seen[p.ID] = true
		}
		if page.NextCursor == "" {
			if !strings.Contains(text(res), "read point") {
				t.Errorf("the last page should say it reached the read point: %s", text(res))
			}
			break
		}
		args["cursor"] = page.NextCursor
	}
	if int64(len(seen)) != mmUnread.MsgCount {
		t.Fatalf("read_unread showed %d posts, Mattermost counts %d unread", len(seen), mmUnread.MsgCount)
	}

	viewedAfter, unreadAfter := readPoint(t, carol, ch.Id)
	if viewedAfter != viewedBefore || unreadAfter.MsgCount != 3 || unreadAfter.MentionCount != 1 {
		t.Fatalf("reading marked the channel read: last_viewed_at %d -> %d, unread %+v", viewedBefore, viewedAfter, unreadAfter)
	}
	if _, dmUnread := readPoint(t, carol, dm.Id); dmUnread.MsgCount != 1 {
		t.Fatalf("listing marked the DM read: %+v", dmUnread)
	}
}

func TestReadUnreadOfAChannelNotJoinedSaysSoAndNamesReadChannel(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "open-"), "Open", model.ChannelTypeOpen)
	res := call(t, connect(t, mm.URL, carol.Token), "read_unread", map[string]any{"channel": ch.Id})
	if !res.IsError || !strings.Contains(text(res), "not a member") || !strings.Contains(text(res), `read_channel(channel="`+ch.Id+`")`) {
		t.Fatalf("want a refusal naming read_channel: %s", text(res))
	}
}

func TestUnreadsOfAnotherPersonsDMOrAPrivateChannelAreNotFound(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	word := "unseen" + strings.ToLower(model.NewId()[:10])
	priv := createChannel(t, alice, uniq(t, "priv-"), "Private "+word, model.ChannelTypePrivate)
	createPost(t, alice, priv.Id, "secret "+word, "")
	dm, _, err := mm.Client(alice).CreateDirectChannel(context.Background(), alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	createPost(t, mm.Admin, dm.Id, "dm "+word, "")

	bc := connect(t, mm.URL, bob.Token)
	for _, id := range []string{priv.Id, dm.Id} {
		res := call(t, bc, "read_unread", map[string]any{"channel": id})
		if !res.IsError || !strings.Contains(text(res), "No channel matches") || strings.Contains(text(res), word) {
			t.Errorf("read_unread(%s) for bob: want not found, got %s", id, text(res))
		}
	}
	if msg := text(call(t, bc, "list_unreads", nil)); strings.Contains(msg, priv.Id) || strings.Contains(msg, dm.Id) {
		t.Errorf("list_unreads shows bob alice's conversations: %s", msg)
	}
}
