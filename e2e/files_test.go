package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func aliceClient(t *testing.T) *client.Client {
	t.Helper()
	return connect(t, mm.URL, mm.Users[0].Token)
}

func readFile(t *testing.T, c *client.Client, args map[string]any) (*mcp.CallToolResult, tools.FileResult) {
	t.Helper()
	res := call(t, c, "read_file", args)
	var out tools.FileResult
	if !res.IsError {
		structuredAs(t, res, &out)
	}
	return res, out
}

func TestReadFilePagesATextAttachmentInNumberedWindowsToTheEnd(t *testing.T) {
	original := numberedText(1200)
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "the report", map[string][]byte{"report.txt": []byte(original)})
	c := aliceClient(t)

	var lines []string
	args := map[string]any{"file_id": infos[0].Id}
	for window := 0; ; window++ {
		if window > 5 {
			t.Fatal("paging did not reach the end")
		}
		res, out := readFile(t, c, args)
		if res.IsError {
			t.Fatalf("read_file: %s", text(res))
		}
		if out.TotalLines != 1200 || out.Kind != "text" {
			t.Fatalf("window %d: %+v", window, out)
		}
		body := text(res)
		header, numbered, _ := strings.Cut(body, "\n\n")
		if !strings.Contains(header, "report.txt") || !strings.Contains(header, "1,200") && !strings.Contains(header, "1200") {
			t.Fatalf("the header does not name the file and its line count: %q", header)
		}
		for _, l := range strings.Split(strings.TrimRight(numbered, "\n"), "\n") {
			num, content, ok := strings.Cut(l, "\t")
			if !ok || strings.TrimSpace(num) != fmt.Sprint(len(lines)+1) {
				t.Fatalf("line %q is not numbered %d then a tab", l, len(lines)+1)
			}
			lines = append(lines, content)
		}
		if out.NextStart == 0 {
			if !strings.Contains(header, "end of the file") {
				t.Fatalf("the last window does not say so: %q", header)
			}
			break
		}
		want := fmt.Sprintf("read_file(file_id=%q, offset=%d", infos[0].Id, out.NextStart)
		if !strings.Contains(header, want) {
			t.Fatalf("the header does not give the next call %s: %q", want, header)
		}
		args = map[string]any{"file_id": infos[0].Id, "offset": out.NextStart}
	}
	if got := strings.Join(lines, "\n") + "\n"; got != original {
		t.Fatalf("paging lost or repeated lines: got %d lines", len(lines))
	}

	res, _ := readFile(t, c, map[string]any{"file_id": infos[0].Id, "offset": 5000})
	if !res.IsError || !strings.Contains(text(res), "1,200") && !strings.Contains(text(res), "1200") {
		t.Fatalf("an offset past the end must be refused with the line count: %s", text(res))
	}
}

func TestReadFileGivesAWordDocumentAsItsText(t *testing.T) {
	doc := docx(t, "Quarterly plan for the harbour office", [2]string{"Budget", "42000"})
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "plan", map[string][]byte{"plan.docx": doc})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	body := text(res)
	if res.IsError || out.Kind != "document" || !strings.Contains(body, "Quarterly plan for the harbour office") || !strings.Contains(body, "Budget\t42000") {
		t.Fatalf("docx read as %+v: %s", out, body)
	}
	if !strings.Contains(strings.ToLower(body), "formatting") {
		t.Fatalf("the header must say formatting is not included: %s", body)
	}
}

func TestReadFileListsAZipArchive(t *testing.T) {
	z := zipOf(t, map[string]string{"docs/readme.md": "hello", "src/main.go": "package main"})
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "code", map[string][]byte{"code.zip": z})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	body := text(res)
	if res.IsError || out.Kind != "archive" || !strings.Contains(body, "docs/readme.md") || !strings.Contains(body, "src/main.go") {
		t.Fatalf("zip read as %+v: %s", out, body)
	}
}

