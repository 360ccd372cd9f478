package imaging

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"runtime"
	"testing"
	"time"
)

func TestAPhotoWithAnyOfTheEightOrientationsComesBackUpright(t *testing.T) {
	want := quadrants(64, 32) // red top-left, as a viewer shows it
	for o := 1; o <= 8; o++ {
		for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
			t.Run(fmt.Sprintf("orientation %d %v", o, order), func(t *testing.T) {
				stored := storedFor(want, o)
				data := withEXIFOrientation(encodeJPEG(t, stored, 95), o, order)
				r, err := Prepare(context.Background(), data)
				if err != nil {
					t.Fatal(err)
				}
				if r.Orientation != o {
					t.Errorf("Orientation %d, want %d", r.Orientation, o)
				}
				if r.OriginalWidth != stored.Rect.Dx() || r.OriginalHeight != stored.Rect.Dy() {
					t.Errorf("original %dx%d, want the stored %v", r.OriginalWidth, r.OriginalHeight, stored.Rect.Size())
				}
				if r.Turned != (o > 1) || r.Reencoded != (o > 1) {
					t.Errorf("Turned %v Reencoded %v for orientation %d", r.Turned, r.Reencoded, o)
				}
				m := decodeOutput(t, r)
				if m.Bounds().Size() != want.Rect.Size() {
					t.Fatalf("output is %v, want %v", m.Bounds().Size(), want.Rect.Size())
				}
				if r.OutputFormat != FormatJPEG {
					t.Errorf("a photo came back as %s", r.OutputFormat)
				}
				checkQuadrants(t, m, 40)
			})
		}
	}
}

func TestATIFFWithOrientationInItsOwnIFDComesBackUprightAsPNG(t *testing.T) {
	want := quadrants(40, 20)
	for _, o := range []int{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprint("orientation ", o), func(t *testing.T) {
			data := tiffWithOrientation(t, encodeTIFF(t, storedFor(want, o)), o)
			r, err := Prepare(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Orientation != o || r.Format != FormatTIFF || r.OutputFormat != FormatPNG || !r.Reencoded {
				t.Errorf("got %+v", *r)
			}
			checkQuadrants(t, decodeOutput(t, r), 0)
		})
	}
}

func TestAWebPWithAnEXIFChunkComesBackUpright(t *testing.T) {
	stored, err := decode(FormatWebP, webpLossless)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []int{3, 6, 8} {
		t.Run(fmt.Sprint("orientation ", o), func(t *testing.T) {
			r, err := Prepare(context.Background(), webpWithEXIF(t, webpLossless, o))
			if err != nil {
				t.Fatal(err)
			}
			if r.Orientation != o || !r.Turned || r.OutputFormat != FormatPNG {
				t.Fatalf("got %+v", *r)
			}
			m := decodeOutput(t, r)
			b := stored.Bounds()
			for _, p := range []image.Point{{4, 2}, {27, 3}, {5, 13}, {28, 12}} {
				dx, dy := displayedAt(o, p.X, p.Y, b.Dx(), b.Dy())
				if got, want := m.At(dx, dy), stored.At(p.X, p.Y); !near(got, color.NRGBAModel.Convert(want).(color.NRGBA), 0) {
					t.Errorf("stored %v shows at (%d,%d) as %v, want %v", p, dx, dy, got, want)
				}
			}
		})
	}
}

