package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// allTeamChannels pages list_team_channels to the end.
func allTeamChannels(t *testing.T, token string) (public, archived map[string]bool, last tools.TeamChannelList) {
	t.Helper()
	c := connect(t, mm.URL, token)
	public, archived = map[string]bool{}, map[string]bool{}
	args := map[string]any{"team": mm.Team.Name, "limit": 200}
	for range 20 {
		res := call(t, c, "list_team_channels", args)
		if res.IsError {
			t.Fatalf("list_team_channels: %s", text(res))
		}
		structuredAs(t, res, &last)
		for _, ci := range last.Channels {
			public[ci.ID] = true
		}
		for _, ci := range last.Archived {
			archived[ci.ID] = true
		}
		if last.Complete {
			return public, archived, last
		}
		args["cursor"] = last.NextCursor
	}
	t.Fatal("list_team_channels did not end")
	return nil, nil, last
}

func TestListTeamChannelsShowsThePublicChannelsToJoinButNotOthersPrivateOnes(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	pub := createChannel(t, alice, uniq(t, "browse-"), "Browse", model.ChannelTypeOpen)
	priv := createChannel(t, alice, uniq(t, "hidden-"), "Hidden", model.ChannelTypePrivate)
	public, archived, _ := allTeamChannels(t, bob.Token)
	if !public[pub.Id] || public[priv.Id] || archived[priv.Id] {
		t.Fatalf("bob should see %s to join and not alice's private %s", pub.Name, priv.Name)
	}
	listed, _, err := mm.Client(bob).GetPublicChannelsForTeam(context.Background(), mm.Team.Id, 0, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(public) {
		t.Errorf("Mattermost lists %d public channels to bob, the tool %d", len(listed), len(public))
	}
	for _, ch := range listed {
		if !public[ch.Id] {
			t.Errorf("%s is missing", ch.Name)
		}
	}
}

func TestArchivedChannelsAreListedToThoseWhoCanReadThem(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ctx := context.Background()
	gone := createChannel(t, alice, uniq(t, "archived-"), "Archived", model.ChannelTypePrivate)
	if _, err := mm.Client(alice).DeleteChannel(ctx, gone.Id); err != nil {
		t.Fatal(err)
	}
	_, archived, last := allTeamChannels(t, alice.Token)
	if !archived[gone.Id] || !last.ArchivedViewable {
		t.Fatalf("alice's archived channel %s should be listed (Mattermost 11 always lets people view archived channels)", gone.Name)
	}
	deleted, _, err := mm.Client(alice).GetDeletedChannelsForTeam(ctx, mm.Team.Id, 0, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	inMM := false
	for _, ch := range deleted {
		inMM = inMM || ch.Id == gone.Id
	}
	if !inMM {
		t.Fatalf("Mattermost does not list %s as archived to alice", gone.Name)
	}
	if _, archived, _ := allTeamChannels(t, bob.Token); archived[gone.Id] {
		t.Fatalf("bob was never in alice's private channel %s and must not see it archived", gone.Name)
	}
}

func TestListTeamChannelsOfATeamTheCallerIsNotInIsRefused(t *testing.T) {
	other, _, err := mm.Client(mm.Admin).CreateTeam(context.Background(), &model.Team{Name: uniq(t, "elsewhere"), DisplayName: "Elsewhere", Type: model.TeamInvite})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, connect(t, mm.URL, mm.Users[1].Token), "list_team_channels", map[string]any{"team": other.Name})
	if !res.IsError || !strings.Contains(text(res), "No team matches") || !strings.Contains(text(res), mm.Team.Name) {
		t.Fatalf("a team bob is not in should be refused with his teams: %s", text(res))
	}
}