func TestReadFileTurnsASidewaysPhotoUpright(t *testing.T) {
	photo := sidewaysJPEG(t, 240, 120)
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "photo", map[string][]byte{"harbour.jpg": photo})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	if res.IsError || out.Image == nil || !out.Image.Turned {
		t.Fatalf("photo read as %+v: %s", out, text(res))
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(mcp.ImageContent); ok {
			img = &ic
		}
	}
	if img == nil {
		t.Fatalf("no image content: %s", text(res))
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	decoded, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the returned image does not decode: %v", err)
	}
	b := decoded.Bounds()
	if b.Dx() != 120 || b.Dy() != 240 {
		t.Fatalf("returned %dx%d, want the upright 120x240", b.Dx(), b.Dy())
	}
	// Turned clockwise, the red left half of the stored image is on top.
	if r, _, bl, _ := decoded.At(60, 30).RGBA(); r>>8 < 200 || bl>>8 > 60 {
		t.Fatalf("the top of the upright photo is not red: r=%d b=%d", r>>8, bl>>8)
	}
	if !strings.Contains(text(res), "240") || !strings.Contains(strings.ToLower(text(res)), "turn") {
		t.Fatalf("the note must give the original size and say it was turned: %s", text(res))
	}
}

func TestReadFileGivesSmallAudioAsAudio(t *testing.T) {
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "memo", map[string][]byte{"memo.wav": wav(8000)})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	var audio *mcp.AudioContent
	for _, c := range res.Content {
		if ac, ok := c.(mcp.AudioContent); ok {
			audio = &ac
		}
	}
	if res.IsError || out.Kind != "audio" || audio == nil || !strings.Contains(audio.MIMEType, "wav") {
		t.Fatalf("wav read as %+v: %s", out, text(res))
	}
	if raw, _ := base64.StdEncoding.DecodeString(audio.Data); !bytes.Equal(raw, wav(8000)) {
		t.Fatal("the audio is not the file's bytes")
	}
}

func TestReadFileFindsAnAttachmentByPermalinkAndName(t *testing.T) {
	post, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "two files", map[string][]byte{
		"a.txt": []byte("first file\n"), "b.txt": []byte("second file\n")})
	c := aliceClient(t)
	link := fmt.Sprintf("%s/%s/pl/%s", mm.URL, mm.Team.Name, post.Id)
	res, out := readFile(t, c, map[string]any{"permalink": link, "file_name": "b.txt"})
	if res.IsError || !strings.Contains(text(res), "second file") || out.Permalink != link {
		t.Fatalf("by permalink: %+v %s", out, text(res))
	}
	res, _ = readFile(t, c, map[string]any{"permalink": link})
	if !res.IsError || !strings.Contains(text(res), "a.txt") || !strings.Contains(text(res), "b.txt") {
		t.Fatalf("an ambiguous permalink must list the files: %s", text(res))
	}
	_ = infos
}

func TestAFileOverTheSizeLimitIsDescribedWithoutBeingRead(t *testing.T) {
	if err := mm.PatchPluginSettings(map[string]any{"MaxFileSizeMiB": 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"MaxFileSizeMiB": 50}) })
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 100_000) // 1.7 MB
	post, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "big", map[string][]byte{"big.log": big})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	body := text(res)
	if res.IsError || out.Read || strings.Contains(body, "0123456789abcdef") {
		t.Fatalf("an over-limit file must be described, not read: %+v %s", out, body)
	}
	if !strings.Contains(body, "1 MiB") || !strings.Contains(body, post.Id) {
		t.Fatalf("the description must say why and link the post: %s", body)
	}
}

