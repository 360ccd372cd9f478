package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // Mattermost stores a photo's thumbnail as a JPEG
	"image/png"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// photo is a w x h PNG with a gradient, large enough that Mattermost
// stores a thumbnail smaller than it.
func photo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: 160, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// thumbnailOf reads an attachment's thumbnail resource with its own
// request, as c's person, once Mattermost has stored it: the image it holds
// and its type.
func thumbnailOf(t *testing.T, c *client.Client, fileID string) (image.Image, string) {
	t.Helper()
	var img image.Image
	var typ, last string
	eventually(t, "Mattermost's own thumbnail is read back as "+resources.ThumbnailURI(fileID), func() bool {
		ok, state := readThumbnail(c, fileID, &img, &typ)
		if state != last {
			t.Logf("thumbnail of %s: %s", fileID, state)
			last = state
		}
		return ok
	})
	return img, typ
}

// readThumbnail is one read of the thumbnail resource: whether it is
// Mattermost's own, and what it read.
func readThumbnail(c *client.Client, fileID string, img *image.Image, typ *string) (bool, string) {
	res, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: resources.ThumbnailURI(fileID)}})
	if err != nil {
		return false, err.Error()
	}
	if len(res.Contents) != 1 {
		return false, fmt.Sprintf("%d contents, want one blob", len(res.Contents))
	}
	b, ok := res.Contents[0].(mcp.BlobResourceContents)
	if !ok {
		return false, fmt.Sprintf("%T, want a blob", res.Contents[0])
	}
	raw, err := base64.StdEncoding.DecodeString(b.Blob)
	if err != nil {
		return false, err.Error()
	}
	m, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return false, err.Error()
	}
	*img, *typ = m, b.MIMEType
	return mattermostsThumbnail(m), fmt.Sprintf("%s %v", b.MIMEType, m.Bounds())
}

// mattermostsThumbnail tells Mattermost's stored thumbnail (at most 100 px
// high: 120 px wide from 10.x on, 133 for a 4:3 image on 9.11) from one
// scaled here (240 px on its long edge).
func mattermostsThumbnail(m image.Image) bool {
	return m.Bounds().Dy() <= 100 && m.Bounds().Dx() <= 140
}

func TestTheThreadViewDrawsMattermostsOwnThumbnailReadAsTheThumbnailResourceNotAsReadFile(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "vthumb-"), "Thumbnails", model.ChannelTypeOpen)
	join(t, carol, ch.Id)
	_, infos := postFiles(t, dave, ch.Id, "the launch photo", map[string][]byte{"launch.png": photo(t, 800, 600)})
	_, notes := postFiles(t, dave, ch.Id, "the notes", map[string][]byte{"notes.txt": []byte("launch notes\n")})
	c := connect(t, mm.URL, carol.Token)
	img, typ := thumbnailOf(t, c, infos[0].Id)
	if typ != "image/png" && typ != "image/jpeg" || !mattermostsThumbnail(img) {
		t.Errorf("the thumbnail is %s %v, want Mattermost's own of the 800x600 photo", typ, img.Bounds())
	}
	_, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: resources.ThumbnailURI(notes[0].Id)}})
	if err == nil || !strings.Contains(err.Error(), "not an image") || !strings.Contains(err.Error(), `read_file(file_id="`+notes[0].Id+`")`) {
		t.Errorf("the thumbnail of a text file reads as %v, want a refusal naming read_file", err)
	}

	args := map[string]any{"channel": ch.Id}
	page, res := threadViewOf(t, c, "read_channel", args)
	for _, width := range []int64{phoneWidth, laptopWidth} {
		tab := hostView(t, page, res, args, "light", width, c)
		thumb := pollJS[string](t, tab, "the view draws the photo's thumbnail", inView(`(() => { const i = d.querySelector("img.thumb"); return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth + " " + i.src.split(",")[0] : ""; })()`))
		if want := fmt.Sprint(img.Bounds().Dx()); thumb != want+" data:image/png;base64" && thumb != want+" data:image/jpeg;base64" {
			t.Errorf("%dpx: the thumbnail is drawn as %q, want Mattermost's %s px thumbnail as data", width, thumb, want)
		}
		seen := evalJS[[]any](t, tab, `window.hostSeen`)
		read, called := false, false
		for _, s := range seen {
			read = read || s == "resources/read "+resources.ThumbnailURI(infos[0].Id)
			called = called || strings.HasPrefix(s.(string), "tools/call")
		}
		if !read || called {
			t.Errorf("%dpx: the view asked the host %v; want a resources/read of the thumbnail and no tool call", width, seen)
		}
		shoot(t, tab, width, "thread-view-thumbnail")
	}
}

func TestTheThumbnailOfAFileInAChannelCarolCannotReadIsNotFound(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	priv := createChannel(t, dave, uniq(t, "vtpriv-"), "Dave's photos", model.ChannelTypePrivate)
	_, infos := postFiles(t, dave, priv.Id, "the secret photo", map[string][]byte{"secret.png": photo(t, 400, 300)})
	thumbnailOf(t, connect(t, mm.URL, dave.Token), infos[0].Id) // it is there
	s := sdkAs(t, carol, "2025-11-25")
	notFound(t, s, resources.ThumbnailURI(infos[0].Id), -32002)
	notFound(t, s, resources.ThumbnailURI(model.NewId()), -32002)
}

func TestTheThreadViewShowsWhoReactedWithWhichEmojiAtPhoneAndLaptopWidth(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "vreact-"), "Reactions", model.ChannelTypeOpen)
	join(t, carol, ch.Id)
	root := createPost(t, dave, ch.Id, "We ship on Friday.", "")
	custom := createEmoji(t, uniq(t, "shipit"))
	react(t, dave, root.Id, "+1")
	react(t, carol, root.Id, "+1")
	react(t, carol, root.Id, "tada")
	react(t, dave, root.Id, custom.Name)
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"post": root.Id}
	page, res := threadViewOf(t, c, "read_thread", args)
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int64{phoneWidth, laptopWidth} {
			tab := hostView(t, page, res, args, theme, width)
			chips := pollJS[[]any](t, tab, "the view shows the reactions", inView(`(() => { const c = [...d.querySelectorAll(".reaction")]; return c.length ? c.map(e => e.textContent + " | " + e.title) : null; })()`))
			got := fmt.Sprint(chips)
			for _, want := range []string{
				"👍2 | ", "reacted with :+1:", "🎉1 | @" + carol.Username, "reacted with :tada:",
				":" + custom.Name + ":1 | @" + dave.Username, "reacted with :" + custom.Name + ":",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("%s %dpx: the reactions show %s, want %q among them", theme, width, got, want)
				}
			}
			if !strings.Contains(got, "@"+carol.Username) || !strings.Contains(got, "@"+dave.Username) || len(chips) != 3 {
				t.Errorf("%s %dpx: the reactions show %s, want three emoji and both people who reacted", theme, width, got)
			}
			if n := evalJS[float64](t, tab, inView(`d.querySelectorAll(".reactions img").length`)); n != 0 {
				t.Errorf("%s %dpx: a reaction is drawn as an image", theme, width)
			}
			if wide := evalJS[float64](t, tab, inView(`d.documentElement.scrollWidth`)); wide > float64(width) {
				t.Errorf("%s %dpx: the view scrolls sideways: %v wide", theme, width, wide)
			}
			shoot(t, tab, width, "thread-view-reactions-"+theme)
		}
	}
}
