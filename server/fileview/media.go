package fileview

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
)

// convertMedia sends audio and video as themselves when they fit under
// MaxMediaBytes, and describes them otherwise.
func convertMedia(data []byte, req Request, s sniffed) *View {
	size := int64(len(data))
	noun := "audio"
	if s.kind == KindVideo {
		noun = "video"
	}
	if s.mime == "" {
		return describeView(req, size, s.detected, s.kind, s.mismatch, s.reason)
	}
	if len(data) > MaxMediaBytes {
		return describeView(req, size, s.detected, s.kind, s.mismatch,
			fmt.Sprintf("it is larger than %s, the most %s that is sent as itself", sizeText(MaxMediaBytes), noun))
	}
	var h strings.Builder
	h.WriteString(fileLine(req.Name, s.detected, size))
	if s.mismatch != "" {
		h.WriteString("\n" + sentence(s.mismatch))
	}
	if s.kind == KindVideo {
		fmt.Fprintf(&h, "\nThe video itself is attached as an embedded resource (%s, %s); whether it can be watched depends on the client.", s.mime, sizeText(size))
	} else {
		fmt.Fprintf(&h, "\nThe audio itself is attached (%s, %s).", s.mime, sizeText(size))
	}
	h.WriteString("\n" + personLink(req.Permalink))
	return &View{Kind: s.kind, Detected: s.detected, Mismatch: s.mismatch, Header: h.String(), Media: &Media{Data: data, MIMEType: s.mime}}
}

// convertImage prepares an image with the imaging package and writes the
// note that says what was done to it; an image it cannot or will not decode
// is described instead.
func convertImage(ctx context.Context, data []byte, req Request, s sniffed) (*View, error) {
	size := int64(len(data))
	res, err := imaging.Prepare(ctx, data)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return describeView(req, size, s.detected, KindImage, s.mismatch, imageReason(data, s, err)), nil
	}
	img := &Image{
		Data: res.Data, MIMEType: res.MIMEType,
		OriginalWidth: res.OriginalWidth, OriginalHeight: res.OriginalHeight,
		Width: res.Width, Height: res.Height,
		OriginalBytes: res.OriginalBytes, Bytes: res.Bytes,
		Turned: res.Turned, Scaled: res.Scaled, Reencoded: res.Reencoded,
		Frames: res.Frames,
	}
	var h strings.Builder
	h.WriteString(fileLine(req.Name, s.detected, size))
	if s.mismatch != "" {
		h.WriteString("\n" + sentence(s.mismatch))
	}
	fmt.Fprintf(&h, "\nThe image follows (%s, %s px, %s).", img.MIMEType, dims(img.Width, img.Height), sizeText(int64(img.Bytes)))
	var done []string
	if img.Turned {
		done = append(done, "turned upright from its EXIF orientation")
	}
	if img.Scaled {
		done = append(done, fmt.Sprintf("scaled down from %s px", dims(img.OriginalWidth, img.OriginalHeight)))
	}
	if img.Reencoded {
		done = append(done, fmt.Sprintf("re-encoded as %s from the original %s", strings.TrimPrefix(img.MIMEType, "image/"), sizeText(int64(img.OriginalBytes))))
	}
	if len(done) == 0 {
		h.WriteString(" It is the file as uploaded.")
	} else {
		h.WriteString(" It was " + joinAnd(done) + "; details too small to see at this size may be lost.")
	}
	if img.Frames > 1 {
		fmt.Fprintf(&h, " It shows the first frame of %s.", commas(int64(img.Frames)))
	}
	h.WriteString("\n" + personLink(req.Permalink))
	return &View{Kind: KindImage, Detected: s.detected, Mismatch: s.mismatch, Header: h.String(), Image: img}, nil
}

// imageReason says why an image is described rather than shown.
func imageReason(data []byte, s sniffed, err error) string {
	_, w, h, cerr := imaging.Config(data)
	size := ""
	if w > 0 && h > 0 {
		size = fmt.Sprintf(" Its header says it is %s px.", dims(w, h))
	}
	switch {
	case errors.Is(err, imaging.ErrTooManyPixels) || errors.Is(cerr, imaging.ErrTooManyPixels):
		return fmt.Sprintf("it has more pixels than this server decodes (%s megapixels at most), so it was not decoded.%s",
			commas(int64(imaging.MaxPixels/1_000_000)), size)
	case errors.Is(err, imaging.ErrUnsupported):
		return fmt.Sprintf("%s cannot be converted here (PNG, JPEG, GIF, WebP, BMP and TIFF can).%s", withArticle(s.detected), size)
	case errors.Is(err, imaging.ErrTooLarge):
		return fmt.Sprintf("it could not be made small enough to send.%s", size)
	}
	return fmt.Sprintf("it could not be decoded: it is damaged, or not really %s.%s", withArticle(s.detected), size)
}

func dims(w, h int) string {
	return commas(int64(w)) + "×" + commas(int64(h))
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
