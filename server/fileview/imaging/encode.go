package imaging

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
)

var pngEncoder = png.Encoder{CompressionLevel: png.DefaultCompression}

// encodeCapped encodes img as JPEG (photo) or PNG and keeps it within
// maxBytes (MaxOutputBytes but in tests): a JPEG first gives up quality in JPEGQualityStep steps
// down to MinJPEGQuality, then (like a PNG right away) is scaled down by
// the square root of the size excess (times ShrinkMargin), at most
// MaxEncodeAttempts encodes in all. It returns the bytes, the image they
// encode, the JPEG quality used and whether it had to scale down.
func encodeCapped(ctx context.Context, img image.Image, photo bool, maxBytes int) ([]byte, image.Image, int, bool, error) {
	quality := JPEGQuality
	shrunk := false
	last := 0
	for attempt := 0; attempt < MaxEncodeAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, false, err
		}
		b := img.Bounds()
		buf := bytes.NewBuffer(make([]byte, 0, initialBufferSize(b.Dx(), b.Dy(), photo, maxBytes)))
		var err error
		if photo {
			err = jpeg.Encode(buf, img, &jpeg.Options{Quality: quality})
		} else {
			err = pngEncoder.Encode(buf, img)
		}
		if err != nil {
			return nil, nil, 0, false, fmt.Errorf("imaging: encoding: %w", err)
		}
		last = buf.Len()
		if last <= maxBytes {
			if !photo {
				quality = 0
			}
			return buf.Bytes(), img, quality, shrunk, nil
		}
		if photo && quality > MinJPEGQuality {
			quality = max(MinJPEGQuality, quality-JPEGQualityStep)
			continue
		}
		f := math.Sqrt(float64(maxBytes)/float64(last)) * ShrinkMargin
		f = max(f, MinShrinkFactor)
		w := max(1, int(float64(b.Dx())*f))
		h := max(1, int(float64(b.Dy())*f))
		if w == b.Dx() && h == b.Dy() {
			break // cannot get smaller
		}
		img = resize(img, w, h)
		shrunk = true
	}
	return nil, nil, 0, false, fmt.Errorf("%w: still %d bytes after %d attempts, limit %d",
		ErrTooLarge, last, MaxEncodeAttempts, maxBytes)
}

// initialBufferSize guesses the encoded size so the buffer rarely grows:
// about 1.5 bits per pixel for a JPEG photo, 1 byte per pixel for a PNG,
// never more than the cap plus one growth.
func initialBufferSize(w, h int, photo bool, maxBytes int) int {
	n := w * h
	if photo {
		n /= 4
	}
	return min(n+4096, maxBytes)
}
