package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// followedThreads is what Mattermost's own Threads view lists for u, by
// root id, read with its own REST request.
func followedThreads(t *testing.T, u harness.User) map[string]*model.ThreadResponse {
	t.Helper()
	got, _, err := mm.Client(u).GetUserThreads(context.Background(), u.ID, mm.Team.Id, model.GetUserThreadsOpts{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*model.ThreadResponse{}
	for _, th := range got.Threads {
		out[th.PostId] = th
	}
	return out
}

func TestListThreadsListsFollowedThreadsUnreadFirstWithMattermostsCounts(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "thr-"), "Threads", model.ChannelTypeOpen)
	if _, _, err := mm.Client(dave).AddChannelMember(context.Background(), ch.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	// Carol's own thread gets two replies she has not read.
	mine := createPost(t, carol, ch.Id, "carol asks a question", "")
	for i := range 2 {
		createPost(t, dave, ch.Id, fmt.Sprintf("dave answers %d", i), mine.Id)
	}
	// Dave's thread, which carol replied to last: newer, but read.
	his := createPost(t, dave, ch.Id, "dave shares news", "")
	createPost(t, carol, ch.Id, "carol says thanks", his.Id)
	eventually(t, "Mattermost lists both threads for carol, hers with 2 unread replies", func() bool {
		th := followedThreads(t, carol)
		return th[mine.Id] != nil && th[his.Id] != nil && th[mine.Id].UnreadReplies == 2
	})
	mmThreads := followedThreads(t, carol)

	res := call(t, connect(t, mm.URL, carol.Token), "list_threads", nil)
	if res.IsError {
		t.Fatalf("list_threads: %s", text(res))
	}
	var list tools.ThreadList
	structuredAs(t, res, &list)
	if len(list.Threads) != 2 || list.Threads[0].Root.ID != mine.Id || list.Threads[1].Root.ID != his.Id {
		t.Fatalf("want carol's unread thread first, then dave's: %s", text(res))
	}
	for _, th := range list.Threads {
		want := mmThreads[th.Root.ID]
		if th.UnreadReplies != want.UnreadReplies || th.ReplyCount != want.ReplyCount || th.UnreadMentions != want.UnreadMentions {
			t.Errorf("thread %s: list_threads %d replies, %d unread, %d mentions; Mattermost %d, %d, %d",
				th.Root.ID, th.ReplyCount, th.UnreadReplies, th.UnreadMentions, want.ReplyCount, want.UnreadReplies, want.UnreadMentions)
		}
	}
	if !strings.Contains(text(res), `read_thread(post="`+mine.Id+`")`) {
		t.Errorf("the answer does not name read_thread for the thread: %s", text(res))
	}
	if after := followedThreads(t, carol)[mine.Id]; after.UnreadReplies != 2 || after.LastViewedAt != mmThreads[mine.Id].LastViewedAt {
		t.Fatalf("list_threads marked the thread read: %+v", after)
	}
}

// Mattermost drops thread memberships when someone leaves a channel;
// list_threads also checks every thread's channel, so either way it is gone.
func TestAThreadInAPrivateChannelThePersonLeftIsNotListed(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ctx := context.Background()
	priv := createChannel(t, dave, uniq(t, "tpriv-"), "Thread private", model.ChannelTypePrivate)
	if _, _, err := mm.Client(dave).AddChannelMember(ctx, priv.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	root := createPost(t, dave, priv.Id, "private plans", "")
	createPost(t, carol, priv.Id, "count me in", root.Id)
	createPost(t, dave, priv.Id, "more private plans", root.Id)
	c := connect(t, mm.URL, carol.Token)
	eventually(t, "carol follows the private thread", func() bool { return followedThreads(t, carol)[root.Id] != nil })
	var before tools.ThreadList
	structuredAs(t, call(t, c, "list_threads", nil), &before)
	if len(before.Threads) != 1 || before.Threads[0].Root.ID != root.Id {
		t.Fatalf("while a member carol should see the thread: %+v", before)
	}

	if _, err := mm.Client(dave).RemoveUserFromChannel(ctx, priv.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	res := call(t, c, "list_threads", nil)
	if strings.Contains(text(res), root.Id) || strings.Contains(text(res), "private plans") {
		t.Fatalf("list_threads shows a thread of a private channel carol left: %s", text(res))
	}
	if res := call(t, c, "read_thread", map[string]any{"post": root.Id}); !res.IsError || !strings.Contains(text(res), "No post") {
		t.Fatalf("read_thread of it should be not found: %s", text(res))
	}
}