func TestEachFormatIsReadAndComesBackInAFormatClientsAccept(t *testing.T) {
	q := quadrants(32, 16)
	cases := []struct {
		name      string
		data      []byte
		format    string
		output    string
		reencoded bool
	}{
		{"png", encodePNG(t, q), FormatPNG, FormatPNG, false},
		{"jpeg", encodeJPEG(t, q, 90), FormatJPEG, FormatJPEG, false},
		{"gif", encodeGIF(t, q), FormatGIF, FormatGIF, false},
		{"lossless webp", webpLossless, FormatWebP, FormatWebP, false},
		{"lossy webp", webpLossy, FormatWebP, FormatWebP, false},
		{"lossy webp with alpha", webpLossyAlpha, FormatWebP, FormatWebP, false},
		{"bmp becomes png", encodeBMP(t, q), FormatBMP, FormatPNG, true},
		{"tiff becomes png", encodeTIFF(t, q), FormatTIFF, FormatPNG, true},
		{"turned lossy webp becomes jpeg", webpWithEXIF(t, webpLossy, 2), FormatWebP, FormatJPEG, true},
		{"turned lossless webp becomes png", webpWithEXIF(t, webpLossless, 2), FormatWebP, FormatPNG, true},
		{"turned lossy webp with alpha becomes png", webpWithEXIF(t, webpLossyAlpha, 4), FormatWebP, FormatPNG, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Prepare(context.Background(), c.data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != c.format || r.OutputFormat != c.output || r.Reencoded != c.reencoded {
				t.Errorf("format %s -> %s reencoded %v, want %s -> %s reencoded %v",
					r.Format, r.OutputFormat, r.Reencoded, c.format, c.output, c.reencoded)
			}
			if want := "image/" + c.output; r.MIMEType != want {
				t.Errorf("MIME type %s, want %s", r.MIMEType, want)
			}
			if r.OriginalWidth != 32 || r.OriginalHeight != 16 || r.Frames != 1 || r.OriginalBytes != len(c.data) {
				t.Errorf("got %+v", *r)
			}
			decodeOutput(t, r)
		})
	}
}

func TestALossyWebPWithAlphaKeepsItsTransparencyWhenTurned(t *testing.T) {
	r, err := Prepare(context.Background(), webpWithEXIF(t, webpLossyAlpha, 3))
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputFormat != FormatPNG {
		t.Fatalf("came back as %s", r.OutputFormat)
	}
	m := decodeOutput(t, r)
	// The transparent bottom-right quadrant is top-left after 180 degrees.
	if _, _, _, a := m.At(4, 2).RGBA(); a != 0 {
		t.Errorf("top-left alpha %d, want transparent", a)
	}
	if c := m.At(27, 12); !near(c, red, 40) {
		t.Errorf("bottom-right is %v, want red", c)
	}
}

