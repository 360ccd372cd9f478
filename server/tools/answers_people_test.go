package tools

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// otherGoldenAnswer compares a pure answer (its text, then a line
// "--- structured", then its structured result as indented JSON) with
// testdata/golden/<name>.golden.
func otherGoldenAnswer(t *testing.T, name, text string, result any) {
	t.Helper()
	data, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name, []byte(text+"\n--- structured\n"+string(data)+"\n"))
}

func otherPerson(id, username, first, last string) *model.User {
	return &model.User{Id: id, Username: username, FirstName: first, LastName: last, Email: username + "@example.com", Roles: "system_user"}
}

func TestGetMeSaysWhoTheCallerIsTheirTeamsAndWhoConfirmsWrites(t *testing.T) {
	town := &model.Team{Id: "team-town-id", Name: "town", DisplayName: "Town Square Co"}
	lab := &model.Team{Id: "team-lab-id", Name: "lab", DisplayName: "Lab\u202e evil"}
	for _, tc := range []struct {
		name string
		f    meFetched
	}{
		{"no_team_writes_off", meFetched{user: otherPerson("u-alice", "alice", "", ""), siteURL: "https://chat.example.com",
			config: config.Configuration{MaxFileSizeMiB: 50, Toolsets: config.AllToolsets}}},
		{"two_teams_confirm_in_mattermost", meFetched{user: otherPerson("u-alice", "alice", "Alice", "Liddell"), siteURL: "https://chat.example.com",
			memberships: []mattermost.Membership{{Team: town, Roles: "team_user team_admin"}, {Team: lab, Roles: "team_user"}},
			config:      config.Configuration{AllowWrites: true, WriteConfirmation: config.ConfirmMattermost, MaxFileSizeMiB: 50, Toolsets: config.AllToolsets}}},
		{"client_approval", meFetched{user: otherPerson("u-alice", "alice", "Alice", ""), siteURL: "https://chat.example.com",
			memberships: []mattermost.Membership{{Team: town, Roles: "team_user"}},
			config:      config.Configuration{AllowWrites: true, WriteConfirmation: config.ConfirmClientApproval, MaxFileSizeMiB: 10, Toolsets: config.AllToolsets}}},
		{"toolsets_off_and_tools_left_out", meFetched{user: otherPerson("u-alice", "alice", "Alice", ""), siteURL: "https://chat.example.com",
			memberships: []mattermost.Membership{{Team: town, Roles: "team_user"}},
			config: config.Configuration{AllowWrites: true, WriteConfirmation: config.ConfirmMattermost, MaxFileSizeMiB: 50,
				Toolsets: config.AllToolsets &^ (config.ToolsetPosting | config.ToolsetStatus), ExcludedTools: "delete_post read_file"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, me := meAnswer(tc.f)
			otherGoldenAnswer(t, "get_me_"+tc.name, text, me)
		})
	}
}

func TestListEmojiNamesEachEmojiAndTheCallForTheNextPage(t *testing.T) {
	created := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	page := []mattermost.Emoji{{ID: "emo-party", Name: "party-parrot", Created: created}, {ID: "emo-ship", Name: "shipit", Created: created.Add(time.Hour)}}
	for _, tc := range []struct {
		name string
		f    emojiFetched
	}{
		{"turned_off", emojiFetched{}},
		{"none", emojiFetched{enabled: true, firstPage: true}},
		{"none_past_previous_page", emojiFetched{enabled: true, prefix: "sh"}},
		{"all_of_them", emojiFetched{enabled: true, firstPage: true, emoji: page}},
		{"more_with_prefix", emojiFetched{enabled: true, prefix: "p", firstPage: true, emoji: page[:1],
			nextCursor: "c1.next", nextCall: `list_emoji {"cursor":"c1.next","limit":1,"prefix":"p"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, list := emojiAnswer(tc.f)
			otherGoldenAnswer(t, "list_emoji_"+tc.name, text, list)
		})
	}
}

func TestGetUserIsOneLineWithTheNamesTheServerShows(t *testing.T) {
	bot := otherPerson("u-bot", "helper-bot", "", "")
	bot.IsBot = true
	gone := otherPerson("u-gone", "gone", "Gone", "Away")
	gone.Nickname, gone.Position, gone.DeleteAt = "G\u200b", "Ex-\u202eCTO", 1700000000000
	for _, tc := range []struct {
		name string
		u    *model.User
	}{
		{"plain", otherPerson("u-bob", "bob", "", "")},
		{"bot", bot},
		{"deactivated_with_hidden_characters", gone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, info := userAnswer(tc.u)
			otherGoldenAnswer(t, "get_user_"+tc.name, text, info)
		})
	}
}

func TestSearchUsersListsThePeopleFoundAndSaysWhenTheListStops(t *testing.T) {
	people := []*model.User{otherPerson("u-ann", "ann", "Ann", "Lee"), otherPerson("u-andy", "andy", "Andy", "\u202eReversed")}
	for _, tc := range []struct {
		name  string
		term  string
		limit int
		users []*model.User
	}{
		{"nobody", "zed\u200b", 20, nil},
		{"typical", "an", 20, people},
		{"stops_at_limit", "an", 2, people},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, list := searchUsersAnswer(tc.term, tc.limit, tc.users)
			otherGoldenAnswer(t, "search_users_"+tc.name, text, list)
		})
	}
}

func TestGetChannelMembersListsAPageWithRolesAndTheCallForTheNext(t *testing.T) {
	town := &model.Team{Id: "team-town-id", Name: "town", DisplayName: "Town"}
	ch := &model.Channel{Id: "ch-dev-id", Name: "dev", DisplayName: "Dev\u202e talk", Type: model.ChannelTypeOpen, TeamId: town.Id}
	view := place{ch: ch, team: town}
	guest := otherPerson("u-gus", "gus", "Gus", "")
	page := []mattermost.ChannelMember{{User: otherPerson("u-ann", "ann", "Ann", "Lee"), Admin: true}, {User: guest, Guest: true}}
	args := getChannelMembersArgs{Channel: "ch-dev-id", Limit: 3}
	pc, _, err := openPageOffset("get_channel_members", args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    membersFetched
	}{
		{"past_the_last_page", membersFetched{pc: pc, channel: view, total: 2, offset: 3, limit: 3}},
		{"all_of_them", membersFetched{pc: pc, channel: view, total: 2, members: page, limit: 3}},
		{"a_page_with_hidden_and_more", membersFetched{pc: pc, channel: view, total: 7, members: page, hidden: 1, limit: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := membersAnswer(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			otherGoldenAnswer(t, "get_channel_members_"+tc.name, res.Text, res.Data)
		})
	}
}

func TestGetStatusSaysEachPresenceAndWhoWasNotFound(t *testing.T) {
	seen := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	found := []mattermost.Presence{
		{User: otherPerson("u-ann", "ann", "Ann", ""), Status: model.StatusOnline, LastActivity: seen},
		{User: otherPerson("u-bob", "bob", "", ""), Status: model.StatusDnd, Manual: true, DNDEnd: seen.Add(2 * time.Hour),
			Custom: &model.CustomStatus{Emoji: "palm_tree", Text: "On \u202eholiday", ExpiresAt: seen.Add(48 * time.Hour)}},
		{User: otherPerson("u-cy", "cy", "", ""), Status: model.StatusOffline},
	}
	for _, tc := range []struct {
		name    string
		found   []mattermost.Presence
		missing []string
	}{
		{"one_online", found[:1], nil},
		{"dnd_custom_and_missing", found, []string{"@nobody", "ghost\u200b@example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, list := statusAnswer(tc.found, tc.missing)
			otherGoldenAnswer(t, "get_status_"+tc.name, text, list)
		})
	}
}
