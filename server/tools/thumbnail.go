package tools

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// A thumbnail is what a view draws beside an image attachment's name: the
// picture Mattermost itself made when the image was posted (already
// upright), read as the person, so it costs a small read, not a conversion.
// Only an image without one is scaled here, within the memory for reading
// files and the bounds below.
const (
	// maxThumbnailBytes bounds a thumbnail: Mattermost's own fit 120x100 px
	// (a JPEG, or a PNG of an image with transparency), a few KiB; a page
	// of 24 at this cap is still under 2 MiB of base64 in the view.
	maxThumbnailBytes = 64 << 10
	// thumbnailEdge is the long edge of a thumbnail scaled here: the view
	// draws one at most 240 CSS px wide.
	thumbnailEdge = 240
	// maxScaledImageBytes bounds an image scaled for a thumbnail when
	// Mattermost made none: a phone photo is 2-8 MiB, and decoding a larger
	// one for a stamp-sized picture is read_file's work, not a view's.
	maxScaledImageBytes = 20 << 20
)

// thumbnailTypes are the attachment types a thumbnail is made of: those
// imaging decodes (Mattermost makes its own of the same).
var thumbnailTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true, "image/tiff": true,
}

// drawnTypes are what a thumbnail may be sent as: what every browser draws.
// What Mattermost stored is sniffed, not trusted to be what its name says.
var drawnTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// thumbnail reads the thumbnail of an image attachment the person can read.
func (d Deps) thumbnail(ctx context.Context, fileID string) (resources.Answer, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return resources.Answer{}, err
	}
	return d.thumbnailAs(ctx, c, fileID)
}

// thumbnailAs is thumbnail as the person c is.
func (d Deps) thumbnailAs(ctx context.Context, c *mattermost.Caller, fileID string) (resources.Answer, error) {
	f, err := c.File(strings.TrimSpace(fileID))
	if errors.Is(err, mattermost.ErrNotFound) {
		return resources.Answer{}, resources.ErrNotFound
	}
	if err != nil {
		return resources.Answer{}, err
	}
	info := f.Info()
	readIt := fmt.Sprintf("read_file(file_id=%q) reads it", info.Id)
	typ := strings.ToLower(strings.TrimSpace(strings.Split(info.MimeType, ";")[0]))
	if !thumbnailTypes[typ] {
		return resources.Answer{}, refusal.New(fmt.Sprintf("%s is %s, not an image, so it has no thumbnail", present.Name(info.Name), orUnknown(typ)), readIt+".")
	}
	if data, ok := c.StoredThumbnail(f, maxThumbnailBytes); ok {
		if mt := http.DetectContentType(data); drawnTypes[mt] {
			return thumbnailAnswer(data, mt), nil
		}
	}
	limit := min(int64(maxScaledImageBytes), d.Config().MaxFileSizeBytes())
	if info.Size > limit {
		return resources.Answer{}, refusal.New(fmt.Sprintf("Mattermost made no thumbnail of %s, and at %s it is over the %s this server scales for one",
			present.Name(info.Name), present.Size(info.Size), present.Size(limit)), readIt+", described or scaled.")
	}
	mem := d.memory(d.Config())
	data, held, err := d.fetchAndTake(ctx, mem, info.Size, func() ([]byte, error) { return c.FileBytes(f) })
	if err != nil {
		return resources.Answer{}, readRefusal(err, info.Name)
	}
	var over *overBudget
	if errors.As(held.err, &over) {
		return resources.Answer{}, refusal.New("No thumbnail of "+present.Name(info.Name)+": "+over.reason(), readIt+".")
	}
	defer giveBack(held.release, held.cost)()
	img, err := imaging.Thumbnail(ctx, data, thumbnailEdge, maxThumbnailBytes)
	if err != nil {
		if ctx.Err() != nil {
			return resources.Answer{}, ctx.Err()
		}
		return resources.Answer{}, refusal.New(fmt.Sprintf("No thumbnail of %s could be drawn: its bytes are no image this server decodes (%s)",
			present.Name(info.Name), strings.TrimPrefix(err.Error(), "imaging: ")), readIt+".")
	}
	return thumbnailAnswer(img.Data, img.MIMEType), nil
}

func thumbnailAnswer(data []byte, mimeType string) resources.Answer {
	return resources.Answer{More: []mcp.Content{mcp.NewImageContent(base64.StdEncoding.EncodeToString(data), mimeType)}}
}
