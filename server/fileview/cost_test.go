package fileview

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/bmp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
)

// Headers made by hand: the estimator reads nothing else, so these are all
// it needs (the pixel data that would follow is left out).

func pngHead(w, h uint32, depth, colour, interlace byte) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, depth, colour, 0, 0, interlace)
	return append(b, 0, 0, 0, 0) // CRC, not checked by the estimator
}

// jpegHead is SOI, an APP0 segment, then a frame header (marker sof) with
// the components' sampling factors (0x22 is 2x2).
func jpegHead(w, h uint16, sof byte, sampling ...byte) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	frame := []byte{8}
	frame = binary.BigEndian.AppendUint16(frame, h)
	frame = binary.BigEndian.AppendUint16(frame, w)
	frame = append(frame, byte(len(sampling)))
	for i, s := range sampling {
		frame = append(frame, byte(i+1), s, 0)
	}
	b = append(b, 0xFF, sof)
	b = binary.BigEndian.AppendUint16(b, uint16(len(frame)+2))
	return append(b, frame...)
}

func gifHead(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	return append(b, 0, 0, 0)
}

func riff(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

func chunk(id string, body []byte) []byte {
	b := []byte(id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

func vp8(w, h uint16) []byte {
	b := []byte{0, 0, 0, 0x9D, 0x01, 0x2A}
	b = binary.LittleEndian.AppendUint16(b, w)
	return binary.LittleEndian.AppendUint16(b, h)
}

func vp8l(w, h uint32) []byte {
	return binary.LittleEndian.AppendUint32([]byte{0x2F}, (w-1)|(h-1)<<14)
}

func vp8x(flags byte, w, h uint32) []byte {
	b := []byte{flags, 0, 0, 0}
	b = append(b, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	return append(b, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
}

func bmpHead(w, h int32, bits uint16) []byte {
	b := []byte("BM")
	b = append(b, make([]byte, 12)...)
	b = binary.LittleEndian.AppendUint32(b, 40)
	b = binary.LittleEndian.AppendUint32(b, uint32(w))
	b = binary.LittleEndian.AppendUint32(b, uint32(h))
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, bits)
	return append(b, make([]byte, 24)...)
}

func cost(data []byte) int64 { return EstimateCost(data).Bytes }

func TestTheEstimateFollowsWhatAnImageHeaderSays(t *testing.T) {
	const w, h = 3200, 2400 // whole JPEG MCUs and WebP macroblocks
	px := int64(w * h)
	cases := []struct {
		name       string
		more, less []byte
		want       int64 // cost(more) - cost(less)
	}{
		{"a 16-bit PNG costs 8 bytes a pixel where an 8-bit one costs 4",
			pngHead(w, h, 16, 6, 0), pngHead(w, h, 8, 6, 0), 4*px + 2*w*(8-4)},
		{"an interlaced PNG is decoded twice over",
			pngHead(w, h, 8, 6, 1), pngHead(w, h, 8, 6, 0), 4 * px},
		{"a paletted PNG costs 1 byte a pixel",
			pngHead(w, h, 8, 2, 0), pngHead(w, h, 8, 3, 0), 3*px + 2*w*(3-1)},
		{"a progressive JPEG keeps 4 bytes of coefficients for every sample",
			jpegHead(w, h, 0xC2, 0x22, 0x11, 0x11), jpegHead(w, h, 0xC0, 0x22, 0x11, 0x11), 4 * px * 3 / 2},
		{"a JPEG without chroma subsampling costs 3 samples a pixel, one with 4:2:0 1.5",
			jpegHead(w, h, 0xC0, 0x11, 0x11, 0x11), jpegHead(w, h, 0xC0, 0x22, 0x11, 0x11), px * 3 / 2},
		{"a CMYK JPEG is converted, at 4 bytes a pixel more",
			jpegHead(w, h, 0xC0, 0x11, 0x11, 0x11, 0x11), jpegHead(w, h, 0xC0, 0x11, 0x11, 0x11), px + 4*px},
		{"a lossless WebP costs 12 bytes a pixel, a lossy one 1.5",
			riff(chunk("VP8L", vp8l(w, h))), riff(chunk("VP8 ", vp8(w, h))), 12*px - (w+15)/16*16*((h+15)/16*16)*3/2},
		{"a lossy WebP with an alpha channel decodes it too",
			riff(chunk("VP8X", vp8x(0x10, w, h)), chunk("ALPH", []byte{1}), chunk("VP8 ", vp8(w, h))), riff(chunk("VP8 ", vp8(w, h))), webpLossyAlphaBytes * px},
		{"a GIF frame is placed on an RGBA canvas of its screen",
			gifHead(w, h), pngHead(w, h, 8, 3, 0), 4*px - 2*(w+2)},
		{"a BMP decodes to RGBA whatever its depth",
			bmpHead(w, h, 24), bmpHead(w, -h, 32), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			more, less := EstimateCost(tc.more), EstimateCost(tc.less)
			if more.Kind != KindImage || less.Kind != KindImage {
				t.Fatalf("kinds %s and %s, want image", more.Kind, less.Kind)
			}
			if less.Bytes < px {
				t.Fatalf("a %dx%d image is estimated at %d bytes, less than a byte a pixel", w, h, less.Bytes)
			}
			if got := more.Bytes - less.Bytes; got != tc.want {
				t.Fatalf("difference %d, want %d (%d: %s; %d: %s)", got, tc.want, more.Bytes, more.Basis, less.Bytes, less.Basis)
			}
		})
	}
}

func TestTheHostilePNGOfTheIssueAloneNeedsMoreThan256MiB(t *testing.T) {
	e := EstimateCost(pngHead(5700, 5700, 16, 6, 0))
	if e.Bytes <= 256<<20 {
		t.Fatalf("a 5,700×5,700 16-bit RGBA PNG is estimated at %d bytes; decoding it alone takes 260 MB", e.Bytes)
	}
	if !strings.Contains(e.Basis, "5,700×5,700") || !strings.Contains(e.Basis, "16-bit") {
		t.Fatalf("the basis does not say why: %q", e.Basis)
	}
}

func TestImagesThatAreNotDecodedCostNothingBeyondTheirBytes(t *testing.T) {
	cases := map[string][]byte{
		"more pixels than are decoded":        pngHead(10000, 10000, 8, 6, 0),
		"a PNG whose first chunk is not IHDR": append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDX"), make([]byte, 20)...),
		"a 12-bit JPEG": func() []byte {
			b := jpegHead(100, 100, 0xC0, 0x11)
			b[len(b)-9] = 12
			return b
		}(),
		"a lossless JPEG":            jpegHead(100, 100, 0xC3, 0x11),
		"a JPEG scan before a frame": {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02},
		"an animated WebP":           riff(chunk("VP8X", vp8x(0x02, 100, 100)), chunk("VP8 ", vp8(100, 100))),
		"a GIF of an empty screen":   gifHead(0, 10),
		"an SVG":                     []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>`),
		"a HEIC photo":               append([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), make([]byte, 100)...),
	}
	for name, data := range cases {
		if e := EstimateCost(data); e.Bytes != 0 {
			t.Errorf("%s: estimated at %d bytes (%s), want 0", name, e.Bytes, e.Basis)
		}
	}
}

func TestASmallPNGIsSentAsItIsSoOnlyDecodingCounts(t *testing.T) {
	e := EstimateCost(pngHead(800, 600, 8, 6, 0))
	want := int64(800*600*4) + 2*(800*4+2) + converterBytes
	if e.Bytes != want {
		t.Fatalf("estimate %d, want %d: decoded pixels, two rows and the converter's state", e.Bytes, want)
	}
}

func TestAJPEGWhoseFrameHeaderLiesBeyondTheBoundIsTakenAsTheLargestImage(t *testing.T) {
	segment := append([]byte{0xFF, 0xE2, 0xFF, 0xFF}, make([]byte, 0xFFFF-2)...)
	b := []byte{0xFF, 0xD8}
	for len(b) <= costHeadBytes {
		b = append(b, segment...)
	}
	b = append(b, jpegHead(100, 100, 0xC0, 0x11)[2:]...)
	if e := EstimateCost(b); e.Bytes < imaging.MaxPixels*worstBytesPerPixel {
		t.Fatalf("estimated at %d bytes (%s); a header not found must be taken at its worst", e.Bytes, e.Basis)
	}
}

func TestAnOfficeFileCostsWhatItsXMLPartsDeclareAndNotItsPictures(t *testing.T) {
	document := part{"word/document.xml", `<w:document ` + wNS + `><w:body>` + para("hello") + `</w:body></w:document>`}
	small := zipOf(t, part{"[Content_Types].xml", contentTypes}, document)
	withPicture := zipOf(t, part{"[Content_Types].xml", contentTypes}, document, part{"word/media/image1.png", strings.Repeat("p", 8<<20)})
	if a, b := cost(small), cost(withPicture); b-a != zipEntryBytes {
		t.Fatalf("an 8 MB picture changed the estimate from %d to %d, more than its directory entry: pictures are never read", a, b)
	}
	long := docxOf(t, strings.Repeat(para("a paragraph of the report"), 100_000))
	if a, b := cost(small), cost(long); b < a+int64(100_000*len(para("a paragraph of the report")))*officeTextCopies {
		t.Fatalf("a document with 100,000 paragraphs is estimated at %d, a one-line one at %d", b, a)
	}
	if e := EstimateCost(long); e.Kind != KindDocument || !strings.Contains(e.Basis, "XML") {
		t.Fatalf("estimate %+v", e)
	}
}

func TestAPartDeclaredLargerThanThePartCapCountsOnlyTheCap(t *testing.T) {
	deflated, crc, size := zeros1GiB(t, nil, nil)
	data := rawZipOf(t,
		rawZipPart{name: "[Content_Types].xml", uncompress: contentTypes},
		rawZipPart{name: "word/document.xml", deflated: deflated, crc: crc, size: size},
	)
	e := EstimateCost(data)
	if e.Kind != KindDocument {
		t.Fatalf("kind %s", e.Kind)
	}
	ceiling := int64(officeTextCopies*MaxExtractedTextBytes + officeTokenCopies*MaxPartBytes + 2*zipEntryBytes + converterBytes)
	if e.Bytes > ceiling || e.Bytes < officeTokenCopies*MaxPartBytes {
		t.Fatalf("a part declaring 1 GiB is estimated at %d bytes, want the caps' %d", e.Bytes, ceiling)
	}
}

func TestAWorkbookIsTakenAtTheTextCapSinceSharedStringsAndColumnsExpandIt(t *testing.T) {
	data := xlsxOf(t, false, `<si><t>x</t></si>`, "", [3]string{"S", "", sheetXML(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`)})
	if e := EstimateCost(data); e.Kind != KindSpreadsheet || e.Bytes < officeTextCopies*MaxExtractedTextBytes {
		t.Fatalf("a workbook is estimated at %+v, want at least the extracted-text cap %d times", e, officeTextCopies)
	}
}

func TestAWorkbookRowThatRepeatsALongSharedStringStopsAtTheTextCap(t *testing.T) {
	var row strings.Builder
	row.WriteString(`<row r="1">`)
	for range 4096 {
		row.WriteString(`<c t="s"><v>0</v></c>`)
	}
	row.WriteString(`</row>`)
	data := xlsxOf(t, false, `<si><t>`+strings.Repeat("x", MaxCellBytes)+`</t></si>`, "", [3]string{"S", "", sheetXML(row.String())})
	// 4,096 cells of 32 KiB are 128 MiB of text from a 2 KB file.
	var v *View
	alloc := allocated(func() { v = convert(t, "bomb.xlsx", data) })
	if limit := uint64(EstimateCost(data).Bytes); alloc > limit {
		t.Fatalf("converting allocated %d bytes, more than its estimate of %d", alloc, limit)
	}
	if !strings.Contains(v.Header, "cut") {
		t.Fatalf("the header does not say the text was cut: %s", v.Header)
	}
}

func TestTheEstimateOfOtherFilesFollowsTheirSize(t *testing.T) {
	text := []byte(strings.Repeat("a line of a log\r\n", 10_000))
	utf16 := append([]byte{0xFF, 0xFE}, bytes.Repeat([]byte{'a', 0, '\n', 0}, 1000)...)
	cases := []struct {
		name string
		data []byte
		kind Kind
		want int64
	}{
		{"text is decoded and copied once more", text, KindText, textCopies * int64(len(text))},
		{"UTF-16 is text despite its zero bytes", utf16, KindText, textCopies * int64(len(utf16))},
		{"binary data is only described", append([]byte("\x00\x01\x02"), text...), KindOther, 0},
		{"a PDF is not converted here", []byte("%PDF-1.7\n" + string(text)), KindPDF, 0},
		{"audio is sent as it is", append([]byte("ID3\x04\x00"), make([]byte, 100)...), KindAudio, 0},
		{"a gzip file is taken for a listed archive", gzipOf(t, text), KindArchive, archiveBytes},
		{"a zip archive is listed", zipOf(t, part{"a.txt", "a"}), KindArchive, archiveBytes},
		{"an empty file costs nothing", nil, KindText, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := EstimateCost(tc.data)
			if e.Kind != tc.kind || e.Bytes != tc.want {
				t.Fatalf("estimate %+v, want kind %s and %d bytes", e, tc.kind, tc.want)
			}
		})
	}
}

