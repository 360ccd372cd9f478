package imaging

import (
	"context"
	"encoding/binary"
	"image"
	"os"
	"sync"
	"testing"

	xdraw "golang.org/x/image/draw"
)

var (
	twelveMPOnce sync.Once
	twelveMP     []byte
)

// twelveMegapixelJPEG is a 4000x3000 photo-like JPEG (gradients plus
// noise, quality 90) carrying EXIF orientation 6. Set IMAGING_BENCH_FILE to
// a path to also write it there (to compare with other tools).
func twelveMegapixelJPEG(b *testing.B) []byte {
	twelveMPOnce.Do(func() {
		twelveMP = withEXIFOrientation(encodeJPEG(b, noisy(4000, 3000, 12, 7), 90), 6, binary.BigEndian)
		if path := os.Getenv("IMAGING_BENCH_FILE"); path != "" {
			if err := os.WriteFile(path, twelveMP, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	return twelveMP
}

func BenchmarkPrepareTwelveMegapixelJPEGWithOrientationSix(b *testing.B) {
	data := twelveMegapixelJPEG(b)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Prepare(ctx, data)
		if err != nil {
			b.Fatal(err)
		}
		if r.Width != 1176 || r.Height != 1568 {
			b.Fatalf("got %dx%d", r.Width, r.Height)
		}
	}
}

// BenchmarkStages splits the 12 MP pipeline into its stages.
func BenchmarkStages(b *testing.B) {
	data := twelveMegapixelJPEG(b)
	img, err := decode(FormatJPEG, data)
	if err != nil {
		b.Fatal(err)
	}
	scaled := resize(img, 1568, 1176)
	turned := orient(scaled, 6)
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decode(FormatJPEG, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resize", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resize(img, 1568, 1176)
		}
	})
	b.Run("orient", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			orient(scaled, 6)
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, _, _, err := encodeCapped(context.Background(), turned, true, MaxOutputBytes); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkScalers compares ways of taking the decoded 12 MP photo to
// 1568x1176: the scalers of x/image/draw alone and after the box prescale,
// and the package's own quality pass after it.
func BenchmarkScalers(b *testing.B) {
	img, err := decode(FormatJPEG, twelveMegapixelJPEG(b))
	if err != nil {
		b.Fatal(err)
	}
	pre := boxShrink(img, 2000, 1500)
	dstRect := image.Rect(0, 0, 1568, 1176)
	for _, c := range []struct {
		name string
		src  image.Image
		s    xdraw.Scaler
	}{
		{"direct ApproxBiLinear", img, xdraw.ApproxBiLinear},
		{"direct BiLinear", img, xdraw.BiLinear},
		{"direct CatmullRom", img, xdraw.CatmullRom},
		{"after box ApproxBiLinear", pre, xdraw.ApproxBiLinear},
		{"after box BiLinear", pre, xdraw.BiLinear},
		{"after box CatmullRom", pre, xdraw.CatmullRom},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dst := image.NewRGBA(dstRect)
				c.s.Scale(dst, dstRect, c.src, c.src.Bounds(), xdraw.Src, nil)
			}
		})
	}
	// Before and after: x/image/draw's CatmullRom was the quality pass; the
	// package's own fixed-point one on 8-bit RGBA is now.
	b.Run("after box fixed-point CatmullRom (the quality pass)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kernelShrink(pre, 1568, 1176)
		}
	})
	b.Run("box prescale alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			boxShrink(img, 2000, 1500)
		}
	})
}
