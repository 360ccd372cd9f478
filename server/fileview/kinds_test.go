package fileview

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"testing"
)

// Minimal byte fixtures for formats sniffed by their magic numbers.
var (
	webpBytes = []byte("RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00")
	bmpBytes  = append([]byte("BM\x46\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"), make([]byte, 40)...)
	tiffBytes = append([]byte("II*\x00\x08\x00\x00\x00"), make([]byte, 16)...)
	id3Bytes  = append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), make([]byte, 64)...)
	wavBytes  = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
	oggBytes  = append([]byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"), []byte("\x01vorbis\x00\x00\x00\x00")...)
	flacBytes = append([]byte("fLaC\x00\x00\x00\x22"), make([]byte, 34)...)
	m4aBytes  = []byte("\x00\x00\x00\x18ftypM4A \x00\x00\x02\x00isomiso2\x00\x00\x00\x08free")
	mp4Bytes  = []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomavc1\x00\x00\x00\x08free")
	movBytes  = []byte("\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  \x00\x00\x00\x08wide")
	heicBytes = []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic\x00\x00\x00\x08free")
	webmBytes = []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm\x42\x87\x81\x04")
	mkvBytes  = []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska")
	pdfBytes  = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
	svgBytes  = []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
)

// mp3Frames is two MPEG-1 layer III frame headers 417 bytes apart, no tag.
func mp3Frames() []byte {
	b := make([]byte, 417+4)
	copy(b, []byte{0xFF, 0xFB, 0x90, 0x00})
	copy(b[417:], []byte{0xFF, 0xFB, 0x90, 0x00})
	return b
}