func TestAFileOverTheInputCapIsDescribedSoCostsNothing(t *testing.T) {
	if e := EstimateCost(make([]byte, MaxInputBytes+1)); e.Bytes != 0 {
		t.Fatalf("estimate %+v, want 0", e)
	}
}

func TestEstimatingReadsOnlyTheHeaderAndAllocatesNothingLikeTheFile(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 2_000_000) // 34 MB of text
	deflated, crc, size := zeros1GiB(t, nil, nil)
	bomb := rawZipOf(t, rawZipPart{name: "[Content_Types].xml", uncompress: contentTypes},
		rawZipPart{name: "word/document.xml", deflated: deflated, crc: crc, size: size})
	png := append(pngHead(5700, 5700, 16, 6, 0), big...)
	for name, data := range map[string][]byte{"text": big, "a zip bomb": bomb, "a PNG": png} {
		if alloc := allocated(func() { EstimateCost(data) }); alloc > 64<<10 {
			t.Errorf("estimating %s allocated %d bytes", name, alloc)
		}
	}
	// Whatever follows the header does not change the estimate of an image.
	if a, b := cost(pngHead(5700, 5700, 16, 6, 0)), cost(png); a != b {
		t.Fatalf("the bytes after the header changed the estimate from %d to %d", a, b)
	}
}

