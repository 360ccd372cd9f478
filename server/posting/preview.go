package posting

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // decodes what imaging.Prepare hands back unchanged
	"image/jpeg"
	"image/png"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // as above

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
)

// Limits of what a pending post keeps to show the person its files. They are
// computed once, when the post is staged, and stored in the record, because
// sources are read only twice (stage and post) and handles are single-use.
const (
	// PreviewLines is how many first lines of a text file are shown: enough
	// to recognise the file, few enough to read before answering.
	PreviewLines = 12
	// PreviewBytes bounds a preview whatever its lines are like (minified
	// files are one long line); ten files stay small in one KV record.
	PreviewBytes = 2 << 10
	// previewScanBytes is how much of a text file is decoded to find its
	// first lines: more than PreviewBytes in any encoding (UTF-16 doubles).
	previewScanBytes = 4 * PreviewBytes
	// ThumbnailEdge is the long edge of a thumbnail: recognisable on a
	// page, and a few tens of KiB.
	ThumbnailEdge = 320
	// MaxThumbnailBytes bounds one stored thumbnail so ten of them still fit
	// a KV record comfortably.
	MaxThumbnailBytes = 64 << 10
	// thumbnailQuality is the JPEG quality tried first; thumbnailMinQuality
	// the last before giving up on a thumbnail rather than showing mush.
	thumbnailQuality    = 80
	thumbnailMinQuality = 50
)

// addPreview fills the preview of a text file or the thumbnail of an image.
// A file that cannot be previewed (binary, corrupt, over the pixel cap) gets
// none and is still staged.
func addPreview(ctx context.Context, s *Staged, data []byte) {
	kind, _, _ := fileview.Sniff(data, s.Name)
	switch kind {
	case fileview.KindText:
		s.Preview = TextPreview(data)
	case fileview.KindImage:
		if b, typ, ok := Thumbnail(ctx, data); ok {
			s.Thumbnail, s.ThumbnailType = b, typ
		}
	}
}

// TextPreview is the first PreviewLines lines of a text file, at most
// PreviewBytes, cut at a character boundary, with "…" when something was
// left out.
func TextPreview(data []byte) string {
	text := decodeText(data[:min(len(data), previewScanBytes)])
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	cut := len(data) > previewScanBytes
	lines := strings.SplitN(text, "\n", PreviewLines+1)
	if len(lines) > PreviewLines {
		lines, cut = lines[:PreviewLines], cut || strings.TrimSpace(lines[PreviewLines]) != ""
	}
	out := strings.Join(lines, "\n")
	if len(out) > PreviewBytes {
		end := PreviewBytes
		for end > 0 && !utf8.RuneStart(out[end]) {
			end--
		}
		out, cut = out[:end], true
	}
	out = strings.TrimRight(out, "\n")
	if cut {
		out += "\n…"
	}
	return out
}

// decodeText turns the start of a text file into UTF-8 (BOMs, UTF-16 and
// Windows-1252, as fileview reads them); a character cut at the end of the
// scanned part becomes nothing.
func decodeText(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF):
		le := data[0] == 0xFF
		data = data[2:]
		units := make([]uint16, 0, len(data)/2)
		for i := 0; i+1 < len(data); i += 2 {
			if le {
				units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
			} else {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			}
		}
		return string(utf16.Decode(units))
	}
	// A UTF-8 character cut by the scan is dropped, not replaced.
	if utf8.Valid(data) {
		return string(data)
	}
	for cut := 1; cut < utf8.UTFMax && cut <= len(data); cut++ {
		tail := data[len(data)-cut:]
		if utf8.RuneStart(tail[0]) && !utf8.FullRune(tail) && utf8.Valid(data[:len(data)-cut]) {
			return string(data[:len(data)-cut])
		}
	}
	var b strings.Builder
	for _, c := range data {
		if c >= 0x80 && c < 0xA0 {
			b.WriteRune(windows1252[c-0x80])
			continue
		}
		b.WriteRune(rune(c))
	}
	return b.String()
}

// windows1252 maps 0x80..0x9F, where Windows-1252 differs from Latin-1.
var windows1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

// Thumbnail turns an image upright (imaging reads it, applying EXIF
// orientation and refusing anything over its pixel cap before decoding)
// and scales it to ThumbnailEdge on its long edge: JPEG, or PNG when the
// image has transparency, within MaxThumbnailBytes. ok is false when no
// thumbnail can be made.
func Thumbnail(ctx context.Context, data []byte) (thumb []byte, mimeType string, ok bool) {
	prepared, err := imaging.Prepare(ctx, data)
	if err != nil {
		return nil, "", false
	}
	img, _, err := image.Decode(bytes.NewReader(prepared.Data))
	if err != nil {
		return nil, "", false
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, "", false
	}
	if long := max(w, h); long > ThumbnailEdge {
		w, h = max(1, w*ThumbnailEdge/long), max(1, h*ThumbnailEdge/long)
	}
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(small, small.Bounds(), img, b, xdraw.Src, nil)
	if !small.Opaque() {
		var buf bytes.Buffer
		if err := png.Encode(&buf, small); err == nil && buf.Len() <= MaxThumbnailBytes {
			return buf.Bytes(), "image/png", true
		}
		// Too big as PNG: shown over white as a JPEG instead.
		flat := image.NewRGBA(small.Bounds())
		draw.Draw(flat, flat.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), small, image.Point{}, draw.Over)
		small = flat
	}
	for q := thumbnailQuality; q >= thumbnailMinQuality; q -= 10 {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, small, &jpeg.Options{Quality: q}); err != nil {
			return nil, "", false
		}
		if buf.Len() <= MaxThumbnailBytes {
			return buf.Bytes(), "image/jpeg", true
		}
	}
	return nil, "", false
}