func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jpegWithOrientation encodes a w x h JPEG and inserts an EXIF APP1 segment
// holding only the orientation tag.
func jpegWithOrientation(t testing.TB, w, h, orientation int) []byte {
	t.Helper()
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for i := range img.Y {
		img.Y[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00")
	tiff[18] = 0
	tiff[19] = byte(orientation)
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	out := append([]byte{0xFF, 0xD8}, seg...)
	return append(out, buf.Bytes()[2:]...)
}

func gifOf(t testing.TB, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	for i := 0; i < frames; i++ {
		p := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.White})
		p.Pix[i] = 1
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeaderClaiming is a PNG signature and an IHDR chunk (with a correct
// CRC) claiming w x h pixels, followed by an empty IDAT and IEND: no pixels.
func pngHeaderClaiming(w, h uint32) []byte {
	chunk := func(typ string, data []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(b, typ...)
		b = append(b, data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", nil)...)
	return append(out, chunk("IEND", nil)...)
}

func TestSniffTellsFormatsByTheirBytes(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		data     []byte
		kind     Kind
		detected string
	}{
		{"PNG", "x", pngOf(t, 2, 2), KindImage, "PNG image"},
		{"JPEG", "x", jpegWithOrientation(t, 8, 8, 1), KindImage, "JPEG image"},
		{"GIF", "x", gifOf(t, 1), KindImage, "GIF image"},
		{"WebP", "x", webpBytes, KindImage, "WebP image"},
		{"BMP", "x", bmpBytes, KindImage, "BMP image"},
		{"TIFF", "x", tiffBytes, KindImage, "TIFF image"},
		{"HEIC", "x", heicBytes, KindImage, "HEIC image"},
		{"SVG", "x", svgBytes, KindImage, "SVG image"},
		{"MP3 with ID3", "x", id3Bytes, KindAudio, "MP3 audio"},
		{"MP3 frames without a tag", "x", mp3Frames(), KindAudio, "MP3 audio"},
		{"WAV", "x", wavBytes, KindAudio, "WAV audio"},
		{"Ogg", "x", oggBytes, KindAudio, "Ogg audio"},
		{"FLAC", "x", flacBytes, KindAudio, "FLAC audio"},
		{"M4A by brand", "x", m4aBytes, KindAudio, "M4A audio"},
		{"M4A by name when the brand is generic", "voice.m4a", mp4Bytes, KindAudio, "M4A audio"},
		{"MP4", "x", mp4Bytes, KindVideo, "MP4 video"},
		{"QuickTime", "x", movBytes, KindVideo, "QuickTime video"},
		{"WebM", "x", webmBytes, KindVideo, "WebM video"},
		{"Matroska", "x", mkvBytes, KindVideo, "Matroska video"},
		{"PDF", "x", pdfBytes, KindPDF, "PDF document"},
		{"zip", "x", zipOf(t, part{"a", "b"}), KindArchive, "ZIP archive"},
		{"docx", "x", docxOf(t, para("x")), KindDocument, "Word document"},
		{"xlsx", "x", xlsxOf(t, false, "", "", [3]string{"S", "", sheetXML("")}), KindSpreadsheet, "Excel workbook"},
		{"pptx", "x", pptxOf(t, nil), KindPresentation, "PowerPoint presentation"},
		{"tar", "x", tarOf(t, tarEntry{name: "a", typ: '0', body: "b"}), KindArchive, "tar archive"},
		{"tar.gz", "x", gzipOf(t, tarOf(t, tarEntry{name: "a", typ: '0', body: "b"})), KindArchive, "gzip-compressed tar archive"},
		{"gzip of text", "x", gzipOf(t, []byte("hello")), KindOther, "gzip-compressed file"},
		{"tar.bz2", "x", []byte(tarBz2), KindArchive, "bzip2-compressed tar archive"},
		{"7z", "x", []byte("7z\xbc\xaf\x27\x1c\x00\x04"), KindOther, "7-Zip archive"},
		{"ELF", "x", []byte("\x7fELF\x02\x01\x01\x00"), KindOther, "ELF executable"},
		{"text", "x", []byte("hello"), KindText, "UTF-8 text"},
		{"text called csv", "a.csv", []byte("a,b"), KindText, "CSV text (UTF-8)"},
		{"text starting with BM is still text", "x", []byte("BM is a fine start for a sentence, really it is."), KindText, "UTF-8 text"},
		{"empty", "x", nil, KindText, "empty file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, detected, _ := Sniff(tt.data, tt.file)
			if kind != tt.kind || detected != tt.detected {
				t.Fatalf("Sniff = %q %q, want %q %q", kind, detected, tt.kind, tt.detected)
			}
		})
	}
}

func TestANameThatDisagreesWithTheBytesIsSaidExactly(t *testing.T) {
	tests := []struct {
		file string
		data []byte
		want string
	}{
		{"report.png", zipOf(t, part{"a", "b"}), "report.png: its name says PNG image, its bytes are a ZIP archive"},
		{"report.docx", zipOf(t, part{"a", "b"}), "report.docx: its name says Word document, its bytes are a ZIP archive"},
		{"photo.jpg", pngOf(t, 2, 2), "photo.jpg: its name says JPEG image, its bytes are a PNG image"},
		{"notes.txt", pngOf(t, 2, 2), "notes.txt: its name says text, its bytes are a PNG image"},
		{"song.mp3", wavBytes, "song.mp3: its name says MP3 audio, its bytes are WAV audio"},
		{"movie.mp4", pdfBytes, "movie.mp4: its name says MP4 video, its bytes are a PDF document"},
		{"dir/sub/a.xlsx", []byte("plain words"), "a.xlsx: its name says Excel workbook, its bytes are UTF-8 text"},
		{"a.pdf", []byte{0, 1, 2, 3}, "a.pdf: its name says PDF document, its bytes are binary data"},
		{"old.doc", heicBytes, "old.doc: its name says Word 97-2003 document, its bytes are an HEIC image"},
		{"bad\u202Ename.png", zipOf(t, part{"a", "b"}), "bad\uFFFDname.png: its name says PNG image, its bytes are a ZIP archive"},
		// No mismatch: the name has no type, or agrees in family.
		{"data.csv", []byte("caf\xe9"), ""},
		{"README", pngOf(t, 2, 2), ""},
		{"backup.tar.gz", gzipOf(t, tarOf(t, tarEntry{name: "a", typ: '0'})), ""},
		{"voice.m4a", mp4Bytes, ""},
		{"clip.mov", mp4Bytes, ""},
		{"logo.svg", svgBytes, ""},
		{"empty.png", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, _, mismatch := Sniff(tt.data, tt.file)
			if mismatch != tt.want {
				t.Fatalf("mismatch %q,\nwant %q", mismatch, tt.want)
			}
			if tt.want == "" {
				return
			}
			v := convert(t, tt.file, tt.data)
			if v.Mismatch != tt.want || !strings.Contains(v.Header, tt.want) {
				t.Fatalf("view mismatch %q, header:\n%s", v.Mismatch, v.Header)
			}
		})
	}
}

func TestSmallAudioAndVideoComeAsThemselvesBesideADescription(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		kind Kind
		mime string
	}{
		{"mp3", id3Bytes, KindAudio, "audio/mpeg"},
		{"wav", wavBytes, KindAudio, "audio/wav"},
		{"ogg", oggBytes, KindAudio, "audio/ogg"},
		{"flac", flacBytes, KindAudio, "audio/flac"},
		{"m4a", m4aBytes, KindAudio, "audio/mp4"},
		{"mp4", mp4Bytes, KindVideo, "video/mp4"},
		{"mov", movBytes, KindVideo, "video/quicktime"},
		{"webm", webmBytes, KindVideo, "video/webm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := convert(t, "media."+tt.name, tt.data)
			if v.Kind != tt.kind || v.Media == nil || v.Media.MIMEType != tt.mime || !bytes.Equal(v.Media.Data, tt.data) {
				t.Fatalf("view kind %q media %+v", v.Kind, v.Media)
			}
			if !strings.Contains(v.Header, tt.mime) || !strings.Contains(v.Header, "attached") {
				t.Fatalf("header:\n%s", v.Header)
			}
		})
	}
}

