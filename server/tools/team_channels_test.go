package tools

import (
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestListTeamChannelsWritesPublicThenArchivedChannelsAndWhatIsHidden(t *testing.T) {
	joined := readingChannels()[0]
	joined.ch.Purpose = "Company-wide announcements"
	open := readingChannels()[4]
	open.ch.Purpose = "Anything at all\u202e, really"
	archived := place{ch: &model.Channel{Id: "chan5id000000000000000000", Name: "old-launch", DisplayName: "Old launch",
		Type: model.ChannelTypeOpen, TeamId: readingTeam.Id, DeleteAt: readingNow - 86_400_000, LastPostAt: readingNow - 90*86_400_000}, team: readingTeam}
	cases := []struct {
		name string
		f    teamChannels
	}{
		{"list_team_channels_nothing_past_the_previous_page", teamChannels{publicFrom: 100, archivedViewable: false}},
		{"list_team_channels_public_then_archived", teamChannels{public: []place{joined, open}, archived: []place{archived}, archivedViewable: true}},
		{"list_team_channels_a_full_page_of_public", teamChannels{publicFrom: 2, public: []place{joined, open}, next: "o2", archivedViewable: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.cursor, tc.f.team = readingCursor(t, "list_team_channels", listTeamChannelsArgs{Limit: 2}), readingTeam
			res, err := listTeamChannelsAnswer(tc.f)
			readingGolden(t, tc.name, res, err)
		})
	}
}
