package imaging

import (
	"image"
	"image/draw"
)

// orient returns img as a viewer shows it for EXIF orientation o (2..8):
//
//	1 as stored          5 transpose (mirror along the main diagonal)
//	2 mirror left-right  6 rotate 90° clockwise
//	3 rotate 180°        7 transverse (mirror along the anti-diagonal)
//	4 mirror top-bottom  8 rotate 90° counter-clockwise
//
// The result is *image.NRGBA for NRGBA input (keeping straight alpha) and
// *image.RGBA otherwise.
func orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	var (
		pix    []uint8
		stride int
		mk     func(image.Rectangle) ([]uint8, int, image.Image)
	)
	b := img.Bounds()
	switch m := img.(type) {
	case *image.NRGBA:
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
		mk = func(r image.Rectangle) ([]uint8, int, image.Image) {
			d := image.NewNRGBA(r)
			return d.Pix, d.Stride, d
		}
	default:
		rgba, ok := img.(*image.RGBA)
		if !ok {
			rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
			draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		}
		pix, stride = rgba.Pix[rgba.PixOffset(rgba.Rect.Min.X, rgba.Rect.Min.Y):], rgba.Stride
		mk = func(r image.Rectangle) ([]uint8, int, image.Image) {
			d := image.NewRGBA(r)
			return d.Pix, d.Stride, d
		}
	}
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dpix, ds, out := mk(image.Rect(0, 0, dw, dh))

	// Stored pixel (x, y) goes to displayed (dx, dy); for each stored row y,
	// start is the offset of (0, y) in dst and step the offset change per x.
	for y := 0; y < h; y++ {
		var start, step int
		switch o {
		case 2: // (w-1-x, y)
			start, step = y*ds+(w-1)*4, -4
		case 3: // (w-1-x, h-1-y)
			start, step = (h-1-y)*ds+(w-1)*4, -4
		case 4: // (x, h-1-y)
			start, step = (h-1-y)*ds, 4
		case 5: // (y, x)
			start, step = y*4, ds
		case 6: // (h-1-y, x)
			start, step = (h-1-y)*4, ds
		case 7: // (h-1-y, w-1-x)
			start, step = (w-1)*ds+(h-1-y)*4, -ds
		case 8: // (y, w-1-x)
			start, step = (w-1)*ds+y*4, -ds
		}
		row := pix[y*stride : y*stride+4*w]
		off := start
		for x := 0; x < 4*w; x += 4 {
			copy(dpix[off:off+4], row[x:x+4])
			off += step
		}
	}
	return out
}

// onCanvas draws img (whose bounds differ from the w x h frame, e.g. a GIF
// frame smaller than its logical screen) onto a transparent w x h canvas.
func onCanvas(img image.Image, w, h int) image.Image {
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, img.Bounds(), img, img.Bounds().Min, draw.Src)
	return dst
}
