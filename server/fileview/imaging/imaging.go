// Package imaging turns the bytes of an attached image into an image every
// MCP client accepts: upright (EXIF orientation applied), scaled to at most
// MaxLongEdge pixels on its long edge, encoded in at most MaxOutputBytes, in
// a format clients take (PNG, JPEG, GIF or WebP).
//
// It reads PNG, JPEG, GIF (first frame), WebP (still), BMP and TIFF (first
// page). Dimensions are read from the header and checked against MaxPixels
// before anything is decoded. The package is pure: no I/O, no globals that
// change, safe for concurrent use.
package imaging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// Format names, as reported in Result.Format and by Config.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatGIF  = "gif"
	FormatWebP = "webp"
	FormatBMP  = "bmp"
	FormatTIFF = "tiff"
)

var (
	// ErrTooManyPixels: the header claims more than MaxPixels pixels; the
	// image was not decoded.
	ErrTooManyPixels = errors.New("imaging: image has too many pixels")
	// ErrUnsupported: not one of the formats this package reads (HEIC, AVIF,
	// SVG, animated WebP, ...).
	ErrUnsupported = errors.New("imaging: unsupported image format")
	// ErrCorrupt: the data claims a supported format but its header or its
	// pixel data cannot be decoded.
	ErrCorrupt = errors.New("imaging: corrupt image")
	// ErrTooLarge: no encoding within MaxOutputBytes was found in
	// MaxEncodeAttempts attempts (not expected from real images).
	ErrTooLarge = errors.New("imaging: image cannot be encoded small enough")
)

// Result is a prepared image and what was done to produce it.
type Result struct {
	// Data is the image to send. When Reencoded is false it is the input
	// slice itself (not a copy).
	Data []byte
	// MIMEType is the type of Data: image/png, image/jpeg, image/gif or
	// image/webp.
	MIMEType string
	// Format is the format of the input: "png", "jpeg", "gif", "webp",
	// "bmp" or "tiff".
	Format string
	// OutputFormat is the format of Data (same names as Format).
	OutputFormat string

	// OriginalWidth and OriginalHeight are the dimensions as stored, before
	// orientation; Width and Height those of Data, as displayed.
	OriginalWidth, OriginalHeight int
	Width, Height                 int

	// OriginalBytes is len of the input, Bytes len(Data).
	OriginalBytes, Bytes int

	// Orientation is the EXIF orientation found (1..8), 0 when none.
	Orientation int

	// Turned: an orientation other than 1 was applied. Scaled: the pixel
	// dimensions were reduced. Reencoded: Data is not the input.
	Turned, Scaled, Reencoded bool

	// Frames is the GIF frame count, the TIFF page count (IFD chain), 1
	// otherwise. Only the first frame or page is returned.
	Frames int

	// Quality is the JPEG quality used when OutputFormat is "jpeg" and the
	// image was re-encoded, 0 otherwise.
	Quality int
}

// header is what is known about an input before decoding its pixels.
type header struct {
	format        string
	width, height int
	orientation   int
	frames        int
	webp          webpInfo
}

// Config reports the format and the stored dimensions (before orientation)
// read from the header, without decoding pixels. It returns ErrUnsupported
// for formats Prepare does not read, ErrCorrupt for an unreadable header,
// and ErrTooManyPixels (with format, width and height still set) when the
// image is larger than MaxPixels.
func Config(data []byte) (format string, width, height int, err error) {
	format, err = sniff(data)
	if err != nil {
		return "", 0, 0, err
	}
	width, height, err = decodeConfig(format, data)
	if err != nil {
		return format, 0, 0, err
	}
	if format == FormatWebP && parseWebP(data).animated {
		return format, width, height, fmt.Errorf("%w: animated webp", ErrUnsupported)
	}
	return format, width, height, checkPixels(format, width, height)
}

