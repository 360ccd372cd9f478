package imaging

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
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

func TestTheQualityPassAgreesWithXImageDrawsCatmullRomOnASmoothImage(t *testing.T) {
	const w, h = 301, 211
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			src.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) * 127 / (w + h)), 255})
		}
	}
	for _, size := range []image.Point{{250, 180}, {160, 111}, {301, 100}, {151, 211}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			ours := kernelShrink(src, size.X, size.Y)
			theirs := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
			xdraw.CatmullRom.Scale(theirs, theirs.Bounds(), src, src.Bounds(), xdraw.Src, nil)
			for i := range ours.Pix {
				if d := int(ours.Pix[i]) - int(theirs.Pix[i]); d > 2 || d < -2 {
					t.Fatalf("byte %d (pixel %d,%d): ours %d, x/image/draw %d", i, i/4%size.X, i/4/size.X, ours.Pix[i], theirs.Pix[i])
				}
			}
		})
	}
}

func TestTheQualityPassKeepsAFlatImageFlatAndEveryColourValidlyPremultiplied(t *testing.T) {
	const w, h = 97, 61
	flat := image.NewRGBA(image.Rect(0, 0, w, h))
	edgy := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(3, 4))
	for y := range h {
		for x := range w {
			flat.SetRGBA(x, y, color.RGBA{40, 80, 120, 200})
			// Hard edges of random colour and alpha: the cubic's negative
			// lobes overshoot at every one.
			a := uint8(rng.IntN(2) * 255)
			edgy.SetRGBA(x, y, color.RGBA{a, uint8(rng.IntN(int(a) + 1)), 0, a})
		}
	}
	for _, size := range []image.Point{{60, 40}, {33, 21}, {97, 30}} {
		out := kernelShrink(flat, size.X, size.Y)
		for i := 0; i < len(out.Pix); i += 4 {
			if c := out.Pix[i : i+4]; c[0] != 40 || c[1] != 80 || c[2] != 120 || c[3] != 200 {
				t.Fatalf("%v: a flat image became %v at pixel %d", size, c, i/4)
			}
		}
		out = kernelShrink(edgy, size.X, size.Y)
		for i := 0; i < len(out.Pix); i += 4 {
			if c := out.Pix[i : i+4]; c[0] > c[3] || c[1] > c[3] || c[2] > c[3] {
				t.Fatalf("%v: pixel %d is %v, a colour above its alpha", size, i/4, c)
			}
		}
	}
}
