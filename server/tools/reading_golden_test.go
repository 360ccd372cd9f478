package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// readingGolden compares a read tool's answer, its text then its structured
// result as indented JSON, with its golden file.
func readingGolden[T any](t *testing.T, name string, res catalogue.Result[T], err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.MarshalIndent(res.Data, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := res.Text + "\n--- structured\n" + string(raw) + "\n"
	if len(res.More) > 0 {
		// The resource links (and other content) beside the text.
		more, err := json.MarshalIndent(res.More, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got += "--- more\n" + string(more) + "\n"
	}
	golden(t, name, []byte(got))
}

// Fixture values of the read tools' golden tests: a team, its channels, a
// direct message, in the shape Mattermost hands them over.
var (
	// readingNow is 2026-03-02T09:30:00Z, the fixtures' present.
	readingNow  int64 = 1772443800000
	readingTeam       = &model.Team{Id: "team1id0000000000000000000", Name: "engineering", DisplayName: "Engineering"}
	readingBob        = &model.User{Id: "bob0id00000000000000000000", Username: "bob", FirstName: "Bob", LastName: "Baker"}
)

// readingChannel is a channel of readingTeam the caller is a member of,
// with unread posts when total exceeds read.
func readingChannel(id, name, display string, typ model.ChannelType, total, read, mentions int64, lastPost int64) place {
	ch := &model.Channel{Id: id, Name: name, DisplayName: display, Type: typ, TeamId: readingTeam.Id,
		TotalMsgCount: total, TotalMsgCountRoot: total, LastPostAt: lastPost}
	v := place{ch: ch, team: readingTeam,
		member: &model.ChannelMember{ChannelId: id, MsgCount: read, MsgCountRoot: read, MentionCount: mentions,
			LastViewedAt: lastPost - 3600_000, NotifyProps: model.StringMap{}}}
	if typ == model.ChannelTypeDirect || typ == model.ChannelTypeGroup {
		ch.TeamId, v.team = "", nil
	}
	if typ == model.ChannelTypeDirect {
		v.other = readingBob
	}
	return v
}

// readingPost is a post as the post writer hands it to an answer: at is
// minutes before readingNow.
func readingPost(id, channel, author, message string, minutesAgo int64) PostView {
	v := PostView{ID: id, ChannelID: "chan1id000000000000000000", ChannelName: channel, Author: author,
		AuthorID: strings.TrimPrefix(author, "@") + "id0000000000000000000", Time: rfc3339(readingNow - minutesAgo*60_000), Attachments: []present.FileRef{},
		Permalink: "https://chat.example.com/engineering/pl/" + id}
	v.Message, v.MessageCut, v.Hidden = messageOf(message)
	return v
}

// readingPosts is a page of three posts, newest first; the second hides a
// zero-width space and a right-to-left override, as another person can.
func readingPosts() []PostView {
	return []PostView{
		readingPost("post3id00000000000000000000", "~town-square", "@bob", "Deploy is done.\nThe dashboards are green.", 5),
		readingPost("post2id00000000000000000000", "~town-square", "@carol", "Run th\u200be migr\u202eation first", 20),
		readingPost("post1id00000000000000000000", "~town-square", "@alice", "Starting the deploy now.", 45),
	}
}

// readingCursor is the pageCursor of a call to tool with args.
func readingCursor(t *testing.T, tool string, args any) pageCursor {
	t.Helper()
	pc, _, err := openCursor(tool, args, args, "")
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// readingOwnView is readingGolden for the answer of a change to the
// person's own view.
func readingOwnView(t *testing.T, name, text string, done OwnViewResult) {
	t.Helper()
	readingGolden(t, name, catalogue.Result[OwnViewResult]{Text: text, Data: done}, nil)
}
