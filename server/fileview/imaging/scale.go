package imaging

import (
	"image"
	"image/color"
	"math"
	"runtime"
	"sync"
)

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

// resize scales src to exactly w x h (each at most the source size). Large
// reductions first average k x k blocks with the cheap box filter (exact
// area averaging, one pass over the source, fast paths for the decoders'
// pixel types), which leaves at most PrescaleMinFactor times the target for
// the quality pass: a separable Catmull-Rom filter in fixed point on 8-bit
// premultiplied RGBA (kernelShrink), whose only buffer is one 8-bit image
// of the target's width and the source's height.
func resize(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	k := max(1, min(b.Dx()/w, b.Dy()/h))
	rgba, ok := src.(*image.RGBA)
	if k > 1 || !ok || rgba.Rect.Min != (image.Point{}) {
		// A factor of 1 converts the decoded pixels to RGBA: the quality
		// pass reads only that.
		rgba = boxShrink(src, b.Dx()/k, b.Dy()/k)
	}
	if rgba.Rect.Dx() == w && rgba.Rect.Dy() == h {
		return rgba
	}
	return kernelShrink(rgba, w, h)
}

// weightBits is the fixed point of the quality pass's weights: 14 bits keep
// a sum of eight 8-bit taps within int32 with room for the negative lobes.
const weightBits = 14

// taps is where one output pixel of the quality pass reads: from first,
// one weight per source pixel (summing to 1<<weightBits).
type taps struct {
	first   int
	weights []int32
}

// catmullRom is the Catmull-Rom cubic (B=0, C=1/2), as x/image/draw's.
func catmullRom(t float64) float64 {
	t = math.Abs(t)
	switch {
	case t < 1:
		return (1.5*t-2.5)*t*t + 1
	case t < 2:
		return ((-0.5*t+2.5)*t-4)*t + 2
	}
	return 0
}

// filterTaps computes, for n source pixels scaled to out (out <= n), each
// output pixel's taps: the kernel is stretched by the ratio, so it averages
// as it shrinks, and the weights of pixels beyond the edge are left out and
// the rest renormalized.
func filterTaps(n, out int) []taps {
	ratio := float64(n) / float64(out)
	stretch := max(ratio, 1) // never narrower than the cubic itself
	support := 2 * stretch
	all := make([]taps, out)
	// One backing array for every pixel's weights: at most 4*stretch+1 each.
	backing := make([]int32, 0, out*(int(math.Ceil(2*support))+1))
	var fw []float64
	for i := range all {
		center := (float64(i)+0.5)*ratio - 0.5
		lo := max(0, int(math.Floor(center-support))+1)
		hi := min(n-1, int(math.Ceil(center+support))-1)
		fw = append(fw[:0], make([]float64, hi-lo+1)...)
		var sum float64
		for j := range fw {
			fw[j] = catmullRom((float64(lo+j) - center) / stretch)
			sum += fw[j]
		}
		start := len(backing)
		backing = append(backing, make([]int32, len(fw))...)
		ws := backing[start:len(backing):len(backing)]
		var total int32
		peak := 0
		for j, f := range fw {
			ws[j] = int32(math.Round(f / sum * (1 << weightBits)))
			total += ws[j]
			if ws[j] > ws[peak] {
				peak = j
			}
		}
		ws[peak] += 1<<weightBits - total // the rounding, where it shows least
		all[i] = taps{first: lo, weights: ws}
	}
	return all
}

// kernelShrink scales src (premultiplied, 8-bit, origin at 0,0) to w x h,
// rows first into an 8-bit buffer, then columns.
func kernelShrink(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	xt, yt := filterTaps(sw, w), filterTaps(sh, h)
	tmp := make([]uint8, 4*w*sh)
	inBands(sh, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := src.Pix[y*src.Stride:]
			out := tmp[4*w*y : 4*w*(y+1)]
			for ox, t := range xt {
				var r, g, b, a int32
				px := row[4*t.first:]
				for j, wt := range t.weights {
					p := px[4*j : 4*j+4 : 4*j+4]
					r += wt * int32(p[0])
					g += wt * int32(p[1])
					b += wt * int32(p[2])
					a += wt * int32(p[3])
				}
				putPremultiplied(out[4*ox:4*ox+4:4*ox+4], r, g, b, a)
			}
		}
	})
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	inBands(h, func(oy0, oy1 int) {
		acc := make([]int32, 4*w)
		for oy := oy0; oy < oy1; oy++ {
			t := yt[oy]
			clear(acc)
			for j, wt := range t.weights {
				row := tmp[4*w*(t.first+j) : 4*w*(t.first+j+1)]
				for i, v := range row {
					acc[i] += wt * int32(v)
				}
			}
			out := dst.Pix[oy*dst.Stride : oy*dst.Stride+4*w]
			for i := 0; i+3 < len(acc); i += 4 {
				putPremultiplied(out[i:i+4:i+4], acc[i], acc[i+1], acc[i+2], acc[i+3])
			}
		}
	})
	return dst
}

// bandRows: a band of the quality pass is at least this many rows, so a
// small image is scaled on one goroutine.
const bandRows = 256

// inBands runs f over rows [0, n) split into one band per processor
// (runtime.GOMAXPROCS), at least bandRows each, and returns when all are
// done. Bands write disjoint rows.
func inBands(n int, f func(lo, hi int)) {
	bands := max(1, min(runtime.GOMAXPROCS(0), n/bandRows))
	if bands == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range bands {
		lo, hi := i*n/bands, (i+1)*n/bands
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// putPremultiplied writes one pixel from fixed-point sums, rounded and
// clamped so that it stays a valid premultiplied colour (no channel above
// alpha) where the kernel's negative lobes overshoot.
func putPremultiplied(o []uint8, r, g, b, a int32) {
	const half = 1 << (weightBits - 1)
	ca := clampByte((a+half)>>weightBits, 255)
	o[0] = uint8(clampByte((r+half)>>weightBits, ca))
	o[1] = uint8(clampByte((g+half)>>weightBits, ca))
	o[2] = uint8(clampByte((b+half)>>weightBits, ca))
	o[3] = uint8(ca)
}

func clampByte(v, top int32) int32 {
	return max(0, min(v, top))
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
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	inBands(h, func(oy0, oy1 int) { boxRowsYCbCr(m, dst, xs, ys, cxs0, cxs1, sx, sy, oy0, oy1) })
	return dst
}

// boxRowsYCbCr writes output rows [oy0, oy1) of boxShrinkYCbCr.
func boxRowsYCbCr(m *image.YCbCr, dst *image.RGBA, xs, ys, cxs0, cxs1 []int, sx, sy uint, oy0, oy1 int) {
	w, sw := dst.Rect.Dx(), m.Rect.Dx()
	ySum := make([]uint32, w)
	cbSum := make([]uint32, w)
	crSum := make([]uint32, w)
	for oy := oy0; oy < oy1; oy++ {
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
