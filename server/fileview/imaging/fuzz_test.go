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
