package tools

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func otherDraftsCursor(t *testing.T) pageCursor {
	t.Helper()
	args := listDraftsArgs{Limit: 2}
	pc, _, err := openPageOffset("list_drafts", args)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestListDraftsShowsEachDraftWhereItWaitsAndWhatItHides(t *testing.T) {
	town := &model.Channel{Id: "ch-town-id", Name: "town-square", DisplayName: "Town Square", Type: model.ChannelTypeOpen, TeamId: "team-id"}
	dm := &model.Channel{Id: "ch-dm-id", Name: "u1__u2", Type: model.ChannelTypeDirect}
	file := &model.FileInfo{Id: "file-plan-id", Name: "plan.pdf", Extension: "pdf", MimeType: "application/pdf", Size: 20480}
	page := []placedDraft{
		{Draft: mattermost.Draft{Channel: town, Message: "Release notes:\n- faster search", Files: []*model.FileInfo{file}, UpdateAt: 1773480000000}, in: "Town Square, Town"},
		{Draft: mattermost.Draft{Channel: dm, RootID: "post-root-id", Message: "See you\u202e at 5\u200b", UpdateAt: 1773470000000}, in: "your direct message with @bob"},
	}
	long := []placedDraft{{Draft: mattermost.Draft{Channel: town, Message: strings.Repeat("a", maxMessageRunes+10), UpdateAt: 1773460000000}, in: "Town Square, Town"}}
	all := "in all your teams and direct and group messages"
	for _, tc := range []struct {
		name string
		f    draftsFetched
	}{
		{"not_synced", draftsFetched{}},
		{"none", draftsFetched{synced: true, where: "in team Town (town) and direct and group messages"}},
		{"a_page_and_more", draftsFetched{synced: true, where: all, total: 3, end: 2, page: page}},
		{"last_page_of_a_cut_list", draftsFetched{synced: true, where: all, total: 3, offset: 2, end: 3, page: long, cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.pc = otherDraftsCursor(t)
			res, err := draftsAnswer(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			otherGoldenAnswer(t, "list_drafts_"+tc.name, res.Text, res.Data)
		})
	}
}

func TestADraftAnswerNamesTheMessageBoxOfTheChannelOrThread(t *testing.T) {
	view := place{ch: &model.Channel{Id: "ch-dev-id", Name: "dev", DisplayName: "Dev", Type: model.ChannelTypeOpen, TeamId: "team-id"},
		team: &model.Team{Id: "team-id", Name: "town", DisplayName: "Town"}}
	for _, tc := range []struct {
		name string
		root string
	}{{"channel", ""}, {"thread", "post-root-id"}} {
		t.Run(tc.name, func(t *testing.T) {
			text, result := draftSavedAnswer(view, &model.Draft{ChannelId: view.ch.Id, RootId: tc.root, Message: "hi"})
			otherGoldenAnswer(t, "save_draft_"+tc.name, text, result)
			text, result = draftDeletedAnswer(view, tc.root)
			otherGoldenAnswer(t, "delete_draft_"+tc.name, text, result)
		})
	}
}

func TestADraftsCursorHandedOutBeforeTheEmbeddedCursorStillContinuesItsListing(t *testing.T) {
	// Made by list_drafts(team="acme", limit=5) for position 20 when its
	// arguments still held their own cursor field.
	const handedOut = "eyJ0IjoibGlzdF9kcmFmdHMiLCJhIjoiOGE0NzQ4ZGUyZDUwYzM2MSIsInAiOiIyMCJ9"
	pc, offset, err := openPageOffset("list_drafts", listDraftsArgs{Team: "acme", Limit: 5, paged: paged{Cursor: handedOut}})
	if err != nil || offset != 20 {
		t.Fatalf("offset %d, %v; want 20", offset, err)
	}
	if got, want := pc.nextCall("c"), `list_drafts {"cursor":"c","limit":5,"team":"acme"}`; got != want {
		t.Errorf("next call %s, want %s", got, want)
	}
	if _, _, err := openPageOffset("list_drafts", listDraftsArgs{Team: "other", Limit: 5, paged: paged{Cursor: handedOut}}); err == nil || !strings.Contains(err.Error(), "without cursor") {
		t.Errorf("with another team: %v; want a refusal naming the call that starts over", err)
	}
}
