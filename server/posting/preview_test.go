package posting

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"
)

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testPNG(t *testing.T, w, h int, alpha uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{200, uint8(x), uint8(y), alpha})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hugePNG is a valid PNG header claiming 20000x20000 pixels (over imaging's
// cap) with no pixel data worth decoding.
func hugePNG() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 20000)
	binary.BigEndian.PutUint32(ihdr[4:], 20000)
	ihdr[8], ihdr[9] = 8, 2
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.WriteString("IHDR")
	b.Write(ihdr)
	b.Write([]byte{0, 0, 0, 0}) // CRC (not checked by the header read)
	return b.Bytes()
}

// exifRotated is a w×h JPEG whose EXIF orientation (6) says to turn it a
// quarter, so it is shown h×w.
func exifRotated(t *testing.T, w, h int) []byte {
	raw := testJPEG(t, w, h)
	tiff := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0}
	entry := make([]byte, 12)
	binary.LittleEndian.PutUint16(entry[0:], 0x0112)
	binary.LittleEndian.PutUint16(entry[2:], 3)
	binary.LittleEndian.PutUint32(entry[4:], 1)
	binary.LittleEndian.PutUint16(entry[8:], 6)
	tiff = append(append(tiff, entry...), 0, 0, 0, 0)
	payload := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(payload)+2))
	out := append([]byte{}, raw[:2]...)
	out = append(out, app1...)
	out = append(out, payload...)
	return append(out, raw[2:]...)
}

func TestStagingKeepsAPreviewOfTextAndAThumbnailOfImagesAndNothingForOtherFiles(t *testing.T) {
	long := strings.Repeat("line\n", 40)
	wide := strings.Repeat("é", 3000) // 6000 bytes on one line
	cases := []struct {
		name, file     string
		data           []byte
		wantPreview    string // exact, or "" for none
		previewPrefix  string
		thumbType      string // "" for none
		thumbW, thumbH int
	}{
		{name: "short text whole", file: "notes.txt", data: []byte("one\ntwo\n"), wantPreview: "one\ntwo"},
		{name: "long text cut at twelve lines", file: "log.txt", data: []byte(long), wantPreview: strings.TrimSuffix(strings.Repeat("line\n", PreviewLines), "\n") + "\n…"},
		{name: "one long line cut at a character boundary", file: "min.js", data: []byte(wide), previewPrefix: "éé"},
		{name: "CRLF lines", file: "dos.txt", data: []byte("a\r\nb\r\n"), wantPreview: "a\nb"},
		{name: "UTF-16 text decoded", file: "u16.txt", data: []byte{0xFF, 0xFE, 'h', 0, 'i', 0}, wantPreview: "hi"},
		{name: "Windows-1252 text decoded", file: "w.txt", data: []byte("caf\xe9 \x80"), wantPreview: "café €"},
		{name: "photo as a small JPEG", file: "photo.jpg", data: testJPEG(t, 1000, 500), thumbType: "image/jpeg", thumbW: ThumbnailEdge, thumbH: ThumbnailEdge / 2},
		{name: "small image not enlarged", file: "icon.png", data: testPNG(t, 40, 20, 255), thumbType: "image/jpeg", thumbW: 40, thumbH: 20},
		{name: "transparent image stays PNG", file: "logo.png", data: testPNG(t, 400, 400, 100), thumbType: "image/png", thumbW: ThumbnailEdge, thumbH: ThumbnailEdge},
		{name: "EXIF orientation applied", file: "side.jpg", data: exifRotated(t, 60, 30), thumbType: "image/jpeg", thumbW: 30, thumbH: 60},
		{name: "image over the pixel cap gets no thumbnail", file: "huge.png", data: hugePNG()},
		{name: "corrupt image gets no thumbnail", file: "broken.jpg", data: []byte{0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3}},
		{name: "binary gets nothing", file: "blob.bin", data: []byte{0, 1, 2, 3, 0xFF, 0, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := describe(context.Background(), Staged{Name: c.file}, c.data)
			if s.Size != int64(len(c.data)) || len(s.SHA256) != 64 {
				t.Fatalf("size %d sha %q", s.Size, s.SHA256)
			}
			switch {
			case c.wantPreview != "" && s.Preview != c.wantPreview:
				t.Fatalf("preview %q, want %q", s.Preview, c.wantPreview)
			case c.previewPrefix != "" && !strings.HasPrefix(s.Preview, c.previewPrefix):
				t.Fatalf("preview %q", s.Preview)
			case c.wantPreview == "" && c.previewPrefix == "" && s.Preview != "":
				t.Fatalf("unexpected preview %q", s.Preview)
			}
			if !utf8.ValidString(s.Preview) || len(s.Preview) > PreviewBytes+len("\n…") {
				t.Fatalf("preview of %d bytes, valid UTF-8 %v", len(s.Preview), utf8.ValidString(s.Preview))
			}
			if s.ThumbnailType != c.thumbType {
				t.Fatalf("thumbnail type %q, want %q", s.ThumbnailType, c.thumbType)
			}
			if c.thumbType == "" {
				if len(s.Thumbnail) != 0 {
					t.Fatalf("unexpected thumbnail of %d bytes", len(s.Thumbnail))
				}
				return
			}
			if len(s.Thumbnail) > MaxThumbnailBytes {
				t.Fatalf("thumbnail of %d bytes", len(s.Thumbnail))
			}
			img, format, err := image.Decode(bytes.NewReader(s.Thumbnail))
			if err != nil || "image/"+format != c.thumbType {
				t.Fatalf("thumbnail decodes as %q: %v", format, err)
			}
			if b := img.Bounds(); b.Dx() != c.thumbW || b.Dy() != c.thumbH {
				t.Fatalf("thumbnail %dx%d, want %dx%d", b.Dx(), b.Dy(), c.thumbW, c.thumbH)
			}
		})
	}
}

func TestAPreviewOfTextCutInsideACharacterDropsTheCutCharacter(t *testing.T) {
	data := []byte(strings.Repeat("a", previewScanBytes-1) + "é and more")
	p := TextPreview(data)
	if !utf8.ValidString(p) || strings.Contains(p, "\uFFFD") {
		t.Fatalf("preview is not clean UTF-8: %q", p[len(p)-10:])
	}
}