// peakHeap runs f and reports the most heap it held at once above what was
// held before, with the collector running far more often than usual so
// that the heap stays close to what is live.
func peakHeap(f func()) int64 {
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := int64(sample[0].Value.Uint64())
	stop, done := make(chan struct{}), make(chan int64)
	go func() {
		var peak int64
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			peak = max(peak, int64(s[0].Value.Uint64())-base)
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(50 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	return <-done
}

func gradient(w, h int, sixteen bool) image.Image {
	rng := rand.New(rand.NewPCG(1, 2))
	if sixteen {
		m := image.NewNRGBA64(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				m.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 65535 / w), uint16(y * 65535 / h), uint16((x + y) * 32767 / (w + h)), uint16(65535 - x*30000/w)})
			}
		}
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			m.SetRGBA(x, y, color.RGBA{uint8(x*200/w) + n, uint8(y*200/h) + n, 90 + n, 255})
		}
	}
	return m
}

func TestTheEstimateCoversWhatConvertingReallyHolds(t *testing.T) {
	encode := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	r := rand.New(rand.NewPCG(3, 4))
	var body, rows, text strings.Builder
	for body.Len() < 8<<20 {
		body.WriteString(para(words(r, 60)))
	}
	for i := 1; i <= 20_000; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>%s</t></is></c></row>`, i, i, i, i, words(r, 4))
	}
	for text.Len() < 4<<20 {
		text.WriteString(words(r, 10) + "\r\n")
	}
	files := []struct {
		name string
		data []byte
	}{
		{"gradient16.png", encode(func(b *bytes.Buffer) error { return png.Encode(b, gradient(2000, 1800, true)) })},
		{"noise.png", encode(func(b *bytes.Buffer) error { return png.Encode(b, gradient(1500, 1400, false)) })},
		{"photo.jpg", encode(func(b *bytes.Buffer) error {
			return jpeg.Encode(b, gradient(3200, 2400, false), &jpeg.Options{Quality: 90})
		})},
		{"screen.gif", encode(func(b *bytes.Buffer) error {
			return gif.Encode(b, image.NewPaletted(image.Rect(0, 0, 1800, 1800), color.Palette{color.Black, color.White}), nil)
		})},
		{"scan.bmp", encode(func(b *bytes.Buffer) error { return bmp.Encode(b, gradient(2000, 1500, false)) })},
		{"report.docx", docxOf(t, body.String())},
		{"table.xlsx", xlsxOf(t, false, "", "", [3]string{"S", "", sheetXML(rows.String())})},
		{"log.txt", []byte(text.String())},
	}
	for _, f := range files {
		est := EstimateCost(f.data)
		held := peakHeap(func() { convert(t, f.name, f.data) })
		t.Logf("%s: estimated %d bytes (%s), held %d", f.name, est.Bytes, est.Basis, held)
		// Sampling and the collector's pace blur the measure a little.
		if float64(est.Bytes) < 0.9*float64(held) {
			t.Errorf("%s: estimated %d bytes but converting held %d", f.name, est.Bytes, held)
		}
	}
}

// FuzzEstimateCost: the estimator parses untrusted headers. It must not
// panic, must not go negative, and must never estimate a decodable image
// below one byte a pixel of what its decoder's own header reading says.
func FuzzEstimateCost(f *testing.F) {
	f.Add(pngHead(5700, 5700, 16, 6, 0))
	f.Add(pngHead(1, 1<<30, 8, 3, 1))
	f.Add(jpegHead(4000, 3000, 0xC2, 0x22, 0x11, 0x11))
	f.Add(jpegHead(1, 60000, 0xC0, 0x41, 0x11, 0x11, 0x11))
	f.Add(gifHead(300, 200))
	f.Add(riff(chunk("VP8X", vp8x(0x10, 500, 400)), chunk("ALPH", []byte{1}), chunk("VP8 ", vp8(500, 400))))
	f.Add(riff(chunk("VP8L", vp8l(16383, 16383))))
	f.Add(bmpHead(640, -480, 8))
	f.Add([]byte("II*\x00\x08\x00\x00\x00"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add([]byte("\xFF\xFEa\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := EstimateCost(data)
		if e.Bytes < 0 {
			t.Fatalf("negative estimate %+v", e)
		}
		if e.Kind == KindImage {
			_, w, h, err := imaging.Config(data)
			if err == nil && e.Bytes < int64(w)*int64(h) {
				t.Fatalf("a %dx%d image the decoder would read is estimated at %d bytes (%s)", w, h, e.Bytes, e.Basis)
			}
		}
	})
}
