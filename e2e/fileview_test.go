package e2e

import (
	"context"
	"fmt"
	"math"
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
	return viewPage(t, c, resources.FileView, "read_file")
}

// liveInView counts what became live in the view: handlers, scripts beyond
// the view's own, images not given as data, links that are not http(s).
const liveInView = `[...d.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length +
	d.querySelectorAll("script:not(:first-of-type),iframe,object,svg").length +
	[...d.querySelectorAll("img")].filter(i => !i.src.startsWith("data:image/")).length +
	[...d.querySelectorAll("a")].filter(a => !/^https?:/.test(a.href)).length + (f.contentWindow.pwned ? 1 : 0)`

func TestTheFileViewShowsAPhotoUprightAPDFsPageAndAZipsEntriesAtPhoneAndLaptopWidth(t *testing.T) {
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
		for _, host := range []string{"test host", "reference host"} {
			var tab context.Context
			if host == "test host" {
				tab = hostView(t, page, photoRes, map[string]any{"file_id": photo[0].Id}, "light", width)
			} else {
				tab = refHostView(t, carol.Token, "read_file", map[string]any{"file_id": photo[0].Id}, resources.FileView, "light", width)
			}
			seesPortraitPhoto(t, tab, fmt.Sprintf("%s %dpx", host, width), width)
			if facts := evalJS[string](t, tab, inView(`d.querySelector(".file-facts").textContent`)); !strings.Contains(facts, "JPEG image · ") ||
				!strings.Contains(facts, "scaled from 1600 × 2400") || !strings.Contains(facts, "turned upright") {
				t.Errorf("%s %dpx: the header reads %q", host, width, facts)
			}
			shoot(t, tab, width, "file-view-photo-light-"+strings.ReplaceAll(host, " ", "-"))
		}

		tab := hostView(t, page, pdfRes, map[string]any{"file_id": pdf[0].Id}, "dark", width)
		if drawn := pollJS[int](t, tab, "the view draws the PDF's page", inView(`d.querySelectorAll("canvas[data-drawn=true]").length`)); drawn != 1 {
			t.Errorf("%dpx: %d pages drawn, want the PDF's one", width, drawn)
		}
		if facts := evalJS[string](t, tab, inView(`d.querySelector(".file-facts").textContent`)); !strings.HasPrefix(facts, "PDF document · ") || !strings.HasSuffix(facts, " · 1 page") {
			t.Errorf("%dpx: the PDF's header reads %q", width, facts)
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

// pdfWithPages is a PDF with a page for each text, in large type on two
// lines ("<text>" and "<text>, continued"), whose text Mattermost extracts.
func pdfWithPages(texts ...string) []byte {
	n := len(texts)
	// Objects: 1 catalog, 2 pages, 3 the font, then a page and its
	// content for each text.
	kids := make([]string, n)
	for i := range texts {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	for i, text := range texts {
		stream := fmt.Sprintf("BT /F1 36 Tf 44 TL 72 700 Td (%s) Tj T* (%s, continued) Tj ET", text, text)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	return pdfOf(objects)
}

// inkOnPages counts, for each page canvas the view drew, its dark pixels:
// the text pdf.js drew (a page's background is white).
const inkOnPages = `[...d.querySelectorAll("canvas.page-canvas")].map(c => {
	const p = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let n = 0;
	for (let i = 0; i < p.length; i += 4) if (p[i + 3] > 0 && p[i] < 96 && p[i + 1] < 96 && p[i + 2] < 96) n++;
	return n; })`

func TestTheFileViewDrawsAThreePagePDFAsPagesUnderAHeaderForThePersonInBothThemes(t *testing.T) {
	carol := newPerson(t, "carol")
	ch := createChannel(t, carol, uniq(t, "vpdf-"), "PDF view", model.ChannelTypeOpen)
	name := `<img src=x onerror="window.pwned=1">report.pdf`
	_, files := postFiles(t, carol, ch.Id, "the report", map[string][]byte{name: pdfWithPages("Harbour page one", "Harbour page two", "Harbour page three")})
	c := connect(t, mm.URL, carol.Token)
	page := fileViewPage(t, c)
	args := map[string]any{"file_id": files[0].Id}
	res, out := readFile(t, c, args)
	if res.IsError || out.Kind != "pdf" || out.MediaType != "application/pdf" {
		t.Fatalf("read_file did not return the PDF itself: %+v %s", out, text(res))
	}
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int64{phoneWidth, laptopWidth} {
			tab := hostView(t, page, res, args, theme, width)
			pollJS[bool](t, tab, "the view draws the PDF's first page", inView(`!!d.querySelector("canvas[data-drawn=true]")`))
			if width == laptopWidth {
				// Pages are drawn as they come into view: at laptop width the
				// third is below the fold until the person scrolls.
				if third := evalJS[string](t, tab, inView(`d.querySelectorAll("canvas")[2].dataset.drawn || "not yet"`)); third != "not yet" {
					t.Errorf("%s %dpx: the third page was drawn (%s) before it came into view", theme, width, third)
				}
			}
			if n := pollJS[int](t, tab, "the view draws the PDF's three pages as the person scrolls",
				`(window.scrollTo(0, document.documentElement.scrollHeight), `+inView(`d.querySelectorAll("canvas[data-drawn=true]").length === 3 ? 3 : 0`)+`)`); n != 3 {
				t.Fatalf("%s %dpx: %d pages drawn", theme, width, n)
			}
			got := evalJS[map[string]any](t, tab, inView(`({
				ink: `+inkOnPages+`,
				captions: [...d.querySelectorAll(".page figcaption")].map(e => e.textContent).join(" | "),
				name: d.querySelector(".file-name").textContent,
				facts: d.querySelector(".file-facts").textContent,
				head: d.querySelector(".file-head").textContent,
				widest: Math.max(...[...d.querySelectorAll("canvas")].map(c => c.getBoundingClientRect().right)),
				wide: d.documentElement.scrollWidth,
				live: `+liveInView+`,
			})`))
			for i, ink := range got["ink"].([]any) {
				if ink.(float64) < 500 {
					t.Errorf("%s %dpx: page %d has %v dark pixels: pdf.js drew no text on it", theme, width, i+1, ink)
				}
			}
			if got["captions"] != "Page 1 of 3 | Page 2 of 3 | Page 3 of 3" || got["name"] != name || !strings.HasPrefix(fmt.Sprint(got["facts"]), "PDF document · ") ||
				!strings.HasSuffix(fmt.Sprint(got["facts"]), " · 3 pages") {
				t.Errorf("%s %dpx: the view shows %v; want three pages, the name as text, a header for the person", theme, width, got)
			}
			if head := fmt.Sprint(got["head"]); strings.Contains(head, files[0].Id) || strings.Contains(head, "read_file") {
				t.Errorf("%s %dpx: the header is the model's: %q", theme, width, head)
			}
			if got["live"].(float64) != 0 || got["widest"].(float64) > float64(width) || got["wide"].(float64) > float64(width) {
				t.Errorf("%s %dpx: something became live, or a page does not fit the width: %v", theme, width, got)
			}
			shoot(t, tab, width, "file-view-pdf-pages-"+theme)
		}
	}
}

func TestTheViewsCSPRefusesAnInlineStyleAttributeAndTheTestSeesIt(t *testing.T) {
	carol := newPerson(t, "carol")
	ch := createChannel(t, carol, uniq(t, "vcsp-"), "CSP", model.ChannelTypeOpen)
	_, files := postFiles(t, carol, ch.Id, "notes", map[string][]byte{"notes.txt": []byte("one\ntwo\n")})
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"file_id": files[0].Id}
	res, _ := readFile(t, c, args)
	tab := hostView(t, fileViewPage(t, c), res, args, "light", phoneWidth)
	pollJS[bool](t, tab, "the view shows the text", inView(`d.querySelectorAll(".line").length === 2`))
	if styled := evalJS[string](t, tab, inView(`(d.body.setAttribute("style", "outline: 3px solid red"), getComputedStyle(d.body).outlineStyle)`)); styled != "none" {
		t.Errorf("an inline style attribute applied (outline %q): the CSP allows inline styles", styled)
	}
	var seen []string
	for deadline := time.Now().Add(10 * time.Second); len(seen) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		seen = cspViolations(tab)
	}
	if len(seen) == 0 || !strings.Contains(strings.Join(seen, " "), "style") {
		t.Fatalf("Chromium reported no violation for the inline style: %v; the views' tests would not see one either", seen)
	}
}

func TestTheFileViewShowsALaterWindowOfAPDFAsItsTextAndSaysOnlyTheTextIsShown(t *testing.T) {
	carol := newPerson(t, "carol")
	ch := createChannel(t, carol, uniq(t, "vpdft-"), "PDF text", model.ChannelTypeOpen)
	_, files := postFiles(t, carol, ch.Id, "the report", map[string][]byte{"report.pdf": pdfWithPages("Harbour page one", "Harbour page two", "Harbour page three")})
	c := connect(t, mm.URL, carol.Token)
	page := fileViewPage(t, c)
	// Mattermost extracts a PDF's text after the upload: read until it has.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		res, out := readFile(t, c, map[string]any{"file_id": files[0].Id})
		if !res.IsError && out.TotalLines >= 2 && strings.Contains(text(res), "Harbour page three") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no extracted PDF text of two lines or more after 30 s: %+v %s", out, text(res))
		}
	}
	args := map[string]any{"file_id": files[0].Id, "offset": 2}
	res, out := readFile(t, c, args)
	if res.IsError || out.MediaType != "" || out.Start != 2 {
		t.Fatalf("the second window read as %+v: %s", out, text(res))
	}
	for _, width := range []int64{phoneWidth, laptopWidth} {
		tab := hostView(t, page, res, args, "dark", width)
		lines := pollJS[string](t, tab, "the view shows the PDF's text", inView(`[...d.querySelectorAll(".line .t")].map(e => e.textContent).join("\n")`))
		note := evalJS[string](t, tab, inView(`(d.querySelector(".note") || {}).textContent || ""`))
		facts := evalJS[string](t, tab, inView(`d.querySelector(".file-facts").textContent`))
		if !strings.Contains(lines, "Harbour page three") || !strings.HasPrefix(note, "Only the PDF's text is shown: this is a later part") ||
			!strings.Contains(facts, fmt.Sprintf("lines 2–%d of %d", out.End, out.TotalLines)) {
			t.Errorf("%dpx: the PDF's later window shows %q under %q, %q", width, lines, facts, note)
		}
		if n := evalJS[float64](t, tab, inView(`d.querySelectorAll("canvas").length`)); n != 0 {
			t.Errorf("%dpx: %v canvases for a window without the PDF", width, n)
		}
		shoot(t, tab, width, "file-view-pdf-text-dark")
	}
}

