package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// fileViewPage reads the file view's page as the person's client would,
// checking read_file names it.
func fileViewPage(t *testing.T, c *client.Client) string {
	t.Helper()
	ctx := context.Background()
	listed, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, tool := range listed.Tools {
		if tool.Meta == nil {
			continue
		}
		if ui, ok := tool.Meta.AdditionalFields["ui"].(map[string]any); ok && ui["resourceUri"] == resources.FileView {
			named = append(named, tool.Name)
		}
	}
	if strings.Join(named, ",") != "read_file" {
		t.Fatalf("%v name %s, want read_file alone", named, resources.FileView)
	}
	res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: resources.FileView}})
	if err != nil {
		t.Fatalf("read the view: %v", err)
	}
	page, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || page.MIMEType != resources.ViewMIMEType || !strings.Contains(page.Text, "Content-Security-Policy") {
		t.Fatalf("the view is not an MCP App page: %+v", res.Contents[0])
	}
	return page.Text
}

// liveInView counts what became live in the view: handlers, scripts beyond
// the view's own, images not given as data, links that are not http(s).
const liveInView = `[...d.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length +
	d.querySelectorAll("script:not(:first-of-type),iframe,object,svg").length +
	[...d.querySelectorAll("img")].filter(i => !i.src.startsWith("data:image/")).length +
	[...d.querySelectorAll("a")].filter(a => !/^https?:/.test(a.href)).length + (f.contentWindow.pwned ? 1 : 0)`

func TestTheFileViewShowsAPhotoUprightAPDFsTextAndAZipsEntriesAtPhoneAndLaptopWidth(t *testing.T) {
	carol := newPerson(t, "carol")
	ch := createChannel(t, carol, uniq(t, "vfv-"), "File view", model.ChannelTypeOpen)
	evil := `<img src=x onerror="window.pwned=1">`
	_, photo := postFiles(t, carol, ch.Id, "the harbour", map[string][]byte{"harbour.jpg": sidewaysJPEG(t, 2400, 1600)})
	_, pdf := postFiles(t, carol, ch.Id, "the minutes", map[string][]byte{"minutes.pdf": pdfWithText("Harbour minutes approved")})
	_, zip := postFiles(t, carol, ch.Id, "the code", map[string][]byte{evil + ".zip": zipOf(t, map[string]string{
		"docs/readme.md": "hello", "src/main.go": "package main", "src/" + evil + ".go": "package evil"})})
	c := connect(t, mm.URL, carol.Token)
	page := fileViewPage(t, c)

	photoRes, out := readFile(t, c, map[string]any{"file_id": photo[0].Id})
	if photoRes.IsError || out.Image == nil || !out.Image.Turned || !out.Image.Scaled {
		t.Fatalf("the photo read as %+v: %s", out, text(photoRes))
	}
	// Mattermost extracts a PDF's text after the upload: read until it has.
	var pdfRes *mcp.CallToolResult
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		res, out := readFile(t, c, map[string]any{"file_id": pdf[0].Id})
		if !res.IsError && out.Kind == "pdf" && strings.Contains(text(res), "Harbour minutes approved") {
			pdfRes = res
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no extracted PDF text after 30 s: %+v %s", out, text(res))
		}
	}
	zipRes, out := readFile(t, c, map[string]any{"file_id": zip[0].Id})
	if zipRes.IsError || out.Kind != "archive" {
		t.Fatalf("the zip read as %+v: %s", out, text(zipRes))
	}

	for _, width := range []int64{phoneWidth, laptopWidth} {
		tab := hostView(t, page, photoRes, map[string]any{"file_id": photo[0].Id}, "light", width)
		size := pollJS[map[string]any](t, tab, "the view draws the photo", inView(`(() => { const i = d.querySelector(".image img");
			return i && i.complete && i.naturalWidth > 0 ? {w: i.naturalWidth, h: i.naturalHeight, shown: i.getBoundingClientRect().width} : null; })()`))
		if size["h"].(float64) != 1568 || size["w"].(float64) >= size["h"].(float64) || size["shown"].(float64) > float64(width) {
			t.Errorf("%dpx: the photo is drawn as %v; want it upright, 1568 px high, within the width", width, size)
		}
		if caption := evalJS[string](t, tab, inView(`d.querySelector("figcaption").textContent`)); !strings.Contains(caption, "scaled from 1600 × 2400") || !strings.Contains(caption, "turned upright") {
			t.Errorf("%dpx: the caption reads %q", width, caption)
		}
		shoot(t, tab, width, "file-view-photo-light")

		tab = hostView(t, page, pdfRes, map[string]any{"file_id": pdf[0].Id}, "dark", width)
		lines := pollJS[string](t, tab, "the view shows the PDF's text", inView(`[...d.querySelectorAll(".line .t")].map(e => e.textContent).join("\n")`))
		heading := evalJS[string](t, tab, inView(`(d.querySelector(".window") || {}).textContent || ""`))
		if !strings.Contains(lines, "Harbour minutes approved") || !strings.HasPrefix(heading, "Text of the PDF: lines 1–") {
			t.Errorf("%dpx: the PDF shows %q under %q", width, lines, heading)
		}
		if wide := evalJS[float64](t, tab, inView(`d.documentElement.scrollWidth`)); wide > float64(width) {
			t.Errorf("%dpx: the PDF view scrolls sideways: %v wide", width, wide)
		}
		shoot(t, tab, width, "file-view-pdf-dark")

		tab = hostView(t, page, zipRes, map[string]any{"file_id": zip[0].Id}, "light", width)
		entries := pollJS[string](t, tab, "the view lists the zip's entries", inView(`[...d.querySelectorAll(".entries .entry")].map(e => e.textContent).sort().join(" | ")`))
		if want := "docs/readme.md | src/" + evil + ".go | src/main.go"; entries != want {
			t.Errorf("%dpx: the zip lists %q, want %q", width, entries, want)
		}
		if name := evalJS[string](t, tab, inView(`d.querySelector(".file-name").textContent`)); name != evil+".zip" {
			t.Errorf("%dpx: the zip is named %q, want its name as text", width, name)
		}
		if live := evalJS[float64](t, tab, inView(liveInView)); live != 0 {
			t.Errorf("%dpx: %v things a file name or entry holds became live", width, live)
		}
		if wide := evalJS[float64](t, tab, inView(`d.documentElement.scrollWidth`)); wide > float64(width) {
			t.Errorf("%dpx: the zip view scrolls sideways: %v wide", width, wide)
		}
		shoot(t, tab, width, "file-view-zip-light")
	}
}

func TestTheFileViewNeverShowsAFileThePersonCannotRead(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	priv := createChannel(t, dave, uniq(t, "vfpriv-"), "Dave alone", model.ChannelTypePrivate)
	_, files := postFiles(t, dave, priv.Id, "secret", map[string][]byte{"zebra-secret.txt": []byte("the zebra plan")})
	c := connect(t, mm.URL, carol.Token)
	page := fileViewPage(t, c)
	args := map[string]any{"file_id": files[0].Id}
	res := call(t, c, "read_file", args)
	if !res.IsError {
		t.Fatalf("carol read dave's private file: %s", text(res))
	}
	tab := hostView(t, page, res, args, "light", phoneWidth)
	shown := pollJS[string](t, tab, "the view has drawn the result", inView(`d.querySelector(".file-head") ? d.body.textContent : ""`))
	if strings.Contains(shown, "zebra") {
		t.Fatalf("the view shows %q for a file carol cannot read", shown)
	}
}