func mustDecode(t testing.TB, data []byte) image.Image {
	t.Helper()
	format, err := sniff(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decode(format, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestALargeImageIsScaledToTheLongEdgeLimit(t *testing.T) {
	cases := []struct {
		name       string
		data       []byte
		w, h       int
		wantFormat string
	}{
		{"4000x3000 jpeg photo", encodeJPEG(t, quadrants(4000, 3000), 90), 1568, 1176, FormatJPEG},
		{"3000x4000 png", encodePNG(t, quadrants(3000, 4000)), 1176, 1568, FormatPNG},
		{"2000x1000 gif (below the prescale factor)", encodeGIF(t, quadrants(2000, 1000)), 1568, 784, FormatPNG},
		{"5000x100 bmp", encodeBMP(t, quadrants(5000, 100)), 1568, 31, FormatPNG},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Prepare(context.Background(), c.data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Width != c.w || r.Height != c.h || !r.Scaled || !r.Reencoded || r.OutputFormat != c.wantFormat {
				t.Fatalf("got %dx%d scaled %v reencoded %v %s", r.Width, r.Height, r.Scaled, r.Reencoded, r.OutputFormat)
			}
			checkQuadrants(t, decodeOutput(t, r), 16)
		})
	}
}

func TestAPhotoWithOrientationSixIsScaledAndTurned(t *testing.T) {
	want := quadrants(3000, 4000) // portrait as displayed
	data := withEXIFOrientation(encodeJPEG(t, storedFor(want, 6), 90), 6, binary.BigEndian)
	r, err := Prepare(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if r.OriginalWidth != 4000 || r.OriginalHeight != 3000 || r.Width != 1176 || r.Height != 1568 || !r.Turned || !r.Scaled {
		t.Fatalf("got %+v", *r)
	}
	checkQuadrants(t, decodeOutput(t, r), 16)
}

func TestANoisyImageIsBroughtUnderTheByteCap(t *testing.T) {
	t.Run("png scales down", func(t *testing.T) {
		data := encodePNG(t, noisy(MaxLongEdge, MaxLongEdge, 255, 1))
		if len(data) <= MaxOutputBytes {
			t.Fatalf("test image is only %d bytes", len(data))
		}
		r, err := Prepare(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes > MaxOutputBytes || !r.Scaled || r.OutputFormat != FormatPNG || r.Width >= MaxLongEdge {
			t.Fatalf("got %d bytes %dx%d scaled %v", r.Bytes, r.Width, r.Height, r.Scaled)
		}
		decodeOutput(t, r)
	})
	t.Run("jpeg lowers quality first, then scales", func(t *testing.T) {
		// No real image reaches the cap as a 1568 px JPEG at quality 85, so
		// run the ladder against a smaller cap.
		img := noisy(800, 600, 255, 2)
		first := len(encodeJPEG(t, img, JPEGQuality))
		ctx := context.Background()

		out, _, q, shrunk, err := encodeCapped(ctx, img, true, first*9/10)
		if err != nil || len(out) > first*9/10 || q >= JPEGQuality || q < MinJPEGQuality || shrunk {
			t.Fatalf("%d bytes at quality %d, shrunk %v, %v", len(out), q, shrunk, err)
		}
		out, m, q, shrunk, err := encodeCapped(ctx, img, true, first/4)
		if err != nil || len(out) > first/4 || q != MinJPEGQuality || !shrunk || m.Bounds().Dx() >= 800 {
			t.Fatalf("%d bytes at quality %d, shrunk %v, %v", len(out), q, shrunk, err)
		}
	})
}

func TestAnImageThatNeedsNothingComesBackAsTheSameBytes(t *testing.T) {
	q := quadrants(MaxLongEdge, 20)
	for name, data := range map[string][]byte{
		"png":                  encodePNG(t, q),
		"jpeg":                 encodeJPEG(t, q, 85),
		"jpeg orientation one": withEXIFOrientation(encodeJPEG(t, q, 85), 1, binary.LittleEndian),
		"gif":                  encodeGIF(t, q),
		"webp":                 webpLossy,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Prepare(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Reencoded || r.Scaled || r.Turned || !bytes.Equal(r.Data, data) || r.Bytes != len(data) {
				t.Fatalf("got reencoded %v scaled %v turned %v, %d of %d bytes", r.Reencoded, r.Scaled, r.Turned, r.Bytes, len(data))
			}
			if r.Width != r.OriginalWidth || r.Height != r.OriginalHeight {
				t.Errorf("size changed: %+v", *r)
			}
		})
	}
}

func TestAnAnimatedGIFReportsItsFramesAndComesBackAsItsFirstFrame(t *testing.T) {
	var frames []*image.Paletted
	for _, c := range []color.Color{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 255, 255}} {
		f := image.NewPaletted(image.Rect(0, 0, 20, 10), palette.Plan9)
		for i := range f.Pix {
			f.Pix[i] = uint8(f.Palette.Index(c))
		}
		frames = append(frames, f)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: frames, Delay: []int{10, 10, 10}}); err != nil {
		t.Fatal(err)
	}
	r, err := Prepare(context.Background(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if r.Frames != 3 || !r.Reencoded || r.OutputFormat != FormatPNG {
		t.Fatalf("got %+v", *r)
	}
	if c := decodeOutput(t, r).At(5, 5); !near(c, red, 0) {
		t.Errorf("first frame is %v, want red", c)
	}
}

func TestAGIFWhoseFirstFrameIsSmallerThanItsScreenKeepsTheScreenSize(t *testing.T) {
	f1 := image.NewPaletted(image.Rect(5, 5, 15, 10), palette.Plan9)
	f2 := image.NewPaletted(image.Rect(0, 0, 30, 20), palette.Plan9)
	var b bytes.Buffer
	err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{f1, f2}, Delay: []int{1, 1},
		Config: image.Config{Width: 30, Height: 20, ColorModel: color.Palette(palette.Plan9)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Prepare(context.Background(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if r.Width != 30 || r.Height != 20 || r.Frames != 2 {
		t.Fatalf("got %+v", *r)
	}
	decodeOutput(t, r)
}

func TestCorruptDataIsAnError(t *testing.T) {
	q := noisy(64, 64, 30, 3)
	png := encodePNG(t, q)
	jpg := encodeJPEG(t, q, 90)
	gifData := encodeGIF(t, q)
	tif := encodeTIFF(t, q)
	cases := map[string][]byte{
		"png cut in the pixel data":  png[:len(png)/2],
		"png with a broken checksum": flip(png, len(png)-20),
		"jpeg cut in the scan":       jpg[:len(jpg)/2],
		"jpeg cut in the header":     jpg[:30],
		"gif cut in the frame":       gifData[:len(gifData)/2],
		"webp cut":                   webpLossy[:len(webpLossy)-20],
		"bmp header only":            encodeBMP(t, q)[:60],
		"tiff cut":                   tif[:len(tif)/3],
		"png signature only":         png[:8],
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Prepare(context.Background(), data)
			if err == nil {
				t.Fatalf("no error, got %+v", *r)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
		})
	}
}

func flip(data []byte, i int) []byte {
	out := append([]byte{}, data...)
	out[i] ^= 0xFF
	return out
}

func TestFormatsOtherThanTheSixAreUnsupported(t *testing.T) {
	animated := webpWithEXIF(t, webpLossless, 1)
	animated[20] |= 0x02 // VP8X animation flag
	cases := map[string][]byte{
		"heic":          append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 40)...),
		"avif":          append([]byte("\x00\x00\x00\x1cftypavif"), make([]byte, 40)...),
		"svg":           []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`),
		"empty":         nil,
		"text":          []byte("hello"),
		"animated webp": animated,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Prepare(context.Background(), data)
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v is not ErrUnsupported", err)
			}
			if _, _, _, err := Config(data); !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Config error %v is not ErrUnsupported", err)
			}
		})
	}
}

// hugePNGHeader is a PNG signature and an IHDR chunk claiming w x h, with
// no pixel data at all.
func hugePNGHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(ihdr)))
	chunk = append(chunk, "IHDR"...)
	chunk = append(chunk, ihdr...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return append([]byte("\x89PNG\r\n\x1a\n"), chunk...)
}

func TestAPNGHeaderClaimingTenGigapixelsIsRejectedWithoutDecoding(t *testing.T) {
	data := hugePNGHeader(100000, 100000)
	ctx := context.Background()
	_, _ = Prepare(ctx, data) // warm up lazily initialised package state
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Prepare(ctx, data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("error %v is not ErrTooManyPixels", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("rejecting the header allocated %d bytes", alloc)
	}
	format, w, h, err := Config(data)
	if !errors.Is(err, ErrTooManyPixels) || format != FormatPNG || w != 100000 || h != 100000 {
		t.Errorf("Config: %s %dx%d %v", format, w, h, err)
	}
}

func TestImagesJustOverThePixelLimitAreRejectedForEveryFormat(t *testing.T) {
	// 8000x6251 = 50,008,000 pixels: headers only, nothing is decoded.
	bmpHeader := make([]byte, 54)
	copy(bmpHeader, "BM")
	binary.LittleEndian.PutUint32(bmpHeader[10:], 54)
	binary.LittleEndian.PutUint32(bmpHeader[14:], 40)
	binary.LittleEndian.PutUint32(bmpHeader[18:], 8000)
	binary.LittleEndian.PutUint32(bmpHeader[22:], 6251)
	binary.LittleEndian.PutUint16(bmpHeader[26:], 1)
	binary.LittleEndian.PutUint16(bmpHeader[28:], 24)
	gifHeader := []byte("GIF89a\x40\x1f\x6b\x18\x00\x00\x00")
	for name, data := range map[string][]byte{
		"png": hugePNGHeader(8000, 6251),
		"bmp": bmpHeader,
		"gif": gifHeader,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Prepare(context.Background(), data); !errors.Is(err, ErrTooManyPixels) {
				t.Fatalf("error %v is not ErrTooManyPixels", err)
			}
		})
	}
}

func TestACancelledContextStopsPreparation(t *testing.T) {
	data := encodeJPEG(t, quadrants(2000, 1000), 80)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Prepare(ctx, data); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, err := Prepare(ctx, data); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want context.DeadlineExceeded", err)
	}
}

func TestConfigReportsTheFormatAndStoredSizeWithoutDecoding(t *testing.T) {
	stored := storedFor(quadrants(30, 10), 6)
	for name, data := range map[string][]byte{
		FormatJPEG: withEXIFOrientation(encodeJPEG(t, stored, 80), 6, binary.BigEndian),
		FormatPNG:  encodePNG(t, stored),
		FormatGIF:  encodeGIF(t, stored),
		FormatBMP:  encodeBMP(t, stored),
		FormatTIFF: encodeTIFF(t, stored),
	} {
		format, w, h, err := Config(data)
		if err != nil || format != name || w != 10 || h != 30 {
			t.Errorf("%s: got %s %dx%d %v", name, format, w, h, err)
		}
	}
	format, w, h, err := Config(webpLossy)
	if err != nil || format != FormatWebP || w != 32 || h != 16 {
		t.Errorf("webp: got %s %dx%d %v", format, w, h, err)
	}
}

func TestTheEXIFParserFindsTheOrientationAndIgnoresNonsense(t *testing.T) {
	jpg := encodeJPEG(t, quadrants(8, 8), 80)
	cases := []struct {
		name string
		data []byte
		want int
	}{
		{"big endian", withEXIFOrientation(jpg, 6, binary.BigEndian), 6},
		{"little endian", withEXIFOrientation(jpg, 8, binary.LittleEndian), 8},
		{"no exif", jpg, 0},
		{"out of range value", withEXIFOrientation(jpg, 9, binary.BigEndian), 0},
		{"zero value", withEXIFOrientation(jpg, 0, binary.BigEndian), 0},
		{"after fill bytes", append([]byte{0xFF, 0xD8, 0xFF}, withEXIFOrientation(jpg, 3, binary.BigEndian)[2:]...), 3},
		{"truncated segment", withEXIFOrientation(jpg, 6, binary.BigEndian)[:20], 0},
		{"not a jpeg", []byte("hello"), 0},
		{"empty", nil, 0},
	}
	for _, c := range cases {
		if got := jpegOrientation(c.data); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
	if got := tiffOrientation(exifTIFF(5, binary.LittleEndian)); got != 5 {
		t.Errorf("bare TIFF: got %d", got)
	}
	huge := exifTIFF(5, binary.BigEndian)
	binary.BigEndian.PutUint16(huge[8:], 0xFFFF) // claims 65535 entries
	if got := tiffOrientation(huge); got != 5 {
		t.Errorf("IFD count past the end: got %d", got)
	}
	binary.BigEndian.PutUint32(huge[4:], 0xFFFFFFF0) // IFD0 past the end
	if got := tiffOrientation(huge); got != 0 {
		t.Errorf("IFD0 past the end: got %d", got)
	}
}

func TestTheGIFFrameCounterWalksBlocksWithoutDecoding(t *testing.T) {
	mk := func(n int) []byte {
		g := &gif.GIF{}
		for i := 0; i < n; i++ {
			g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, 4, 4), palette.Plan9))
			g.Delay = append(g.Delay, 1)
		}
		var b bytes.Buffer
		if err := gif.EncodeAll(&b, g); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, n := range []int{1, 2, 7, 300} {
		if got := gifFrames(mk(n)); got != n {
			t.Errorf("%d frames counted as %d", n, got)
		}
	}
	five := mk(5)
	if got := gifFrames(five[:len(five)-30]); got < 1 || got > 5 {
		t.Errorf("truncated file: %d frames", got)
	}
	if got := gifFrames([]byte("GIF89a")); got != 0 {
		t.Errorf("header only: %d frames", got)
	}
}

func TestTheTIFFPageCounterFollowsTheIFDChain(t *testing.T) {
	one := encodeTIFF(t, quadrants(4, 4))
	if got := tiffPages(one); got != 1 {
		t.Fatalf("single page counted as %d", got)
	}
	// Chain IFD0 to a copy of itself appended at the end: two pages.
	order, off, _ := tiffHeader(one)
	n := int(order.Uint16(one[off:]))
	ifd := append([]byte{}, one[off:int(off)+2+12*n+4]...)
	two := append([]byte{}, one...)
	order.PutUint32(two[int(off)+2+12*n:], uint32(len(two)))
	two = append(two, ifd...)
	if got := tiffPages(two); got != 2 {
		t.Errorf("two pages counted as %d", got)
	}
	// A chain pointing back to IFD0 stops instead of looping.
	loop := append([]byte{}, one...)
	order.PutUint32(loop[int(off)+2+12*n:], off)
	if got := tiffPages(loop); got != 1 {
		t.Errorf("cyclic chain counted as %d", got)
	}
}
