package imaging

import (
	"context"
	"image"
)

// Thumbnail is data as a small picture for a person to recognise it by:
// upright, its long edge at most maxEdge, re-encoded (JPEG for photos, PNG
// otherwise) in at most maxBytes. It checks, decodes and fails as Prepare
// does; only the first frame or page is drawn.
func Thumbnail(ctx context.Context, data []byte, maxEdge, maxBytes int) (*Result, error) {
	h, img, res, err := opened(ctx, data)
	if err != nil {
		return nil, err
	}
	photo := isPhoto(h.format, img)
	res.Reencoded = true
	if b := img.Bounds(); b != image.Rect(0, 0, h.width, h.height) {
		img = onCanvas(img, h.width, h.height)
	}
	if w, hh, scaled := fitLongEdge(h.width, h.height, maxEdge); scaled {
		img, res.Scaled = resize(img, w, hh), true
	}
	if h.orientation > 1 {
		img, res.Turned = orient(img, h.orientation), true
	}
	out, img, quality, shrunk, err := encodeCapped(ctx, img, photo, maxBytes)
	if err != nil {
		return nil, err
	}
	res.Data, res.Bytes, res.Scaled = out, len(out), res.Scaled || shrunk
	res.Width, res.Height = img.Bounds().Dx(), img.Bounds().Dy()
	res.OutputFormat, res.Quality = FormatPNG, 0
	if photo {
		res.OutputFormat, res.Quality = FormatJPEG, quality
	}
	res.MIMEType = mimeTypes[res.OutputFormat]
	return res, nil
}
