package tools

import (
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// readingRichPosts are a reply with an attachment, reactions and an edit,
// a pinned root post, and a post whose message was cut.
func readingRichPosts() []PostView {
	reply := readingPost("post5id00000000000000000000", "~town-square", "@bob", "Logs attached.", 2)
	reply.RootID = "post1id00000000000000000000"
	reply.Attachments = []present.FileRef{{ID: "file1id00000000000000000000", Name: "deploy.log", Type: "text/plain", Size: 2048}}
	reply.EditedAt = rfc3339(readingNow - 60_000)
	reply.Reactions = []ReactionView{{Emoji: "white_check_mark", Count: 3, Users: []string{"@carol (Carol Chen)", "@dana"}, Others: 1}}
	root := readingPost("post1id00000000000000000000", "~town-square", "@alice", "Starting the deploy now.", 45)
	root.ReplyCount, root.Pinned, root.LastReplyAt = 4, true, rfc3339(readingNow-2*60_000)
	long := readingPost("post6id00000000000000000000", "~town-square", "@carol", repeatRunes('y', maxMessageRunes+10), 60)
	return []PostView{reply, root, long}
}

func TestReadChannelWritesThePageWithTheRangeAndTheCallThatGoesOn(t *testing.T) {
	view := readingChannels()[0]
	day := readingNow - 86_400_000
	cases := []struct {
		name string
		f    channelPosts
	}{
		{"read_channel_empty", channelPosts{page: PostPage{Posts: []PostView{}, Complete: true}, firstPage: true}},
		{"read_channel_none_in_range_after_a_page", channelPosts{page: PostPage{Posts: []PostView{}, Complete: true}, since: day, before: readingNow}},
		{"read_channel_typical_with_more", channelPosts{page: PostPage{Posts: readingPosts(), NextCursor: "next"}, firstPage: true}},
		{"read_channel_rich_posts_in_a_range", channelPosts{page: PostPage{Posts: readingRichPosts(), Complete: true}, firstPage: true, since: day}},
		{"read_channel_collapsed_as_asked", channelPosts{page: PostPage{Posts: readingPosts()[:1], Complete: true}, firstPage: true,
			collapsed: true, chosen: true, skippedReplies: 1}},
		{"read_channel_walked_back_without_finding_one", channelPosts{page: PostPage{Posts: []PostView{}, NextCursor: "next"}, firstPage: true,
			before: day, scannedOut: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor, tc.f.view = readingCursor(t, "read_channel", readChannelArgs{Channel: "town-square"}), view
			ci := view.info()
			tc.f.page.Channel = &ci
			res, err := readChannelAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestReadThreadWritesTheRootAndRepliesOldestFirstWithTheCallForMoreReplies(t *testing.T) {
	posts := readingPosts()
	oldestFirst := []PostView{posts[2], posts[1], posts[0]}
	cases := []struct {
		name string
		f    threadPosts
	}{
		{"read_thread_whole", threadPosts{total: 3, page: PostPage{Posts: oldestFirst, Complete: true}, end: 3}},
		{"read_thread_first_page_of_two", threadPosts{total: 5, page: PostPage{Posts: oldestFirst[:2], NextCursor: "next"}, end: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor, tc.f.rootID = readingCursor(t, "read_thread", readThreadArgs{Post: posts[2].ID, Limit: 2}), posts[2].ID
			res, err := readThreadAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestSearchPostsWritesTheHitsOrWhatToTryInstead(t *testing.T) {
	cases := []struct {
		name string
		f    foundPosts
	}{
		{"search_posts_none", foundPosts{terms: "deploy from:bob", page: PostPage{Posts: []PostView{}, Complete: true}}},
		{"search_posts_none_beyond_the_previous_page", foundPosts{terms: "deploy", team: readingTeam, page: PostPage{Posts: []PostView{}, Complete: true}, offset: 20, end: 20}},
		{"search_posts_a_page_with_more", foundPosts{terms: "\"the deploy\" in:town-square", team: readingTeam,
			page: PostPage{Posts: readingPosts()[:2], NextCursor: "next"}, end: 2}},
		{"search_posts_last_page", foundPosts{terms: "deploy", page: PostPage{Posts: readingRichPosts(), Complete: true}, offset: 2, end: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor = readingCursor(t, "search_posts", searchPostsArgs{Terms: tc.f.terms, Limit: 2})
			res, err := searchPostsAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestListPinnedPostsWritesTheChannelsPinnedPostsNewestFirst(t *testing.T) {
	dm := readingChannels()[2]
	cases := []struct {
		name string
		f    pinnedPosts
	}{
		{"list_pinned_posts_none", pinnedPosts{view: readingChannels()[0], page: PostPage{Posts: []PostView{}, Complete: true}, firstPage: true}},
		{"list_pinned_posts_none_older", pinnedPosts{view: readingChannels()[0], page: PostPage{Posts: []PostView{}, Complete: true}}},
		{"list_pinned_posts_in_a_direct_message_with_more", pinnedPosts{view: dm, page: PostPage{Posts: readingRichPosts()[1:2], NextCursor: "next"}, firstPage: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor = readingCursor(t, "list_pinned_posts", listPinnedArgs{Channel: tc.f.view.ch.Id, Limit: 1})
			res, err := listPinnedAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestListSavedWritesTheSavedPostsTheCallerCanStillRead(t *testing.T) {
	pc := readingCursor(t, "list_saved", listSavedArgs{Limit: 3})
	cases := []struct {
		name      string
		page      PostPage
		firstPage bool
	}{
		{"list_saved_none", PostPage{Posts: []PostView{}, Complete: true}, true},
		{"list_saved_none_older", PostPage{Posts: []PostView{}, Complete: true}, false},
		{"list_saved_a_page_with_more", PostPage{Posts: readingPosts(), NextCursor: "next"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := listSavedAnswer(pc, tc.page, tc.firstPage)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestSavingAndRemindingSayWhatChangedInThePersonsOwnView(t *testing.T) {
	p := &model.Post{Id: "post1id00000000000000000000", ChannelId: "chan1id000000000000000000"}
	text, done := savedAnswer(p, true)
	readingOwnView(t, "save_post", text, done)
	text, done = savedAnswer(p, false)
	readingOwnView(t, "unsave_post", text, done)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	text, done = reminderAnswer(p, time.UnixMilli(readingNow).Add(90*time.Minute), berlin)
	readingOwnView(t, "set_post_reminder", text, done)
}
