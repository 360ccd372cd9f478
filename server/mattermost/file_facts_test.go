package mattermost

import (
	"errors"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/stretchr/testify/mock"
)

func TestAPostedFilesRecordIsReadOnceAndItsPostAskedOnEveryRead(t *testing.T) {
	api := accessAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	text := strings.Repeat("a line\n", 1000)
	api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID, Name: "a.txt", Extension: "txt",
		Size: int64(len(text)), Content: text}, nil).Once()
	api.On("GetPost", postID).Return(&model.Post{Id: postID, ChannelId: privateID, FileIds: []string{fileID}}, nil)
	g := NewGateway(api, nil)
	first, err := g.As(aliceID).File(fileID)
	if err != nil || first.Info().Content != text {
		t.Fatalf("first read: %v (content kept: %v)", err, first.Info() != nil && first.Info().Content == text)
	}
	for range 3 {
		f, err := g.As(aliceID).File(fileID)
		if err != nil || f.Info().Name != "a.txt" || f.ChannelID() != privateID || f.PostID() != postID {
			t.Fatalf("a later read: %+v, %v", f, err)
		}
		if f.Info().Content != "" {
			t.Fatal("the kept record carries the extracted text")
		}
	}
	api.AssertNumberOfCalls(t, "GetFileInfo", 1)
	api.AssertNumberOfCalls(t, "GetPost", 4)
	// Bob, who cannot read the channel, gets not found from the kept record too.
	api.On("HasPermissionToChannel", "bob", privateID, model.PermissionReadChannelContent).Return(false)
	if _, err := g.As("bob").File(fileID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bob's read of a kept record: %v, want not found", err)
	}
}

func TestAKeptFileWhosePostWasDeletedOrThatWasTakenOffItIsNotRead(t *testing.T) {
	for _, c := range []struct {
		name    string
		post    *model.Post
		err     *model.AppError
		reReads bool
	}{
		{"the post deleted", nil, model.NewAppError("GetPost", "app.post.get.app_error", nil, "", 404), false},
		{"the post marked deleted", &model.Post{DeleteAt: 1}, nil, true},
		{"the file taken off the post", &model.Post{}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := accessAPI(t)
			fileID, postID := model.NewId(), model.NewId()
			info := &model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID, Name: "a.txt", Extension: "txt", Size: 3}
			api.On("GetFileInfo", fileID).Return(info, nil).Once()
			gone := *info
			gone.DeleteAt = 1
			api.On("GetFileInfo", fileID).Return(&gone, nil).Maybe()
			// Live at the first read, which keeps the record.
			api.On("GetPost", postID).Return(&model.Post{Id: postID, ChannelId: privateID, FileIds: []string{fileID}}, nil).Once()
			if c.post != nil {
				c.post.Id, c.post.ChannelId = postID, privateID
				api.On("GetPost", postID).Return(c.post, nil)
			} else {
				api.On("GetPost", postID).Return(nil, c.err)
			}
			g := NewGateway(api, nil)
			if _, err := g.As(aliceID).File(fileID); err != nil {
				t.Fatal(err)
			}
			if _, err := g.As(aliceID).File(fileID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("read after %s: %v, want not found", c.name, err)
			}
			if c.reReads {
				api.AssertNumberOfCalls(t, "GetFileInfo", 2)
			}
		})
	}
}

func TestAPlainTextFilesExtractedTextStandsForItsBytesOnlyWhenItIsTheWholeFile(t *testing.T) {
	text := "line one\nline two\n"
	for _, c := range []struct {
		name string
		info model.FileInfo
		want bool
	}{
		{"a text file extracted whole", model.FileInfo{Extension: "txt", Size: int64(len(text)), Content: text}, true},
		{"cut at Mattermost's 1 MiB", model.FileInfo{Extension: "txt", Size: int64(len(text)) + 1, Content: text}, false},
		{"not extracted (yet)", model.FileInfo{Extension: "txt", Size: int64(len(text))}, false},
		{"converted by Mattermost (html)", model.FileInfo{Extension: "html", Size: int64(len(text)), Content: text}, false},
		{"converted by Mattermost (docx)", model.FileInfo{Extension: "docx", Size: int64(len(text)), Content: text}, false},
		{"an image", model.FileInfo{Extension: "png", MimeType: "image/png", Size: int64(len(text)), Content: text}, false},
		{"not UTF-8", model.FileInfo{Extension: "txt", Size: 3, Content: "a\xffb"}, false},
	} {
		if got := copyOfFile(&c.info); got != c.want {
			t.Errorf("%s: copyOfFile = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAPersonsTeamsAreReadOnceAFewSecondsAndEachReaderGetsItsOwnCopy(t *testing.T) {
	api := accessAPI(t)
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "staff", DisplayName: "Staff"}}, nil).Once()
	api.On("GetTeamMember", teamID, aliceID).Return(&model.TeamMember{TeamId: teamID, UserId: aliceID, Roles: "team_user"}, nil).Once()
	g := NewGateway(api, nil)
	for range 3 {
		ms, err := g.As(aliceID).Teams()
		if err != nil || len(ms) != 1 || ms[0].Team.DisplayName != "Staff" {
			t.Fatalf("teams %+v, %v", ms, err)
		}
		ms[0].Team.DisplayName = "changed by one reader"
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 1)
}

func TestOneChannelByIdIsReadAloneAsMyChannelsWouldListIt(t *testing.T) {
	api := accessAPI(t)
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "staff"}}, nil)
	api.On("GetTeamMember", teamID, aliceID).Return(&model.TeamMember{TeamId: teamID, UserId: aliceID}, nil)
	api.On("GetChannelMember", privateID, aliceID).Return(&model.ChannelMember{ChannelId: privateID, UserId: aliceID, MsgCount: 3}, nil)
	api.On("GetChannelMember", publicID, aliceID).Return(nil, notFoundErr())
	c := aliceOn(api)
	if _, err := c.Teams(); err != nil {
		t.Fatal(err)
	}
	priv, _ := c.Channel(privateID)
	m, ok, err := c.MyChannel(priv)
	if err != nil || !ok || m.Member.MsgCount != 3 || m.Team == nil || m.Team.Name != "staff" {
		t.Fatalf("a member's channel: %+v, %v, %v", m, ok, err)
	}
	pub, _ := c.Channel(publicID)
	if _, ok, err := c.MyChannel(pub); ok || err != nil {
		t.Fatalf("a channel alice is not in: %v, %v", ok, err)
	}
	archived := *priv
	archived.DeleteAt = 1
	if _, ok, _ := c.MyChannel(&archived); ok {
		t.Fatal("an archived channel is not among the caller's channels")
	}
	api.AssertNotCalled(t, "GetChannelsForTeamForUser", mock.Anything, mock.Anything, mock.Anything)
}
