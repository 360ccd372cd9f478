package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// postFiles uploads files as u into a channel and posts them with a message,
// the way the Mattermost web app does.
func postFiles(t *testing.T, u harness.User, channelID, message string, files map[string][]byte) (*model.Post, []*model.FileInfo) {
	t.Helper()
	ctx := context.Background()
	c := mm.Client(u)
	var ids []string
	var infos []*model.FileInfo
	for name, data := range files {
		up, _, err := c.UploadFile(ctx, data, channelID, name)
		if err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
		ids = append(ids, up.FileInfos[0].Id)
		infos = append(infos, up.FileInfos[0])
	}
	post, _, err := c.CreatePost(ctx, &model.Post{ChannelId: channelID, Message: message, FileIds: ids})
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	return post, infos
}

// vault is a private channel of one person's that nobody else is in: a
// thread (an opening post and a reply) and a text attachment, the report.
type vault struct {
	channel *model.Channel
	root    *model.Post
	file    *model.FileInfo
}

// privateVault makes u a vault, which the other test users cannot read.
func privateVault(t *testing.T, u harness.User) vault {
	t.Helper()
	ch := createChannel(t, u, uniq(t, "vault"), "Vault", model.ChannelTypePrivate)
	root := createPost(t, u, ch.Id, "The vault's opening post", "")
	createPost(t, u, ch.Id, "A reply only the vault reads", root.Id)
	_, infos := postFiles(t, u, ch.Id, "the report", map[string][]byte{"report.txt": []byte(numberedText(40))})
	return vault{channel: ch, root: root, file: infos[0]}
}

// holdsLines fails unless a text file's window (numbered lines, a tab
// before each) holds every line of rest, the file as REST serves it.
func holdsLines(t *testing.T, what, window string, rest []byte) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimRight(string(rest), "\n"), "\n") {
		if !strings.Contains(window+"\n", "\t"+line+"\n") {
			t.Fatalf("%s lacks the line %q REST serves:\n%.2000s", what, line, window)
		}
	}
}

// townSquare is the team's default channel, which every member reads.
func townSquare(t *testing.T) *model.Channel {
	t.Helper()
	ch, _, err := mm.Client(mm.Admin).GetChannelByName(context.Background(), "town-square", mm.Team.Id, "")
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// numberedText is n lines "line <i> <word>".
func numberedText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the report\n", i)
	}
	return b.String()
}

// docx builds a minimal Word document with a paragraph and a table.
func docx(t *testing.T, paragraph string, cells [2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			`<w:p><w:r><w:t>` + paragraph + `</w:t></w:r></w:p>` +
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>` + cells[0] + `</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>` + cells[1] + `</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
			`</w:body></w:document>`,
	}
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml"} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(parts[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipOf builds a zip archive of the given entries.
func zipOf(t *testing.T, entries map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, body := range entries {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sidewaysJPEG is a w x h photo stored sideways: its EXIF orientation 6
// says a viewer must turn it 90 degrees clockwise, to h x w. The left half
// is red so a test can tell which way it was turned.
func sidewaysJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{0, 0, 255, 255}
			if x < w/2 {
				c = color.RGBA{255, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	// APP1 "Exif\0\0" + little-endian TIFF with one IFD entry: 0x0112 = 6.
	tiff := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0}
	entry := make([]byte, 12)
	binary.LittleEndian.PutUint16(entry[0:], 0x0112)
	binary.LittleEndian.PutUint16(entry[2:], 3) // SHORT
	binary.LittleEndian.PutUint32(entry[4:], 1)
	binary.LittleEndian.PutUint16(entry[8:], 6)
	tiff = append(tiff, entry...)
	tiff = append(tiff, 0, 0, 0, 0) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(payload)+2))
	app1 = append(app1, payload...)
	raw := enc.Bytes()
	out := append([]byte{}, raw[:2]...) // SOI
	out = append(out, app1...)
	return append(out, raw[2:]...)
}

// wav is a short silent PCM WAV file.
func wav(samples int) []byte {
	var b bytes.Buffer
	dataLen := samples * 2
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+dataLen))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(16000), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(dataLen))
	b.Write(make([]byte, dataLen))
	return b.Bytes()
}

// pdfWithText is a one-page PDF whose text pdftotext can extract.
func pdfWithText(text string) []byte {
	stream := fmt.Sprintf("BT /F1 18 Tf 72 720 Td (%s) Tj ET", text)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return pdfOf(objects)
}

// pdfOf is a PDF of these objects, numbered from 1 (the first the catalog),
// with the cross-reference table a reader needs.
func pdfOf(objects []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, obj := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, obj)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}
