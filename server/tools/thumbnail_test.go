package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// thumbServer is a server where alice is a member of one channel and the
// other is closed to her; files lists its file infos by id.
type thumbServer struct {
	api                *plugintest.API
	alice, mine, other string
	// posts are the posts of the files, by file id.
	posts map[string]*model.Post
}

func newThumbServer(t *testing.T) *thumbServer {
	t.Helper()
	s := &thumbServer{api: &plugintest.API{}, alice: model.NewId(), mine: model.NewId(), other: model.NewId(), posts: map[string]*model.Post{}}
	team := model.NewId()
	s.api.On("GetChannel", s.mine).Return(&model.Channel{Id: s.mine, TeamId: team, Type: model.ChannelTypePrivate}, nil).Maybe()
	s.api.On("GetChannel", s.other).Return(&model.Channel{Id: s.other, TeamId: team, Type: model.ChannelTypePrivate}, nil).Maybe()
	s.api.On("HasPermissionToChannel", s.alice, s.mine, model.PermissionReadChannelContent).Return(true).Maybe()
	s.api.On("HasPermissionToChannel", s.alice, mock.Anything, model.PermissionReadChannelContent).Return(false).Maybe()
	s.api.On("HasPermissionToTeam", s.alice, mock.Anything, mock.Anything).Return(false).Maybe()
	s.api.On("GetConfig").Return(&model.Config{}).Maybe()
	return s
}

// file adds an attachment posted in channel, with a stored thumbnail when
// thumb is not nil.
func (s *thumbServer) file(channel, name, typ string, data, thumb []byte) string {
	id := model.NewId()
	info := &model.FileInfo{Id: id, PostId: model.NewId(), ChannelId: channel, Name: name, MimeType: typ, Size: int64(len(data))}
	s.posts[id] = &model.Post{Id: info.PostId, ChannelId: channel, FileIds: []string{id}}
	s.api.On("GetPost", info.PostId).Return(func(string) *model.Post { return s.posts[id] }, nil).Maybe()
	if thumb != nil {
		info.ThumbnailPath = "data/" + id + "_thumb.jpg"
		s.api.On("ReadFile", info.ThumbnailPath).Return(thumb, nil).Maybe()
	}
	s.api.On("GetFileInfo", id).Return(info, nil).Maybe()
	s.api.On("GetFile", id).Return(data, nil).Maybe()
	return id
}

func (s *thumbServer) read(t *testing.T, fileID string) (resources.Answer, error) {
	t.Helper()
	d := Deps{Config: config.Defaults, Conversions: budget.New(config.Defaults().ConversionMemoryBytes())}
	return d.thumbnailAs(context.Background(), mattermost.NewGateway(s.api, nil).As(s.alice), fileID)
}