func TestMediaOverTheCapIsDescribedNotSent(t *testing.T) {
	for _, size := range []int{MaxMediaBytes, MaxMediaBytes + 1} {
		data := make([]byte, size)
		copy(data, id3Bytes)
		v, err := Convert(t.Context(), data, Request{Name: "long.mp3", Permalink: "https://mm.example/pl/x"})
		if err != nil {
			t.Fatal(err)
		}
		if size <= MaxMediaBytes {
			if v.Media == nil {
				t.Fatalf("%d bytes: not sent", size)
			}
			continue
		}
		if v.Media != nil || v.Kind != KindAudio || !strings.Contains(v.Header, "larger than 3,932,160 bytes") ||
			!strings.Contains(v.Header, "A person can open it at https://mm.example/pl/x") {
			t.Fatalf("%d bytes: media %v header:\n%s", size, v.Media != nil, v.Header)
		}
	}
	v := convert(t, "clip.mkv", mkvBytes)
	if v.Media != nil || v.Kind != KindVideo || !strings.Contains(v.Header, "cannot be sent") {
		t.Fatalf("matroska: %+v", v)
	}
}

func TestAPDFIsDescribedAsReadableOnlyThroughExtractedText(t *testing.T) {
	v, err := Convert(t.Context(), pdfBytes, Request{Name: "r.pdf", Permalink: "https://mm.example/pl/p"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindPDF || v.Text != "" || !strings.Contains(v.Header, "extracted") || !strings.Contains(v.Header, "https://mm.example/pl/p") {
		t.Fatalf("view %+v", v)
	}
}

func TestAnUnknownFileIsDescribedByNameTypeSizeAndLink(t *testing.T) {
	v, err := Convert(t.Context(), []byte{0, 1, 2, 3, 4}, Request{Name: "blob", Permalink: "https://mm.example/pl/b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"blob"`, "binary data", "5 bytes", "A person can open it at https://mm.example/pl/b"} {
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
}

func TestDescribeSaysWhyAFileIsNotRead(t *testing.T) {
	v := Describe(Request{Name: "huge.mov", Permalink: "https://mm.example/pl/h"}, 2_500_000_000, "video/quicktime",
		"it is larger than the 100 MB the admin allows to be read")
	if v.Kind != KindVideo || v.Text != "" || v.Media != nil {
		t.Fatalf("view %+v", v)
	}
	for _, want := range []string{`"huge.mov"`, "video/quicktime", "2,500,000,000 bytes (2.5 GB)", "larger than the 100 MB", "A person can open it at https://mm.example/pl/h"} {
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
	if v := Describe(Request{Name: "a.xlsx"}, 10, "", "too big"); v.Kind != KindSpreadsheet || !strings.Contains(v.Header, "Excel workbook") {
		t.Fatalf("by name: %+v", v)
	}
}

func TestImagesComeBackWithANoteOfWhatWasDone(t *testing.T) {
	t.Run("a small PNG is sent as it is", func(t *testing.T) {
		data := pngOf(t, 10, 6)
		v := convert(t, "small.png", data)
		if v.Image == nil || !bytes.Equal(v.Image.Data, data) || v.Image.MIMEType != "image/png" || v.Image.Reencoded {
			t.Fatalf("image %+v", v.Image)
		}
		if !strings.Contains(v.Header, "10×6 px") || !strings.Contains(v.Header, "as uploaded") {
			t.Fatalf("header:\n%s", v.Header)
		}
	})
	t.Run("a sideways large JPEG is turned, scaled and re-encoded", func(t *testing.T) {
		v := convert(t, "photo.jpg", jpegWithOrientation(t, 2000, 1000, 6))
		im := v.Image
		if im == nil || !im.Turned || !im.Scaled || !im.Reencoded || im.Width != 784 || im.Height != 1568 ||
			im.OriginalWidth != 2000 || im.OriginalHeight != 1000 {
			t.Fatalf("image %+v", im)
		}
		for _, want := range []string{"784×1,568 px", "turned upright from its EXIF orientation", "scaled down from 2,000×1,000 px", "re-encoded as jpeg"} {
			if !strings.Contains(v.Header, want) {
				t.Errorf("header lacks %q:\n%s", want, v.Header)
			}
		}
	})
	t.Run("an animated GIF says it shows the first frame", func(t *testing.T) {
		v := convert(t, "anim.gif", gifOf(t, 3))
		if v.Image == nil || !strings.Contains(v.Header, "first frame of 3") {
			t.Fatalf("header:\n%s", v.Header)
		}
	})
}

func TestImagesThatCannotBeShownAreDescribed(t *testing.T) {
	corrupt := pngOf(t, 40, 40)
	corrupt = corrupt[:len(corrupt)-30]
	tests := []struct {
		name, file string
		data       []byte
		want       []string
	}{
		{"HEIC is not converted", "p.heic", heicBytes, []string{"an HEIC image cannot be converted here"}},
		{"SVG is not converted", "logo.svg", svgBytes, []string{"an SVG image cannot be converted here"}},
		{"a damaged PNG", "d.png", corrupt, []string{"could not be decoded", "40×40 px"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Convert(t.Context(), tt.data, Request{Name: tt.file, Permalink: "https://mm.example/pl/i"})
			if err != nil {
				t.Fatal(err)
			}
			if v.Kind != KindImage || v.Image != nil {
				t.Fatalf("kind %q image %v", v.Kind, v.Image != nil)
			}
			for _, want := range append(tt.want, "A person can open it at https://mm.example/pl/i") {
				if !strings.Contains(v.Header, want) {
					t.Errorf("header lacks %q:\n%s", want, v.Header)
				}
			}
		})
	}
}

func TestAPNGClaimingTenBillionPixelsIsDescribedNotDecoded(t *testing.T) {
	data := pngHeaderClaiming(100_000, 100_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := convert(t, "huge.png", data)
	runtime.ReadMemStats(&after)
	if v.Kind != KindImage || v.Image != nil {
		t.Fatalf("kind %q image %v", v.Kind, v.Image != nil)
	}
	for _, want := range []string{"100,000×100,000 px", "50 megapixels", "not decoded"} {
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("allocated %d bytes to describe a header", alloc)
	}
}
