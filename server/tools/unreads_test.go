package tools

import (
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestListUnreadsWritesEachUnreadChannelWithItsCountsAndTheCallThatReadsIt(t *testing.T) {
	muted := readingChannel("chan2id000000000000000000", "ops", "Ops\u200b alerts", model.ChannelTypePrivate, 12, 4, 0, readingNow-3600_000)
	muted.member.NotifyProps["mark_unread"] = "mention"
	unread := []place{
		readingChannel("chan1id000000000000000000", "town-square", "Town Square", model.ChannelTypeOpen, 30, 27, 1, readingNow-60_000),
		muted,
		readingChannel("dm1id00000000000000000000", "bob__me", "", model.ChannelTypeDirect, 3, 1, 2, readingNow-7200_000),
	}
	never := readingChannel("chan3id000000000000000000", "design", "Design", model.ChannelTypeOpen, 2, 0, 0, readingNow-9000_000)
	never.member.LastViewedAt = 0
	cases := []struct {
		name          string
		unread        []place
		offset, limit int
	}{
		{"list_unreads_none", nil, 0, 50},
		{"list_unreads_all", append(unread, never), 0, 50},
		{"list_unreads_first_page_of_two", unread, 0, 2},
		{"list_unreads_past_the_end", unread, 5, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := listUnreadsAnswer(readingCursor(t, "list_unreads", listUnreadsArgs{Limit: tc.limit}), tc.unread, tc.offset, tc.limit)
			readingGolden(t, tc.name, res, err)
		})
	}
}

func TestReadUnreadWritesThePostsAfterTheReadPointAndSaysNothingWasMarkedRead(t *testing.T) {
	view := readingChannel("chan1id000000000000000000", "town-square", "Town Square", model.ChannelTypeOpen, 30, 27, 1, readingNow-60_000)
	neverRead := view
	member := *view.member
	member.LastViewedAt = 0
	neverRead.member = &member
	allRead := readingChannel("chan1id000000000000000000", "town-square", "Town Square", model.ChannelTypeOpen, 30, 30, 0, readingNow-60_000)
	args := readUnreadArgs{Channel: "town-square"}
	cases := []struct {
		name string
		f    unreadPage
	}{
		{"read_unread_nothing_after_the_read_point", unreadPage{view: allRead, page: PostPage{Posts: []PostView{}, Complete: true}, firstPage: true}},
		{"read_unread_never_read_collapsed", unreadPage{view: neverRead, page: PostPage{Posts: readingPosts(), Complete: true}, firstPage: true,
			collapsed: true, skippedReplies: 2}},
		{"read_unread_a_page_with_more", unreadPage{view: view, page: PostPage{Posts: readingPosts()[:2], NextCursor: "next"}, firstPage: true}},
		{"read_unread_no_more_after_a_page", unreadPage{view: view, page: PostPage{Posts: []PostView{}, Complete: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor = readingCursor(t, "read_unread", args)
			tc.f.counts = tc.f.view.info()
			tc.f.page.Channel = &tc.f.counts
			res, err := readUnreadAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}
