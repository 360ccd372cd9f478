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
	postedIn, elsewhereIn := model.NewId(), model.NewId()
	api.On("GetFileInfo", posted).Return(&model.FileInfo{Id: posted, PostId: postedIn, ChannelId: privateID}, nil)
	api.On("GetPost", postedIn).Return(&model.Post{Id: postedIn, ChannelId: privateID, FileIds: []string{posted}}, nil)
	api.On("GetFileInfo", elsewhere).Return(&model.FileInfo{Id: elsewhere, PostId: elsewhereIn, ChannelId: secret}, nil)
	api.On("GetPost", elsewhereIn).Return(&model.Post{Id: elsewhereIn, ChannelId: secret, FileIds: []string{elsewhere}}, nil)
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

func TestAPostedFileIsFoundOnlyWhileItsPostIsLiveListsItAndIsInItsChannel(t *testing.T) {
	for _, c := range []struct {
		name     string
		post     func(p *model.Post)
		err      *model.AppError
		readable bool
	}{
		{"its post live and listing it", func(*model.Post) {}, nil, true},
		{"its post gone", nil, notFoundErr(), false},
		{"its post deleted with the file's record left as it was", func(p *model.Post) { p.DeleteAt = 1 }, nil, false},
		{"the file taken off its post", func(p *model.Post) { p.FileIds = []string{model.NewId()} }, nil, false},
		{"its post moved to another channel", func(p *model.Post) { p.ChannelId = publicID }, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := accessAPI(t)
			fileID, postID := model.NewId(), model.NewId()
			api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID, Name: "a.txt"}, nil)
			if c.post != nil {
				p := &model.Post{Id: postID, ChannelId: privateID, FileIds: []string{model.NewId(), fileID}}
				c.post(p)
				api.On("GetPost", postID).Return(p, nil)
			} else {
				api.On("GetPost", postID).Return(nil, c.err)
			}
			g := NewGateway(api, nil)
			// Asked twice: the second read is of the record the first kept,
			// if it kept one.
			for read := range 2 {
				f, err := g.As(aliceID).File(fileID)
				if c.readable && (err != nil || f.PostID() != postID || f.ChannelID() != privateID) {
					t.Fatalf("read %d: %+v, %v; want the file of its post", read+1, f, err)
				}
				if !c.readable && !errors.Is(err, ErrNotFound) {
					t.Fatalf("read %d: %v, want not found", read+1, err)
				}
			}
			if _, kept := g.keptFile(fileID); kept != c.readable {
				t.Errorf("the record is kept: %v, want %v", kept, c.readable)
			}
		})
	}
}

func TestAnOldFileWithoutAChannelIsFoundOnlyWhereItsPostListsIt(t *testing.T) {
	api := accessAPI(t)
	listed, dropped, postID := model.NewId(), model.NewId(), model.NewId()
	// Attached before Mattermost kept the channel on the file.
	api.On("GetFileInfo", listed).Return(&model.FileInfo{Id: listed, PostId: postID}, nil)
	api.On("GetFileInfo", dropped).Return(&model.FileInfo{Id: dropped, PostId: postID}, nil)
	api.On("GetPost", postID).Return(&model.Post{Id: postID, ChannelId: privateID, FileIds: []string{listed}}, nil)
	c := aliceOn(api)
	if f, err := c.File(listed); err != nil || f.ChannelID() != privateID {
		t.Fatalf("the file its post lists: %+v, %v", f, err)
	}
	if _, err := c.File(dropped); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a file its post no longer lists: %v, want not found", err)
	}
}

func TestAFailureToReadAPostedFilesPostIsAFailureNotAnAbsence(t *testing.T) {
	api := accessAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID}, nil)
	api.On("GetPost", postID).Return(nil, model.NewAppError("GetPost", "app.post.get.app_error", nil, "", http.StatusInternalServerError))
	_, err := aliceOn(api).File(fileID)
	if err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("a post that could not be read: %v, want the failure", err)
	}
}
