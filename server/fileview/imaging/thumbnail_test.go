package imaging

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
)

func TestAThumbnailOfATurnedPhotoIsUprightAndWithinItsEdgeAndBytes(t *testing.T) {
	want := quadrants(800, 400)
	data := withEXIFOrientation(encodeJPEG(t, storedFor(want, 6), 95), 6, binary.BigEndian)
	r, err := Thumbnail(context.Background(), data, 200, 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Turned || !r.Scaled || r.MIMEType != "image/jpeg" || r.Bytes > 16<<10 {
		t.Fatalf("thumbnail %+v, want a turned, scaled JPEG within 16 KiB", *r)
	}
	m := decodeOutput(t, r)
	if s := m.Bounds().Size(); s.X != 200 || s.Y != 100 {
		t.Fatalf("thumbnail is %v, want 200x100 as the photo is shown", s)
	}
	checkQuadrants(t, m, 40)
}

func TestAThumbnailOfASmallDrawingStaysItsSizeAsPNG(t *testing.T) {
	r, err := Thumbnail(context.Background(), encodePNG(t, quadrants(32, 16)), 200, 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	if r.Scaled || r.MIMEType != "image/png" || r.Width != 32 || r.Height != 16 {
		t.Fatalf("thumbnail %+v, want the 32x16 PNG unscaled", *r)
	}
}

func TestAThumbnailOfWhatIsNoImageIsUnsupported(t *testing.T) {
	if _, err := Thumbnail(context.Background(), []byte("%PDF-1.7 not an image"), 200, 16<<10); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err %v, want ErrUnsupported", err)
	}
}
