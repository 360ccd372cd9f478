package imaging

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color/palette"
	"image/gif"
	"testing"
)

// seeds are small valid inputs of every format (and some invalid ones)
// that the fuzzers mutate.
func seeds(t testing.TB) [][]byte {
	q := quadrants(8, 6)
	var anim bytes.Buffer
	_ = gif.EncodeAll(&anim, &gif.GIF{
		Image: []*image.Paletted{image.NewPaletted(image.Rect(0, 0, 4, 4), palette.Plan9), image.NewPaletted(image.Rect(1, 1, 3, 3), palette.Plan9)},
		Delay: []int{1, 1},
	})
	return [][]byte{
		encodePNG(t, q),
		encodeJPEG(t, q, 80),
		withEXIFOrientation(encodeJPEG(t, q, 80), 6, binary.BigEndian),
		withEXIFOrientation(encodeJPEG(t, q, 80), 8, binary.LittleEndian),
		encodeGIF(t, q),
		anim.Bytes(),
		webpLossless,
		webpLossy,
		webpLossyAlpha,
		webpWithEXIF(t, webpLossy, 5),
		encodeBMP(t, q),
		encodeTIFF(t, q),
		tiffWithOrientation(t, encodeTIFF(t, q), 7),
		hugePNGHeader(100000, 100000),
		exifTIFF(3, binary.BigEndian),
		nil,
	}
}

func FuzzPrepare(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Prepare(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrCorrupt) &&
				!errors.Is(err, ErrTooManyPixels) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		if len(r.Data) == 0 || r.Bytes != len(r.Data) || r.Bytes > MaxOutputBytes ||
			max(r.Width, r.Height) > MaxLongEdge || r.Width < 1 || r.Height < 1 ||
			r.Orientation < 0 || r.Orientation > 8 || r.Frames < 1 {
			t.Fatalf("bad result %+v", *r)
		}
		if !r.Reencoded && !bytes.Equal(r.Data, data) {
			t.Fatal("not reencoded but data differs")
		}
	})
}

func FuzzConfig(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		format, w, h, err := Config(data)
		if err == nil && (format == "" || w < 1 || h < 1 || int64(w)*int64(h) > MaxPixels) {
			t.Fatalf("Config accepted %q %dx%d", format, w, h)
		}
	})
}

func FuzzEXIFOrientation(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range []int{jpegOrientation(data), tiffOrientation(data), parseWebP(data).orientation} {
			if o < 0 || o > 8 {
				t.Fatalf("orientation %d", o)
			}
		}
		if p := tiffPages(data); p < 0 || p > MaxTIFFPages {
			t.Fatalf("%d TIFF pages", p)
		}
	})
}

func FuzzGIFFrames(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := gifFrames(data)
		if n < 0 || n > MaxGIFFrames {
			t.Fatalf("%d frames", n)
		}
		// Where the standard decoder reads every frame (of small images,
		// to keep the fuzzer fast), the counter must agree with it.
		c, err := gif.DecodeConfig(bytes.NewReader(data))
		if err != nil || c.Width*c.Height > 1<<16 {
			return
		}
		g, err := gif.DecodeAll(bytes.NewReader(data))
		if err == nil && len(g.Image) != n {
			t.Fatalf("counted %d frames, image/gif decodes %d", n, len(g.Image))
		}
	})
}

// FuzzResize scales images of any size and content to any smaller size:
// the box prescale and the quality pass never panic, always give the size
// asked for, and every colour stays validly premultiplied.
func FuzzResize(f *testing.F) {
	f.Add(uint16(37), uint16(23), uint16(12), uint16(7), []byte{0, 255, 7, 128})
	f.Add(uint16(4000), uint16(3), uint16(1568), uint16(1), []byte{255})
	f.Add(uint16(5), uint16(300), uint16(5), uint16(99), []byte{})
	f.Fuzz(func(t *testing.T, sw, sh, w, h uint16, pix []byte) {
		sw, sh = max(1, sw%1024), max(1, sh%1024) // small enough for many runs a second
		w, h = max(1, min(w, sw)), max(1, min(h, sh))
		src := image.NewNRGBA(image.Rect(0, 0, int(sw), int(sh)))
		if len(pix) > 0 {
			for i := range src.Pix {
				src.Pix[i] = pix[i%len(pix)]
			}
		}
		out := resize(src, int(w), int(h))
		if b := out.Bounds(); b.Dx() != int(w) || b.Dy() != int(h) {
			t.Fatalf("%dx%d to %dx%d gave %v", sw, sh, w, h, b)
		}
		for i := 0; i+3 < len(out.Pix); i += 4 {
			if p := out.Pix[i : i+4]; p[0] > p[3] || p[1] > p[3] || p[2] > p[3] {
				t.Fatalf("pixel %d is %v, a colour above its alpha", i/4, p)
			}
		}
	})
}
