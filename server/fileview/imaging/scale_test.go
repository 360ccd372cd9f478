package imaging

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"math/rand/v2"
	"testing"
)

// hidden hides an image's concrete type, forcing the generic (At) path.
type hidden struct{ image.Image }

func TestTheBoxPrescaleFastPathsAgreeWithTheGenericPath(t *testing.T) {
	const w, h = 37, 23
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(m interface{ Set(x, y int, c color.Color) }, opaque bool) {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				a := uint8(255)
				if !opaque {
					a = uint8(rng.IntN(256))
				}
				m.Set(x, y, color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), a})
			}
		}
	}
	rect := image.Rect(0, 0, w, h)
	rgba := image.NewRGBA(rect)
	fill(rgba, false)
	nrgba := image.NewNRGBA(rect)
	fill(nrgba, false)
	gray := image.NewGray(rect)
	fill(gray, true)
	pal := image.NewPaletted(rect, palette.WebSafe)
	fill(pal, true)
	rgba64 := image.NewRGBA64(rect)
	fill(rgba64, false)
	nrgba64 := image.NewNRGBA64(rect)
	fill(nrgba64, false)
	gray16 := image.NewGray16(rect)
	fill(gray16, true)
	cmyk := image.NewCMYK(rect)
	fill(cmyk, true)
	imgs := []image.Image{rgba, nrgba, gray, pal, rgba64, nrgba64, gray16, cmyk}
	for _, r := range []image.YCbCrSubsampleRatio{
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
	} {
		// Random luma, smooth chroma (as in photos), all in a range whose
		// RGB does not clamp: there averaging YCbCr equals averaging RGB.
		m := image.NewYCbCr(rect, r)
		for i := range m.Y {
			m.Y[i] = uint8(100 + rng.IntN(56))
		}
		for i := range m.Cb {
			cx, cy := i%m.CStride, i/m.CStride
			m.Cb[i], m.Cr[i] = uint8(110+cx+cy), uint8(150-cx-cy/2)
		}
		imgs = append(imgs, m)
	}
	for _, m := range imgs {
		for _, size := range []image.Point{{12, 7}, {18, 11}, {37, 23}, {5, 20}} {
			t.Run(fmt.Sprintf("%T %v", m, size), func(t *testing.T) {
				fast := boxShrink(m, size.X, size.Y)
				slow := boxShrink(hidden{m}, size.X, size.Y)
				tol := 1
				if _, ok := m.(*image.YCbCr); ok {
					tol = 3 // averaged before instead of after the colour conversion
				}
				for i := range fast.Pix {
					if d := int(fast.Pix[i]) - int(slow.Pix[i]); d > tol || d < -tol {
						t.Fatalf("byte %d: fast %d, generic %d", i, fast.Pix[i], slow.Pix[i])
					}
				}
			})
		}
	}
}

func TestFitLongEdgeKeepsTheAspectRatio(t *testing.T) {
	for _, c := range []struct{ w, h, ww, wh int }{
		{4000, 3000, 1568, 1176},
		{3000, 4000, 1176, 1568},
		{1568, 1568, 1568, 1568},
		{100000, 1, 1568, 1},
		{1, 100000, 1, 1568},
		{1600, 900, 1568, 882},
	} {
		w, h, _ := fitLongEdge(c.w, c.h, MaxLongEdge)
		if w != c.ww || h != c.wh {
			t.Errorf("%dx%d -> %dx%d, want %dx%d", c.w, c.h, w, h, c.ww, c.wh)
		}
	}
}

func TestTurningKeepsStraightAlphaAndTheImageType(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	m.SetNRGBA(0, 0, color.NRGBA{200, 100, 50, 10})
	out, ok := orient(m, 6).(*image.NRGBA)
	if !ok || out.Rect.Dx() != 2 || out.Rect.Dy() != 3 {
		t.Fatalf("got %T %v", out, out.Bounds())
	}
	if c := out.NRGBAAt(1, 0); c != (color.NRGBA{200, 100, 50, 10}) {
		t.Errorf("top-right is %v", c)
	}
	sub := image.NewRGBA(image.Rect(0, 0, 10, 10)).SubImage(image.Rect(3, 4, 6, 6))
	if b := orient(sub, 8).Bounds(); b != image.Rect(0, 0, 2, 3) {
		t.Errorf("sub-image turned to %v", b)
	}
}
