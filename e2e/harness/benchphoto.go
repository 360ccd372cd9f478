package harness

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
)

// TwelveMegapixelPhoto is a 4000x3000 photo-like JPEG (gradients and
// noise) with EXIF orientation 6, the same bytes on every call: the photo
// the bench commands read, turn upright and scale.
func TwelveMegapixelPhoto() ([]byte, error) {
	const w, h = 4000, 3000
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			img.SetRGBA(x, y, color.RGBA{uint8(x*200/w) + n, uint8(y*200/h) + n, uint8((x+y)*100/(w+h)) + n, 255})
		}
	}
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, err
	}
	// An APP1 segment right after the JPEG's start, holding a TIFF header
	// with the one tag Orientation = 6.
	tiff := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}
	payload := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(payload)+2))
	raw := enc.Bytes()
	out := append([]byte{}, raw[:2]...)
	out = append(out, app1...)
	out = append(out, payload...)
	return append(out, raw[2:]...), nil
}
