package imaging

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// WebP literals made with cwebp 1.2 from a 32x16 image whose quadrants are,
// from the top left clockwise: red, green, white, blue ("quadrants" below).
var (
	webpLossless   = mustHex("5249464638000000574542505650384c2c0000002f1fc003001f201048de1f3a8df9171014fc1fddfc47640f8020db6692939ce4012e10d1ffa852fd016cdb0f")
	webpLossy      = mustHex("5249464654000000574542505650382048000000d002009d012a2000100000c01225a00274ca11c0de01f801fa81fd800929e000fefd2a0ffffdfa3d7feee19ae647feb473ffeb4100f47dbeffeb6b1ffffb5ce3c187a98669200000")
	webpLossyAlpha = mustHex("524946468200000057454250565038580a000000100000001f00000f0000414c504814000000010f30ff1111424840f87f5a664144ff27c021345650382048000000d002009d012a2000100000c01225a00274ca11c0de01f801fa81fd800929e000fefd2a0ffffdfa3d7feee19ae647feb473ffeb4100f47dbeffeb6b1ffffb5ce3c187a98669200000")
	quadrantColors = [4]color.NRGBA{red, green, blue, white} // TL, TR, BL, BR
	red            = color.NRGBA{255, 0, 0, 255}
	green          = color.NRGBA{0, 255, 0, 255}
	blue           = color.NRGBA{0, 0, 255, 255}
	white          = color.NRGBA{255, 255, 255, 255}
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// quadrants draws a w x h image with quadrantColors.
func quadrants(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := 0
			if x >= w/2 {
				i++
			}
			if y >= h/2 {
				i += 2
			}
			m.SetNRGBA(x, y, quadrantColors[i])
		}
	}
	return m
}

// displayedAt is where a viewer shows the stored pixel (x, y) of a w x h
// image with EXIF orientation o, written from the EXIF definition ("the 0th
// row is the visual ..., the 0th column is the visual ...").
func displayedAt(o, x, y, w, h int) (int, int) {
	switch o {
	case 2: // row 0 top, column 0 right
		return w - 1 - x, y
	case 3: // row 0 bottom, column 0 right
		return w - 1 - x, h - 1 - y
	case 4: // row 0 bottom, column 0 left
		return x, h - 1 - y
	case 5: // row 0 left, column 0 top
		return y, x
	case 6: // row 0 right, column 0 top
		return h - 1 - y, x
	case 7: // row 0 right, column 0 bottom
		return h - 1 - y, w - 1 - x
	case 8: // row 0 left, column 0 bottom
		return y, w - 1 - x
	}
	return x, y
}

// storedFor returns the image that, stored with orientation o, a viewer
// shows as want.
func storedFor(want image.Image, o int) *image.NRGBA {
	dw, dh := want.Bounds().Dx(), want.Bounds().Dy()
	w, h := dw, dh
	if o >= 5 {
		w, h = dh, dw
	}
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := displayedAt(o, x, y, w, h)
			m.Set(x, y, want.At(dx, dy))
		}
	}
	return m
}

// noisy draws a photo-like image: smooth gradients plus per-pixel noise.
func noisy(w, h int, amount int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := func(base int) uint8 {
				v := base
				if amount > 0 {
					v += rng.IntN(2*amount+1) - amount
				}
				return uint8(min(255, max(0, v)))
			}
			i := m.PixOffset(x, y)
			m.Pix[i] = n(x * 255 / w)
			m.Pix[i+1] = n(y * 255 / h)
			m.Pix[i+2] = n((x + y) * 255 / (w + h))
			m.Pix[i+3] = 255
		}
	}
	return m
}

func encodePNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, m image.Image, q int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeGIF(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, m, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeBMP(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := bmp.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeTIFF(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tiff.Encode(&b, m, &tiff.Options{Compression: tiff.Deflate}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// exifTIFF builds a minimal TIFF structure whose IFD0 holds only the
// orientation tag.
func exifTIFF(o int, order binary.ByteOrder) []byte {
	b := make([]byte, 8+2+12+4)
	if order == binary.LittleEndian {
		copy(b, "II")
	} else {
		copy(b, "MM")
	}
	order.PutUint16(b[2:], 42)
	order.PutUint32(b[4:], 8)
	order.PutUint16(b[8:], 1)
	e := b[10:]
	order.PutUint16(e[0:], 0x0112)
	order.PutUint16(e[2:], 3)
	order.PutUint32(e[4:], 1)
	order.PutUint16(e[8:], uint16(o))
	return b
}

// withEXIFOrientation inserts an APP1 "Exif" segment right after SOI.
func withEXIFOrientation(jpg []byte, o int, order binary.ByteOrder) []byte {
	body := append([]byte("Exif\x00\x00"), exifTIFF(o, order)...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(2+len(body)))
	seg = append(seg, body...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// tiffWithOrientation rewrites IFD0 of a TIFF file (appended at its end)
// with an orientation entry added, keeping entries sorted by tag.
func tiffWithOrientation(t testing.TB, data []byte, o int) []byte {
	t.Helper()
	bo, off, ok := tiffHeader(data)
	if !ok {
		t.Fatal("not a TIFF")
	}
	order := bo.(interface {
		binary.ByteOrder
		binary.AppendByteOrder
	})
	n := int(order.Uint16(data[off:]))
	entries := data[off+2 : int(off)+2+12*n]
	next := order.Uint32(data[int(off)+2+12*n:])
	var ifd []byte
	ifd = order.AppendUint16(ifd, uint16(n+1))
	added := false
	for i := 0; i < n; i++ {
		e := entries[12*i : 12*i+12]
		if !added && order.Uint16(e) > 0x0112 {
			ifd = appendOrientationEntry(ifd, order, o)
			added = true
		}
		ifd = append(ifd, e...)
	}
	if !added {
		ifd = appendOrientationEntry(ifd, order, o)
	}
	ifd = order.AppendUint32(ifd, next)
	out := append([]byte{}, data...)
	if len(out)%2 == 1 {
		out = append(out, 0)
	}
	order.PutUint32(out[4:], uint32(len(out)))
	return append(out, ifd...)
}

func appendOrientationEntry(b []byte, order binary.AppendByteOrder, o int) []byte {
	b = order.AppendUint16(b, 0x0112)
	b = order.AppendUint16(b, 3)
	b = order.AppendUint32(b, 1)
	b = order.AppendUint16(b, uint16(o))
	return order.AppendUint16(b, 0)
}

// webpWithEXIF adds an EXIF chunk carrying orientation o to a WebP file,
// wrapping a simple (VP8 or VP8L) file into an extended one first.
func webpWithEXIF(t testing.TB, data []byte, o int) []byte {
	t.Helper()
	_, w, h, err := Config(data)
	if err != nil {
		t.Fatal(err)
	}
	chunks := append([]byte{}, data[12:]...)
	if string(chunks[:4]) == "VP8X" {
		chunks[8] |= 0x08 // EXIF flag
	} else {
		vp8x := []byte("VP8X\x0a\x00\x00\x00\x08\x00\x00\x00")
		vp8x = append(vp8x, byte(w-1), byte((w-1)>>8), byte((w-1)>>16), byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
		chunks = append(vp8x, chunks...)
	}
	exif := exifTIFF(o, binary.BigEndian)
	chunks = append(chunks, "EXIF"...)
	chunks = binary.LittleEndian.AppendUint32(chunks, uint32(len(exif)))
	chunks = append(chunks, exif...)
	if len(exif)%2 == 1 {
		chunks = append(chunks, 0)
	}
	out := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(4+len(chunks)))
	out = append(out, "WEBP"...)
	return append(out, chunks...)
}

// decodeOutput decodes a Result's data, checking it matches its metadata.
func decodeOutput(t testing.TB, r *Result) image.Image {
	t.Helper()
	m, format, err := image.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if format != r.OutputFormat {
		t.Fatalf("output is %s, Result says %s", format, r.OutputFormat)
	}
	if b := m.Bounds(); b.Dx() != r.Width || b.Dy() != r.Height {
		t.Fatalf("output is %dx%d, Result says %dx%d", b.Dx(), b.Dy(), r.Width, r.Height)
	}
	if len(r.Data) != r.Bytes || r.Bytes > MaxOutputBytes {
		t.Fatalf("Bytes %d, len %d, cap %d", r.Bytes, len(r.Data), MaxOutputBytes)
	}
	if max(r.Width, r.Height) > MaxLongEdge {
		t.Fatalf("output %dx%d is over the long edge limit", r.Width, r.Height)
	}
	return m
}

// near reports whether c is within tol of want in every channel.
func near(c color.Color, want color.NRGBA, tol int) bool {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	d := func(a, b uint8) bool { return int(a)-int(b) <= tol && int(b)-int(a) <= tol }
	return d(n.R, want.R) && d(n.G, want.G) && d(n.B, want.B) && d(n.A, want.A)
}

// checkQuadrants asserts that the centres of m's quadrants show
// quadrantColors.
func checkQuadrants(t testing.TB, m image.Image, tol int) {
	t.Helper()
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	pts := [4]image.Point{{w / 4, h / 4}, {3 * w / 4, h / 4}, {w / 4, 3 * h / 4}, {3 * w / 4, 3 * h / 4}}
	names := [4]string{"top-left", "top-right", "bottom-left", "bottom-right"}
	for i, p := range pts {
		if c := m.At(b.Min.X+p.X, b.Min.Y+p.Y); !near(c, quadrantColors[i], tol) {
			t.Errorf("%s quadrant is %v, want %v", names[i], c, quadrantColors[i])
		}
	}
}