// seesPortraitPhoto checks the photo of the file view test in tab: drawn
// upright, 1568 px high, within the width, in a frame of its own shape.
func seesPortraitPhoto(t *testing.T, tab context.Context, at string, width int64) {
	t.Helper()
	size := pollJS[map[string]any](t, tab, at+": the view draws the photo", inView(`(() => { const i = d.querySelector(".image img");
		const r = i && i.getBoundingClientRect(), cs = i && getComputedStyle(i), edge = (a, b) => parseFloat(cs[a]) + parseFloat(cs[b]);
		return i && i.complete && i.naturalWidth > 0 ? {w: i.naturalWidth, h: i.naturalHeight, shown: r.width,
			frameW: r.width - edge("borderLeftWidth", "borderRightWidth"), frameH: r.height - edge("borderTopWidth", "borderBottomWidth")} : null; })()`))
	if size["h"].(float64) != 1568 || size["w"].(float64) >= size["h"].(float64) || size["shown"].(float64) > float64(width) {
		t.Errorf("%s: the photo is drawn as %v; want it upright, 1568 px high, within the width", at, size)
	}
	// The frame is the image's own shape: no empty strip beside it.
	if drawn, natural := size["frameW"].(float64)/size["frameH"].(float64), size["w"].(float64)/size["h"].(float64); math.Abs(drawn-natural) > 0.01 {
		t.Errorf("%s: the photo's frame is %.0f × %.0f, shaped %.3f, but the photo is %.3f: an empty strip beside it", at, size["frameW"], size["frameH"], drawn, natural)
	}
}
