package imaging

import (
	"image"
	"image/color"
	"math"

	xdraw "golang.org/x/image/draw"
)

// finalScaler is the quality pass that brings the (box-prescaled) image to
// its exact size. The prescale leaves a ratio below PrescaleMinFactor for it,
// where CatmullRom is sharp and still cheap (see BenchmarkScalers).
var finalScaler xdraw.Scaler = xdraw.CatmullRom

// fitLongEdge returns the dimensions of a w x h image scaled so that its
// long edge is at most maxEdge, keeping the aspect ratio (each edge >= 1).
func fitLongEdge(w, h, maxEdge int) (int, int, bool) {
	long := max(w, h)
	if long <= maxEdge {
		return w, h, false
	}
	s := float64(maxEdge) / float64(long)
	nw := max(1, int(math.Round(float64(w)*s)))
	nh := max(1, int(math.Round(float64(h)*s)))
	if w >= h {
		nw = maxEdge
	} else {
		nh = maxEdge
	}
	return nw, nh, true
}

// resize scales src to exactly w x h. Large reductions first average k x k
// blocks (exact area averaging, one pass over the source, fast paths for
// the decoders' pixel types), which leaves a ratio below PrescaleMinFactor
// for the finalScaler.
func resize(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	k := min(b.Dx()/w, b.Dy()/h)
	if k >= PrescaleMinFactor {
		src = boxShrink(src, b.Dx()/k, b.Dy()/k)
		b = src.Bounds()
		if b.Dx() == w && b.Dy() == h {
			return src.(*image.RGBA)
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	finalScaler.Scale(dst, dst.Bounds(), src, b, xdraw.Src, nil)
	return dst
}

// blockEdges splits n source pixels into out blocks of (almost) equal size
// and returns the out+1 edges, relative to the origin.
func blockEdges(n, out int) []int {
	e := make([]int, out+1)
	for i := range e {
		e[i] = i * n / out
	}
	return e
}

// boxShrink averages src down to w x h (each at most the source size) into
// a premultiplied RGBA image.
func boxShrink(src image.Image, w, h int) *image.RGBA {
	if m, ok := src.(*image.YCbCr); ok && m.Rect.Min == (image.Point{}) {
		if sx, sy, ok := chromaShift(m.SubsampleRatio); ok {
			return boxShrinkYCbCr(m, w, h, sx, sy)
		}
	}
	return boxShrinkRGBA(src, w, h)
}

// chromaShift returns the log2 horizontal and vertical chroma subsampling.
func chromaShift(r image.YCbCrSubsampleRatio) (uint, uint, bool) {
	switch r {
	case image.YCbCrSubsampleRatio444:
		return 0, 0, true
	case image.YCbCrSubsampleRatio422:
		return 1, 0, true
	case image.YCbCrSubsampleRatio420:
		return 1, 1, true
	case image.YCbCrSubsampleRatio440:
		return 0, 1, true
	case image.YCbCrSubsampleRatio411:
		return 2, 0, true
	case image.YCbCrSubsampleRatio410:
		return 2, 1, true
	}
	return 0, 0, false
}

// boxShrinkYCbCr averages luma and chroma planes separately (averaging is
// linear, so this equals averaging RGB before clamping) and converts only
// the output pixels. m.Rect.Min must be the origin.
func boxShrinkYCbCr(m *image.YCbCr, w, h int, sx, sy uint) *image.RGBA {
	sw, sh := m.Rect.Dx(), m.Rect.Dy()
	xs, ys := blockEdges(sw, w), blockEdges(sh, h)
	cxs0, cxs1 := make([]int, w), make([]int, w)
	for i := 0; i < w; i++ {
		cxs0[i] = xs[i] >> sx
		cxs1[i] = (xs[i+1]-1)>>sx + 1
	}
	ySum := make([]uint32, w)
	cbSum := make([]uint32, w)
	crSum := make([]uint32, w)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for oy := 0; oy < h; oy++ {
		y0, y1 := ys[oy], ys[oy+1]
		clear(ySum)
		clear(cbSum)
		clear(crSum)
		for y := y0; y < y1; y++ {
			row := m.Y[y*m.YStride : y*m.YStride+sw]
			for ox := 0; ox < w; ox++ {
				var s uint32
				for _, v := range row[xs[ox]:xs[ox+1]] {
					s += uint32(v)
				}
				ySum[ox] += s
			}
		}
		cy0, cy1 := y0>>sy, (y1-1)>>sy+1
		for cy := cy0; cy < cy1; cy++ {
			cb := m.Cb[cy*m.CStride:]
			cr := m.Cr[cy*m.CStride:]
			for ox := 0; ox < w; ox++ {
				var sb, sr uint32
				c0, c1 := cxs0[ox], cxs1[ox]
				for _, v := range cb[c0:c1] {
					sb += uint32(v)
				}
				for _, v := range cr[c0:c1] {
					sr += uint32(v)
				}
				cbSum[ox] += sb
				crSum[ox] += sr
			}
		}
		out := dst.Pix[oy*dst.Stride : oy*dst.Stride+4*w]
		rows := uint32(y1 - y0)
		crows := uint32(cy1 - cy0)
		for ox := 0; ox < w; ox++ {
			n := rows * uint32(xs[ox+1]-xs[ox])
			cn := crows * uint32(cxs1[ox]-cxs0[ox])
			yy := uint8((ySum[ox] + n/2) / n)
			cb := uint8((cbSum[ox] + cn/2) / cn)
			cr := uint8((crSum[ox] + cn/2) / cn)
			r, g, b := color.YCbCrToRGB(yy, cb, cr)
			o := out[4*ox : 4*ox+4 : 4*ox+4]
			o[0], o[1], o[2], o[3] = r, g, b, 0xff
		}
	}
	return dst
}

// boxShrinkRGBA converts each source row to premultiplied 8-bit RGBA (fast
// paths for the common decoded types, At for the rest) and accumulates it.
func boxShrinkRGBA(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	xs, ys := blockEdges(sw, w), blockEdges(sh, h)
	row := make([]uint8, 4*sw)
	sums := make([]uint64, 4*w)
	conv := rowConverter(src)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for oy := 0; oy < h; oy++ {
		y0, y1 := ys[oy], ys[oy+1]
		clear(sums)
		for y := y0; y < y1; y++ {
			conv(row, b.Min.Y+y)
			for ox := 0; ox < w; ox++ {
				var r, g, bb, a uint64
				px := row[4*xs[ox] : 4*xs[ox+1]]
				for i := 0; i+3 < len(px); i += 4 {
					r += uint64(px[i])
					g += uint64(px[i+1])
					bb += uint64(px[i+2])
					a += uint64(px[i+3])
				}
				s := sums[4*ox : 4*ox+4 : 4*ox+4]
				s[0] += r
				s[1] += g
				s[2] += bb
				s[3] += a
			}
		}
		out := dst.Pix[oy*dst.Stride : oy*dst.Stride+4*w]
		rows := uint64(y1 - y0)
		for ox := 0; ox < w; ox++ {
			n := rows * uint64(xs[ox+1]-xs[ox])
			for c := 0; c < 4; c++ {
				out[4*ox+c] = uint8((sums[4*ox+c] + n/2) / n)
			}
		}
	}
	return dst
}

// rowConverter returns a function writing row y of src (all of its columns)
// as premultiplied 8-bit RGBA into dst (len 4*width).
func rowConverter(src image.Image) func(dst []uint8, y int) {
	b := src.Bounds()
	switch m := src.(type) {
	case *image.RGBA:
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			copy(dst, m.Pix[i:i+len(dst)])
		}
	case *image.NRGBA:
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+len(dst)]
			for j := 0; j+3 < len(s); j += 4 {
				a := uint32(s[j+3])
				dst[j] = uint8((uint32(s[j])*a + 127) / 255)
				dst[j+1] = uint8((uint32(s[j+1])*a + 127) / 255)
				dst[j+2] = uint8((uint32(s[j+2])*a + 127) / 255)
				dst[j+3] = uint8(a)
			}
		}
	case *image.Gray:
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+len(dst)/4]
			for j, v := range s {
				dst[4*j], dst[4*j+1], dst[4*j+2], dst[4*j+3] = v, v, v, 0xff
			}
		}
	case *image.RGBA64: // 16-bit PNG without alpha channel, premultiplied
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+2*len(dst)]
			for j := range dst {
				dst[j] = s[2*j] // high byte of each big-endian channel
			}
		}
	case *image.NRGBA64: // 16-bit PNG with alpha
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+2*len(dst)]
			for j := 0; j+3 < len(dst); j += 4 {
				a := uint32(s[2*j+6])<<8 | uint32(s[2*j+7])
				for c := 0; c < 3; c++ {
					v := uint32(s[2*(j+c)])<<8 | uint32(s[2*(j+c)+1])
					dst[j+c] = uint8(v * a / 0xffff >> 8)
				}
				dst[j+3] = uint8(a >> 8)
			}
		}
	case *image.Gray16:
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+len(dst)/2]
			for j := 0; j < len(s)/2; j++ {
				v := s[2*j]
				dst[4*j], dst[4*j+1], dst[4*j+2], dst[4*j+3] = v, v, v, 0xff
			}
		}
	case *image.Paletted:
		var lut [256][4]uint8
		for i, c := range m.Palette {
			if i >= len(lut) {
				break
			}
			r, g, bb, a := c.RGBA()
			lut[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8), uint8(a >> 8)}
		}
		return func(dst []uint8, y int) {
			i := m.PixOffset(b.Min.X, y)
			s := m.Pix[i : i+len(dst)/4]
			for j, v := range s {
				copy(dst[4*j:4*j+4], lut[v][:]) // out-of-palette indices are transparent black
			}
		}
	}
	return func(dst []uint8, y int) {
		for j := 0; j < len(dst)/4; j++ {
			r, g, bb, a := src.At(b.Min.X+j, y).RGBA()
			dst[4*j], dst[4*j+1], dst[4*j+2], dst[4*j+3] = uint8(r>>8), uint8(g>>8), uint8(bb>>8), uint8(a>>8)
		}
	}
}