func TestReadFileReadsTheTextMattermostExtractedFromAPDFAndThePDFItself(t *testing.T) {
	upload := pdfWithText("Harbour minutes approved")
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "pdf", map[string][]byte{"minutes.pdf": upload})
	c := aliceClient(t)
	// Mattermost extracts PDF text asynchronously after the upload.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, out := readFile(t, c, map[string]any{"file_id": infos[0].Id})
		if !res.IsError && out.Kind == "pdf" && strings.Contains(text(res), "Harbour minutes approved") {
			if out.TotalLines < 1 {
				t.Fatalf("PDF text is not windowed: %+v", out)
			}
			stored, _, err := mm.Client(mm.Users[0]).GetFile(context.Background(), infos[0].Id)
			if err != nil {
				t.Fatal(err)
			}
			if got := embeddedPDF(t, res); !bytes.Equal(got, upload) || !bytes.Equal(got, stored) {
				t.Fatalf("the embedded PDF (%d bytes) differs from the upload (%d) or the stored file (%d)", len(got), len(upload), len(stored))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no extracted PDF text after 30 s: %+v %s", out, text(res))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestAPDFWithoutTextComesBackAsItselfAndSaysSo(t *testing.T) {
	upload := pdfWithText("")
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "scan", map[string][]byte{"scan.pdf": upload})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	if res.IsError || out.Kind != "pdf" || !strings.Contains(text(res), "no text layer") {
		t.Fatalf("a PDF without text: %+v %s", out, text(res))
	}
	if got := embeddedPDF(t, res); !bytes.Equal(got, upload) {
		t.Fatalf("the embedded PDF (%d bytes) differs from the upload (%d)", len(got), len(upload))
	}
}

// embeddedPDF is the application/pdf resource of a read_file answer.
func embeddedPDF(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	for _, content := range res.Content {
		er, ok := content.(mcp.EmbeddedResource)
		if !ok {
			continue
		}
		blob, ok := er.Resource.(mcp.BlobResourceContents)
		if !ok || blob.MIMEType != "application/pdf" {
			t.Fatalf("an embedded resource that is not a PDF blob: %+v", er.Resource)
		}
		data, err := base64.StdEncoding.DecodeString(blob.Blob)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Fatalf("no embedded application/pdf resource in %s", text(res))
	return nil
}

func TestGetFileInfoDescribesAnAttachmentWithoutReadingIt(t *testing.T) {
	post, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "notes", map[string][]byte{"notes.md": []byte("# Notes\n")})
	res := call(t, aliceClient(t), "get_file_info", map[string]any{"file_id": infos[0].Id})
	var out map[string]any
	structuredAs(t, res, &out)
	rest, _, err := mm.Client(mm.Users[0]).GetFileInfo(context.Background(), infos[0].Id)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || out["name"] != rest.Name || out["size"].(float64) != float64(rest.Size) || out["posted_by"] != mm.Users[0].Username ||
		!strings.Contains(fmt.Sprint(out["permalink"]), post.Id) || out["readable"] != true {
		t.Fatalf("get_file_info %v, REST says %s %d", out, rest.Name, rest.Size)
	}
	if !strings.Contains(text(res), fmt.Sprintf("read_file(file_id=%q)", infos[0].Id)) {
		t.Fatalf("get_file_info must give the call that reads it: %s", text(res))
	}
}

func TestSearchFilesFindsAttachmentsByNameAndExtension(t *testing.T) {
	unique := fmt.Sprintf("ledger-%d", time.Now().UnixNano())
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "ledger", map[string][]byte{unique + ".csv": []byte("a,b\n1,2\n")})
	c := connect(t, mm.URL, mm.Users[1].Token) // bob reads town square too
	res := call(t, c, "search_files", map[string]any{"name": unique})
	if res.IsError || !strings.Contains(text(res), infos[0].Id) {
		t.Fatalf("search by name: %s", text(res))
	}
	res = call(t, c, "search_files", map[string]any{"name": unique, "extension": "pdf"})
	if strings.Contains(text(res), infos[0].Id) {
		t.Fatalf("extension filter ignored: %s", text(res))
	}
	res = call(t, c, "search_files", map[string]any{"after": "yesterday"})
	if !res.IsError || !strings.Contains(text(res), "YYYY-MM-DD") {
		t.Fatalf("a bad date must be refused with the format: %s", text(res))
	}
}