// Prepare decodes data, applies its EXIF orientation, scales it to at most
// MaxLongEdge on the long edge and encodes it in at most MaxOutputBytes. An
// image that needs none of this is returned as given (Reencoded false), but
// is still decoded once, so corrupt data is an error either way.
//
// Errors wrap ErrUnsupported, ErrTooManyPixels, ErrCorrupt or ErrTooLarge;
// a cancelled ctx returns ctx.Err().
func Prepare(ctx context.Context, data []byte) (*Result, error) {
	h, img, res, err := opened(ctx, data)
	if err != nil {
		return nil, err
	}
	photo := isPhoto(h.format, img) // decided before scaling changes the type

	upright := h.orientation <= 1
	if upright && h.frames == 1 && max(h.width, h.height) <= MaxLongEdge &&
		len(data) <= MaxOutputBytes && passThrough(h.format) {
		res.Data = data
		res.MIMEType = mimeTypes[h.format]
		res.OutputFormat = h.format
		res.Width, res.Height = h.width, h.height
		res.Bytes = len(data)
		return res, nil
	}

	// A GIF frame may cover only part of the logical screen: place it on
	// a screen-sized canvas so the output has the stored dimensions.
	if b := img.Bounds(); b != image.Rect(0, 0, h.width, h.height) {
		img = onCanvas(img, h.width, h.height)
	}

	if w, hh, scaled := fitLongEdge(h.width, h.height, MaxLongEdge); scaled {
		img = resize(img, w, hh)
		res.Scaled = true
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}

	if !upright {
		img = orient(img, h.orientation)
		res.Turned = true
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}

	out, img, quality, shrunk, err := encodeCapped(ctx, img, photo, MaxOutputBytes)
	if err != nil {
		return nil, err
	}
	res.Scaled = res.Scaled || shrunk
	res.Data = out
	res.Bytes = len(out)
	res.Reencoded = true
	res.Width, res.Height = img.Bounds().Dx(), img.Bounds().Dy()
	if photo {
		res.OutputFormat, res.Quality = FormatJPEG, quality
	} else {
		res.OutputFormat = FormatPNG
	}
	res.MIMEType = mimeTypes[res.OutputFormat]
	return res, nil
}

var mimeTypes = map[string]string{
	FormatPNG:  "image/png",
	FormatJPEG: "image/jpeg",
	FormatGIF:  "image/gif",
	FormatWebP: "image/webp",
	FormatBMP:  "image/bmp",
	FormatTIFF: "image/tiff",
}

// passThrough reports whether clients accept the format as it is.
func passThrough(format string) bool {
	switch format {
	case FormatPNG, FormatJPEG, FormatGIF, FormatWebP:
		return true
	}
	return false
}

// isPhoto reports whether the image came from a lossy photo encoding and
// has no alpha, so it is re-encoded as JPEG; everything else goes to PNG.
// opened checks data's header and decodes it, as Prepare and Thumbnail
// both begin, with a cancelled ctx checked between the steps, and starts
// the Result with what the original is.
func opened(ctx context.Context, data []byte) (header, image.Image, *Result, error) {
	if err := ctx.Err(); err != nil {
		return header{}, nil, nil, err
	}
	h, err := inspect(data)
	if err != nil {
		return header{}, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return header{}, nil, nil, err
	}
	img, err := decode(h.format, data)
	if err != nil {
		return header{}, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return header{}, nil, nil, err
	}
	return h, img, &Result{
		Format: h.format, OriginalWidth: h.width, OriginalHeight: h.height, OriginalBytes: len(data),
		Orientation: h.orientation, Frames: h.frames,
	}, nil
}

func isPhoto(format string, img image.Image) bool {
	switch format {
	case FormatJPEG:
		return true
	case FormatWebP:
		// Lossy WebP decodes to YCbCr (NYCbCrA when it has alpha), lossless
		// WebP to NRGBA.
		_, lossy := img.(*image.YCbCr)
		return lossy
	}
	return false
}

// inspect reads everything that is known without decoding pixels and
// enforces MaxPixels.
func inspect(data []byte) (header, error) {
	var h header
	format, err := sniff(data)
	if err != nil {
		return h, err
	}
	h.format = format
	h.width, h.height, err = decodeConfig(format, data)
	if err != nil {
		return h, err
	}
	if err := checkPixels(format, h.width, h.height); err != nil {
		return h, err
	}
	h.frames = 1
	switch format {
	case FormatJPEG:
		h.orientation = jpegOrientation(data)
	case FormatTIFF:
		h.orientation = tiffOrientation(data)
		h.frames = max(1, tiffPages(data))
	case FormatWebP:
		h.webp = parseWebP(data)
		if h.webp.animated {
			return h, fmt.Errorf("%w: animated webp", ErrUnsupported)
		}
		h.orientation = h.webp.orientation
	case FormatGIF:
		h.frames = max(1, gifFrames(data))
	}
	return h, nil
}

