package tools

import (
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestListThreadsWritesEachFollowedThreadWithItsCountsAndAnExcerptOfItsRoot(t *testing.T) {
	roots := readingPosts()
	long := readingPost("post4id00000000000000000000", "~town-square", "@bob", repeatRunes('x', threadExcerpt+40), 90)
	thread := func(root PostView, replies, unread int64) mattermost.FollowedThread {
		return mattermost.FollowedThread{RootID: root.ID, ChannelID: root.ChannelID, ReplyCount: replies, UnreadReplies: unread,
			LastReplyAt: readingNow - 60_000, LastViewedAt: readingNow - 3600_000}
	}
	followed := []mattermost.FollowedThread{thread(roots[0], 4, 2), thread(roots[1], 1, 0), thread(long, 7, 0), thread(roots[2], 2, 0)}
	cases := []struct {
		name string
		f    followedThreads
	}{
		{"list_threads_none", followedThreads{}},
		{"list_threads_past_the_end", followedThreads{followed: followed, offset: 8, end: 4}},
		{"list_threads_a_page_with_more", followedThreads{followed: followed, end: 3, shown: followed[:3], roots: []PostView{roots[0], roots[1], long}}},
		// The root of the fourth thread is no longer readable: it is left out of the page.
		{"list_threads_last_page_looked_at_only_the_most_recent", followedThreads{followed: followed, more: true, offset: 3, end: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor = readingCursor(t, "list_threads", listThreadsArgs{Limit: 3})
			res, err := listThreadsAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestFollowingAThreadSaysWhereItsRepliesShow(t *testing.T) {
	root := &model.Post{Id: "post1id00000000000000000000", ChannelId: "chan1id000000000000000000"}
	for follow, name := range map[bool]string{true: "follow_thread", false: "unfollow_thread"} {
		text, done := followedAnswer(root, follow)
		readingOwnView(t, name, text, done)
	}
}
