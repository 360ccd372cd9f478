package tools

import "testing"

func TestListMentionsWritesThePostsThatMentionTheCallerWithTheKeysEachMatched(t *testing.T) {
	keys := []string{"@dana", "Dana", "deploy\u200bbot", "@channel", "@all", "@here"}
	posts := readingPosts()
	cases := []struct {
		name        string
		posts       []PostView
		next        string
		offset, end int
	}{
		{"list_mentions_none", []PostView{}, "", 0, 0},
		{"list_mentions_none_beyond_the_previous_page", []PostView{}, "", 20, 20},
		{"list_mentions_a_page_with_more", posts[:2], "next", 0, 2},
		{"list_mentions_last_page", posts[2:], "", 2, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			matched := map[string][]string{posts[0].ID: {"@dana"}, posts[1].ID: {"@channel"}, posts[2].ID: {"Dana", "@here"}}
			f := mentionsFound{cursor: readingCursor(t, "list_mentions", listMentionsArgs{Limit: 2}), keys: keys, matched: matched,
				page: PostPage{Posts: tc.posts, NextCursor: tc.next, Complete: tc.next == ""}, offset: tc.offset, end: tc.end}
			res, err := listMentionsAnswer(f)
			readingGolden(t, tc.name, res, err)
		})
	}
}