func checkPixels(format string, w, h int) error {
	if int64(w)*int64(h) > MaxPixels {
		return fmt.Errorf("%w: %s is %dx%d (%d pixels), limit %d",
			ErrTooManyPixels, format, w, h, int64(w)*int64(h), MaxPixels)
	}
	return nil
}

// sniff identifies the format from its magic bytes.
func sniff(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG, nil
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return FormatGIF, nil
	case len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return FormatWebP, nil
	case bytes.HasPrefix(data, []byte("BM")):
		return FormatBMP, nil
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return FormatTIFF, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnsupported, describeUnknown(data))
}

// describeUnknown names a few formats that are commonly attached but not
// supported, for a more helpful error.
func describeUnknown(data []byte) string {
	head := data[:min(len(data), 512)]
	switch {
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		switch string(data[8:12]) {
		case "avif", "avis":
			return "avif"
		case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1":
			return "heic/heif"
		}
		return "iso media (" + sanitize(data[8:12]) + ")"
	case bytes.Contains(head, []byte("<svg")):
		return "svg"
	case bytes.HasPrefix(data, []byte("II\x2B\x00")), bytes.HasPrefix(data, []byte("MM\x00\x2B")):
		return "bigtiff"
	case bytes.HasPrefix(data, []byte{0xFF, 0x0A}), bytes.HasPrefix(data, []byte("\x00\x00\x00\x0cJXL ")):
		return "jpeg xl"
	case bytes.HasPrefix(data, []byte("%PDF")):
		return "pdf"
	case len(data) == 0:
		return "empty data"
	}
	return "unrecognized data"
}

func sanitize(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		out[i] = c
	}
	return string(out)
}

func decodeConfig(format string, data []byte) (int, int, error) {
	r := bytes.NewReader(data)
	var (
		c   image.Config
		err error
	)
	switch format {
	case FormatPNG:
		c, err = png.DecodeConfig(r)
	case FormatJPEG:
		c, err = jpeg.DecodeConfig(r)
	case FormatGIF:
		c, err = gif.DecodeConfig(r)
	case FormatWebP:
		c, err = webp.DecodeConfig(r)
	case FormatBMP:
		c, err = bmp.DecodeConfig(r)
	case FormatTIFF:
		c, err = tiff.DecodeConfig(r)
	default:
		return 0, 0, fmt.Errorf("%w: %s", ErrUnsupported, format)
	}
	if err != nil {
		if isUnsupportedDecodeError(err) {
			return 0, 0, fmt.Errorf("%w: %s: %v", ErrUnsupported, format, err)
		}
		return 0, 0, fmt.Errorf("%w: %s header: %w", ErrCorrupt, format, err)
	}
	if c.Width <= 0 || c.Height <= 0 {
		return 0, 0, fmt.Errorf("%w: %s header: %dx%d", ErrCorrupt, format, c.Width, c.Height)
	}
	return c.Width, c.Height, nil
}

func decode(format string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	var (
		m   image.Image
		err error
	)
	switch format {
	case FormatPNG:
		m, err = png.Decode(r)
	case FormatJPEG:
		m, err = jpeg.Decode(r)
	case FormatGIF:
		m, err = gif.Decode(r)
	case FormatWebP:
		m, err = webp.Decode(r)
	case FormatBMP:
		m, err = bmp.Decode(r)
	case FormatTIFF:
		m, err = tiff.Decode(r)
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, format)
	}
	if err != nil {
		if isUnsupportedDecodeError(err) {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnsupported, format, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, format, err)
	}
	if b := m.Bounds(); b.Empty() {
		return nil, fmt.Errorf("%w: %s: empty image", ErrCorrupt, format)
	}
	return m, nil
}

// isUnsupportedDecodeError reports the decoders' "valid but not handled"
// errors (e.g. 12-bit JPEG, an unusual TIFF compression), so callers can
// tell them from corrupt data.
func isUnsupportedDecodeError(err error) bool {
	var (
		je jpeg.UnsupportedError
		pe png.UnsupportedError
		te tiff.UnsupportedError
	)
	return errors.As(err, &je) || errors.As(err, &pe) || errors.As(err, &te) ||
		errors.Is(err, bmp.ErrUnsupported)
}
