package mattermost

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"
)

// These are the permission decisions of access.go on the plugin API's test
// double; the end-to-end suite makes the same decisions on a real server.

var (
	aliceID   = model.NewId()
	teamID    = model.NewId()
	privateID = model.NewId()
	publicID  = model.NewId()
)

func notFoundErr() *model.AppError {
	return model.NewAppError("test", "not_found", nil, "", http.StatusNotFound)
}

// accessAPI is a server where alice is a member of privateID only, and
// publicID is a public channel of her team.
func accessAPI(t *testing.T) *plugintest.API {
	t.Helper()
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("HasPermissionToChannel", aliceID, privateID, model.PermissionReadChannelContent).Return(true).Maybe()
	api.On("HasPermissionToChannel", aliceID, mock.Anything, model.PermissionReadChannelContent).Return(false).Maybe()
	api.On("HasPermissionToTeam", aliceID, teamID, model.PermissionReadPublicChannel).Return(true).Maybe()
	api.On("GetChannel", privateID).Return(&model.Channel{Id: privateID, TeamId: teamID, Type: model.ChannelTypePrivate}, nil).Maybe()
	api.On("GetChannel", publicID).Return(&model.Channel{Id: publicID, TeamId: teamID, Type: model.ChannelTypeOpen}, nil).Maybe()
	api.On("GetChannel", mock.Anything).Return(nil, notFoundErr()).Maybe()
	return api
}

func aliceOn(api *plugintest.API) *Caller { return NewGateway(api, nil).As(aliceID) }

func TestAChannelIsReadableByItsMembersAndAPublicOneByItsTeam(t *testing.T) {
	others := model.NewId()
	api := accessAPI(t)
	api.On("GetChannel", others).Return(&model.Channel{Id: others, TeamId: teamID, Type: model.ChannelTypePrivate}, nil)
	c := aliceOn(api)
	for id, readable := range map[string]bool{privateID: true, publicID: true, others: false, model.NewId(): false, "not-an-id": false} {
		_, err := c.Channel(id)
		if readable && err != nil {
			t.Errorf("channel %s should be readable: %v", id, err)
		}
		if !readable && !errors.Is(err, ErrNotFound) {
			t.Errorf("channel %s should be not found, got %v", id, err)
		}
	}
}

func TestADeletedPostOrOneInAnUnreadableChannelIsNotFound(t *testing.T) {
	secret := model.NewId()
	live, deleted, hidden := model.NewId(), model.NewId(), model.NewId()
	api := accessAPI(t)
	api.On("GetChannel", secret).Return(&model.Channel{Id: secret, TeamId: teamID, Type: model.ChannelTypePrivate}, nil)
	api.On("GetPost", live).Return(&model.Post{Id: live, ChannelId: privateID}, nil)
	api.On("GetPost", deleted).Return(&model.Post{Id: deleted, ChannelId: privateID, DeleteAt: 1}, nil)
	api.On("GetPost", hidden).Return(&model.Post{Id: hidden, ChannelId: secret}, nil)
	c := aliceOn(api)
	if _, err := c.Post(live); err != nil {
		t.Fatalf("a post of her channel: %v", err)
	}
	for _, id := range []string{deleted, hidden} {
		if _, err := c.Post(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("post %s: want not found, got %v", id, err)
		}
	}
}

func TestAnAttachmentIsReadableOnlyWhereItsChannelIsOrByItsUploaderBeforeItIsPosted(t *testing.T) {
	secret := model.NewId()
	posted, elsewhere, mineUnposted, theirsUnposted, gone := model.NewId(), model.NewId(), model.NewId(), model.NewId(), model.NewId()
	api := accessAPI(t)
	api.On("GetChannel", secret).Return(&model.Channel{Id: secret, TeamId: teamID, Type: model.ChannelTypePrivate}, nil)
	api.On("GetFileInfo", posted).Return(&model.FileInfo{Id: posted, PostId: model.NewId(), ChannelId: privateID}, nil)
	api.On("GetFileInfo", elsewhere).Return(&model.FileInfo{Id: elsewhere, PostId: model.NewId(), ChannelId: secret}, nil)
	api.On("GetFileInfo", mineUnposted).Return(&model.FileInfo{Id: mineUnposted, CreatorId: aliceID}, nil)
	api.On("GetFileInfo", theirsUnposted).Return(&model.FileInfo{Id: theirsUnposted, CreatorId: model.NewId()}, nil)
	api.On("GetFileInfo", gone).Return(&model.FileInfo{Id: gone, PostId: model.NewId(), ChannelId: privateID, DeleteAt: 1}, nil)
	c := aliceOn(api)
	for id, readable := range map[string]bool{posted: true, mineUnposted: true, elsewhere: false, theirsUnposted: false, gone: false} {
		f, err := c.File(id)
		if readable && (err != nil || f.Info().Id != id) {
			t.Errorf("file %s should be readable: %v", id, err)
		}
		if !readable && !errors.Is(err, ErrNotFound) {
			t.Errorf("file %s should be not found, got %v", id, err)
		}
	}
	if _, err := c.FileBytes(Readable{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the zero Readable cleared nothing but read bytes: %v", err)
	}
}