func TestFilesInChannelsBobCannotReadAreNotFoundForBob(t *testing.T) {
	ctx := context.Background()
	alice, bob := mm.Users[0], mm.Users[1]
	ac := mm.Client(alice)
	private, _, err := ac.CreateChannel(ctx, &model.Channel{TeamId: mm.Team.Id, Name: fmt.Sprintf("secret-%d", time.Now().UnixNano()), DisplayName: "Secret", Type: model.ChannelTypePrivate})
	if err != nil {
		t.Fatal(err)
	}
	dm, _, err := ac.CreateDirectChannel(ctx, alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("hidden-%d", time.Now().UnixNano())
	privPost, privFiles := postFiles(t, alice, private.Id, "private", map[string][]byte{marker + "-private.txt": []byte("private plans\n")})
	dmPost, dmFiles := postFiles(t, alice, dm.Id, "dm", map[string][]byte{marker + "-dm.txt": []byte("between us\n")})

	b := connect(t, mm.URL, bob.Token)
	for _, f := range []struct {
		id, post string
	}{{privFiles[0].Id, privPost.Id}, {dmFiles[0].Id, dmPost.Id}} {
		for _, probe := range []struct {
			tool string
			args map[string]any
		}{
			{"read_file", map[string]any{"file_id": f.id}},
			{"get_file_info", map[string]any{"file_id": f.id}},
			{"read_file", map[string]any{"permalink": mm.URL + "/" + mm.Team.Name + "/pl/" + f.post}},
		} {
			res := call(t, b, probe.tool, probe.args)
			body := strings.ToLower(text(res))
			if !res.IsError || !strings.Contains(body, "not found") || strings.Contains(body, "forbidden") || strings.Contains(body, "permission") ||
				strings.Contains(body, "private plans") || strings.Contains(body, "between us") {
				t.Fatalf("bob's %s %v answered: %s", probe.tool, probe.args, text(res))
			}
		}
	}
	if res := call(t, b, "search_files", map[string]any{"name": marker}); strings.Contains(text(res), marker) {
		t.Fatalf("bob's search_files lists alice's hidden files: %s", text(res))
	}
	// Alice herself reads both, so "not found" above was about bob.
	a := aliceClient(t)
	if res := call(t, a, "search_files", map[string]any{"name": marker}); !strings.Contains(text(res), privFiles[0].Id) || !strings.Contains(text(res), dmFiles[0].Id) {
		t.Fatalf("alice's search_files misses her own files: %s", text(res))
	}
	if res, _ := readFile(t, a, map[string]any{"file_id": dmFiles[0].Id}); res.IsError || !strings.Contains(text(res), "between us") {
		t.Fatalf("alice cannot read her own DM file: %s", text(res))
	}
}

func TestReadFileGivesASmallVideoAsAnEmbeddedResource(t *testing.T) {
	// An MP4 is an ftyp box then media data; the reader goes by the box.
	mp4 := append([]byte{0, 0, 0, 24, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm', 0, 0, 2, 0, 'i', 's', 'o', 'm', 'm', 'p', '4', '1'},
		append([]byte{0, 0, 0, 16, 'm', 'd', 'a', 't'}, bytes.Repeat([]byte{7}, 8)...)...)
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "clip", map[string][]byte{"clip.mp4": mp4})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	var blob *mcp.BlobResourceContents
	for _, c := range res.Content {
		if er, ok := c.(mcp.EmbeddedResource); ok {
			if b, ok := er.Resource.(mcp.BlobResourceContents); ok {
				blob = &b
			}
		}
	}
	if res.IsError || out.Kind != "video" || blob == nil || blob.MIMEType != "video/mp4" {
		t.Fatalf("mp4 read as %+v: %s", out, text(res))
	}
	if raw, _ := base64.StdEncoding.DecodeString(blob.Blob); !bytes.Equal(raw, mp4) {
		t.Fatal("the video is not the file's bytes")
	}
}
