package mattermost

import (
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
)

func TestOneCallAsksMattermostOnceForAFilesChannelTeamAndPermission(t *testing.T) {
	api := accessAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID}, nil)
	livePost(api, postID, fileID)
	api.On("GetTeam", teamID).Return(&model.Team{Id: teamID, Name: "staff"}, nil)
	c := aliceOn(api)
	f, err := c.File(fileID)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		place, err := c.PlaceOf(f)
		if err != nil || place.TeamName != "staff" || place.Channel.Id != privateID {
			t.Fatalf("place %+v, %v", place, err)
		}
		place.Channel.DisplayName = "changed by one reader" // every reader gets its own copy
		if _, err := c.Channel(privateID); err != nil {
			t.Fatal(err)
		}
	}
	api.AssertNumberOfCalls(t, "GetChannel", 1)
	api.AssertNumberOfCalls(t, "GetTeam", 1)
	api.AssertNumberOfCalls(t, "HasPermissionToChannel", 1)
	if ch, _ := c.Channel(privateID); ch.DisplayName != "" {
		t.Fatalf("a reader's change reached the next reader: %q", ch.DisplayName)
	}
	// The next call starts afresh.
	if _, err := aliceOn(api).Channel(privateID); err != nil {
		t.Fatal(err)
	}
	api.AssertNumberOfCalls(t, "GetChannel", 2)
}

func TestJoiningAChannelForgetsWhatTheCallKnewOfMemberships(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("GetChannel", publicID).Return(&model.Channel{Id: publicID, TeamId: teamID, Type: model.ChannelTypeOpen}, nil)
	api.On("HasPermissionToChannel", aliceID, publicID, model.PermissionReadChannelContent).Return(false).Once()
	api.On("HasPermissionToChannel", aliceID, publicID, model.PermissionReadChannelContent).Return(true)
	api.On("HasPermissionToTeam", aliceID, teamID, model.PermissionReadPublicChannel).Return(true)
	api.On("HasPermissionToTeam", aliceID, teamID, model.PermissionJoinPublicChannels).Return(true)
	api.On("GetTeamMember", teamID, aliceID).Return(&model.TeamMember{TeamId: teamID, UserId: aliceID}, nil)
	api.On("GetTeam", teamID).Return(&model.Team{Id: teamID}, nil)
	api.On("AddChannelMember", publicID, aliceID).Return(&model.ChannelMember{}, nil)
	c := aliceOn(api)
	if _, err := c.Channel(publicID); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinChannel(publicID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Channel(publicID); err != nil {
		t.Fatal(err)
	}
	// Asked before the join, and again after it.
	api.AssertNumberOfCalls(t, "HasPermissionToChannel", 2)
}

func TestTheGatewayReadsMattermostsConfigurationOncePerChange(t *testing.T) {
	api := &plugintest.API{}
	site := "https://chat.example.com"
	api.On("GetConfig").Return(&model.Config{ServiceSettings: model.ServiceSettings{SiteURL: &site}}).Once()
	g := NewGateway(api, nil)
	for range 5 {
		if got := g.SiteURL(); got != site {
			t.Fatalf("site URL %q", got)
		}
	}
	api.AssertNumberOfCalls(t, "GetConfig", 1)
	moved := "https://mm.example.org/"
	g.Reconfigured(&model.Config{ServiceSettings: model.ServiceSettings{SiteURL: &moved}})
	if got := g.SiteURL(); got != "https://mm.example.org" {
		t.Fatalf("after a change the site URL is %q", got)
	}
	api.AssertNumberOfCalls(t, "GetConfig", 1)
}
