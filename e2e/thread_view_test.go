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

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
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

// alertFixture is a channel as a team and its integrations write it: an
// incoming webhook's alert (a message attachment with a colour, pretext,
// title and link, text, two short fields, an image and a footer), a post
// dave edited and pinned, and carol's post quoting it by permalink.
func alertFixture(t *testing.T) (carol harness.User, ch *model.Channel, root *model.Post) {
	t.Helper()
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch = createChannel(t, dave, uniq(t, "valert-"), "Alerts and decisions", model.ChannelTypeOpen)
	join(t, carol, ch.Id)
	postThroughWebhook(t, ch.Id, map[string]any{"attachments": []map[string]any{{
		"fallback": "db-1 disk 91% full", "color": "danger", "pretext": "Disk alert on **db-1**",
		"title": "db-1 disk 91% full", "title_link": "https://alerts.example/db-1",
		"text":   "Free space fell below _10%_ <img src=x onerror=\"window.pwned=1\">",
		"fields": []map[string]any{{"title": "Host", "value": "db-1", "short": true}, {"title": "Severity", "value": "`critical`", "short": true}},
		"footer": "alertmanager", "image_url": "https://alerts.example/graph.png",
	}}})
	root = createPost(t, dave, ch.Id, "We ship on Thursday.", "")
	edit(t, dave, root.Id, "We ship on **Friday**.")
	pin(t, dave, root.Id)
	createPost(t, carol, ch.Id, "As agreed: "+mm.URL+"/"+mm.Team.Name+"/pl/"+root.Id, "")
	return carol, ch, root
}

// seesAlertFixture checks what the view in tab drew of alertFixture: the
// card as Mattermost draws it, the edited and pinned marks, the quote.
func seesAlertFixture(t *testing.T, tab context.Context, at string, ch *model.Channel, root *model.Post) {
	t.Helper()
	// The channel also holds the messages of dave and carol joining it.
	if n := pollJS[int](t, tab, at+": the view shows the posts", inView(`d.querySelectorAll(".post").length`)); n != 5 {
		t.Fatalf("%s: %d posts shown, want the alert, dave's, carol's and two join messages", at, n)
	}
	got := evalJS[map[string]any](t, tab, inView(`(() => { const q = (s) => d.querySelector(s), txt = (s) => q(s) ? q(s).textContent : "";
		const fields = [...d.querySelectorAll(".card-field")];
		return {
			bar: q(".card-box") ? getComputedStyle(q(".card-box")).borderLeftColor : "",
			pretext: txt(".card-pretext strong"), title: q(".card-title a") ? q(".card-title a").href : "", text: txt(".card-text"),
			fields: fields.map(f => f.className + ": " + f.textContent).join(" | "),
			columns: fields.length === 2 && fields[0].getBoundingClientRect().top === fields[1].getBoundingClientRect().top && fields[0].getBoundingClientRect().left < fields[1].getBoundingClientRect().left,
			image: q(".card-image a") ? q(".card-image a").href : "", footer: txt(".card-footer"), imgs: d.querySelectorAll("img").length,
			edited: [...d.querySelectorAll(".edited")].map(e => e.textContent).join(), pinned: [...d.querySelectorAll(".pinned")].length,
			quoteAuthor: txt("blockquote.quote .author"), quoteText: txt("blockquote.quote .quote-body"), quoteChannel: txt(".quote-channel"),
			quoteLink: q("blockquote.quote .time a") ? q("blockquote.quote .time a").href : "",
			pwned: !!(window.pwned || f.contentWindow.pwned), wide: d.documentElement.scrollWidth, inner: f.contentWindow.innerWidth,
		}; })()`))
	for key, want := range map[string]any{
		"bar": "rgb(228, 3, 3)", "pretext": "db-1", "title": "https://alerts.example/db-1",
		"fields": "card-field short: Hostdb-1 | card-field short: Severitycritical", "columns": true,
		"image": "https://alerts.example/graph.png", "footer": "alertmanager", "imgs": 0.0,
		"edited": "(edited)", "pinned": 1.0, "quoteText": "We ship on Friday.", "quoteChannel": "Originally posted in ~" + ch.Name,
		"quoteLink": mm.URL + "/" + mm.Team.Name + "/pl/" + root.Id, "pwned": false,
	} {
		if got[key] != want {
			t.Errorf("%s: %s is %#v, want %#v", at, key, got[key], want)
		}
	}
	if !strings.Contains(got["text"].(string), "Free space fell below 10% <img") || !strings.HasPrefix(got["quoteAuthor"].(string), "@dave") {
		t.Errorf("%s: the card's text reads %q and the quote's author %q", at, got["text"], got["quoteAuthor"])
	}
	if got["wide"].(float64) > got["inner"].(float64) {
		t.Errorf("%s: the view scrolls sideways: %v wide in %v", at, got["wide"], got["inner"])
	}
}

func TestTheThreadViewShowsAWebhookAlertAnEditedPinnedPostAndAQuoteAsMattermostDoesInTheReferenceHostAndOurs(t *testing.T) {
	carol, ch, root := alertFixture(t)
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"channel": ch.Id}
	page, res := threadViewOf(t, c, "read_channel", args)
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int64{phoneWidth, laptopWidth} {
			at := fmt.Sprintf("reference host %s %dpx", theme, width)
			tab := refHostView(t, carol.Token, "read_channel", args, resources.ThreadView, theme, width)
			seesAlertFixture(t, tab, at, ch, root)
			// The host sized the frame to what the view asked for: all of it shows.
			if fits := pollJS[bool](t, tab, at+": the frame fits the view", inView(`f.getBoundingClientRect().height >= d.documentElement.scrollHeight - 1`)); !fits {
				t.Errorf("%s: the frame does not fit the view", at)
			}
			seen := fmt.Sprint(evalJS[[]any](t, tab, `window.hostSeen`))
			if !strings.Contains(seen, "ui/notifications/size-changed") || strings.Contains(seen, "tools/call") {
				t.Errorf("%s: the view asked the host %s; want a size-changed and no tool call", at, seen)
			}
			shoot(t, tab, width, "ref-thread-alert-"+theme)

			at = fmt.Sprintf("test host %s %dpx", theme, width)
			tab = hostView(t, page, res, args, theme, width, c)
			seesAlertFixture(t, tab, at, ch, root)
			shoot(t, tab, width, "thread-alert-"+theme)
		}
	}
}