func picture(t *testing.T, w, h int, asJPEG bool) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var b bytes.Buffer
	var err error
	if asJPEG {
		err = jpeg.Encode(&b, m, nil)
	} else {
		err = png.Encode(&b, m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// answerImage is the one image an answer holds, decoded.
func answerImage(t *testing.T, a resources.Answer) (string, image.Image) {
	t.Helper()
	if a.Text != "" || len(a.More) != 1 {
		t.Fatalf("the answer is %q and %d contents, want one image alone", a.Text, len(a.More))
	}
	img, ok := a.More[0].(mcp.ImageContent)
	if !ok {
		t.Fatalf("the answer holds %T, want an image", a.More[0])
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > maxThumbnailBytes || http.DetectContentType(raw) != img.MIMEType {
		t.Fatalf("the thumbnail is %d bytes of %s, said to be %s", len(raw), http.DetectContentType(raw), img.MIMEType)
	}
	m, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img.MIMEType, m
}

func TestAnImagesThumbnailIsTheOneMattermostStoredNotTheImage(t *testing.T) {
	s := newThumbServer(t)
	stored := picture(t, 120, 90, true)
	id := s.file(s.mine, "photo.png", "image/png", picture(t, 1200, 900, false), stored)
	a, err := s.read(t, id)
	if err != nil {
		t.Fatal(err)
	}
	typ, m := answerImage(t, a)
	if typ != "image/jpeg" || m.Bounds().Dx() != 120 {
		t.Fatalf("the thumbnail is %s %v, want Mattermost's stored 120 px JPEG", typ, m.Bounds())
	}
	s.api.AssertNotCalled(t, "GetFile", id)
}

func TestAnImageWithoutAStoredThumbnailIsScaledToOne(t *testing.T) {
	s := newThumbServer(t)
	id := s.file(s.mine, "chart.png", "image/png", picture(t, 960, 480, false), nil)
	a, err := s.read(t, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, m := answerImage(t, a); m.Bounds().Dx() != thumbnailEdge || m.Bounds().Dy() != thumbnailEdge/2 {
		t.Fatalf("the thumbnail is %v, want %dx%d", m.Bounds(), thumbnailEdge, thumbnailEdge/2)
	}
}

func TestWhatIsNoImageHasNoThumbnailAndTheRefusalNamesReadFile(t *testing.T) {
	s := newThumbServer(t)
	id := s.file(s.mine, "notes.pdf", "application/pdf", []byte("%PDF-1.7"), nil)
	_, err := s.read(t, id)
	r, ok := refusal.As(err)
	if !ok || !strings.Contains(r.What, "not an image") || !strings.Contains(r.Next, `read_file(file_id="`+id+`")`) {
		t.Fatalf("err %v, want a refusal saying it is no image and naming read_file", err)
	}
	s.api.AssertNotCalled(t, "GetFile", id)
}

func TestAnImageOverTheCapWithoutAStoredThumbnailIsRefusedUnread(t *testing.T) {
	s := newThumbServer(t)
	id, postID := model.NewId(), model.NewId()
	s.api.On("GetFileInfo", id).Return(&model.FileInfo{Id: id, PostId: postID, ChannelId: s.mine, Name: "huge.png",
		MimeType: "image/png", Size: maxScaledImageBytes + 1}, nil)
	s.api.On("GetPost", postID).Return(&model.Post{Id: postID, ChannelId: s.mine, FileIds: []string{id}}, nil)
	_, err := s.read(t, id)
	r, ok := refusal.As(err)
	if !ok || !strings.Contains(r.What, "over the") || !strings.Contains(r.Next, "read_file") {
		t.Fatalf("err %v, want a refusal saying it is over the cap and naming read_file", err)
	}
	s.api.AssertNotCalled(t, "GetFile", id)
}

func TestTheThumbnailOfAFileInAChannelThePersonCannotReadIsNotFound(t *testing.T) {
	s := newThumbServer(t)
	id := s.file(s.other, "secret.png", "image/png", picture(t, 64, 64, false), picture(t, 32, 32, true))
	for _, fileID := range []string{id, model.NewId(), "not-an-id"} {
		if fileID != id {
			s.api.On("GetFileInfo", fileID).Return(nil, model.NewAppError("test", "not_found", nil, "", http.StatusNotFound)).Maybe()
		}
		if _, err := s.read(t, fileID); !errors.Is(err, resources.ErrNotFound) {
			t.Errorf("%s: err %v, want not found", fileID, err)
		}
	}
	s.api.AssertNotCalled(t, "ReadFile", mock.Anything)
	s.api.AssertNotCalled(t, "GetFile", mock.Anything)
}

func TestTheThumbnailOfAFileWhosePostWasDeletedOrNoLongerListsItIsNotFound(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *model.Post)
	}{
		{"its post deleted, the file's record left as it was", func(p *model.Post) { p.DeleteAt = 1 }},
		{"the file taken off its post", func(p *model.Post) { p.FileIds = nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newThumbServer(t)
			id := s.file(s.mine, "photo.png", "image/png", picture(t, 64, 64, false), picture(t, 32, 32, true))
			if _, err := s.read(t, id); err != nil {
				t.Fatalf("the thumbnail while its post is live: %v", err)
			}
			changed := s.posts[id].Clone()
			c.change(changed)
			s.posts[id] = changed
			if _, err := s.read(t, id); !errors.Is(err, resources.ErrNotFound) {
				t.Fatalf("err %v, want not found", err)
			}
		})
	}
}
