package imaging

import (
	"bytes"
	"encoding/binary"
)

// The parsers in this file read untrusted bytes. Each one only indexes data
// after checking the length, walks a bounded number of items and never
// recurses, so no input can make it panic or run long.

const exifOrientationTag = 0x0112

var exifHeader = []byte("Exif\x00\x00")

// jpegOrientation returns the EXIF orientation (1..8) found in the first
// APP1 "Exif\0\0" segment of a JPEG file, or 0 when there is none or it is
// malformed.
func jpegOrientation(data []byte) int {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return 0
	}
	pos := 2
	for seg := 0; seg < MaxJPEGSegments; seg++ {
		// A marker is 0xFF, any number of 0xFF fill bytes, then its code.
		if pos >= len(data) || data[pos] != 0xFF {
			return 0
		}
		for pos < len(data) && data[pos] == 0xFF {
			pos++
		}
		if pos >= len(data) {
			return 0
		}
		marker := data[pos]
		pos++
		switch {
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			continue // standalone markers carry no length
		case marker == 0xD9 || marker == 0xDA:
			return 0 // end of image or start of scan: metadata is over
		}
		if pos+2 > len(data) {
			return 0
		}
		n := int(binary.BigEndian.Uint16(data[pos:]))
		if n < 2 || pos+n > len(data) {
			return 0
		}
		payload := data[pos+2 : pos+n]
		pos += n
		if marker == 0xE1 && bytes.HasPrefix(payload, exifHeader) {
			return tiffOrientation(payload[len(exifHeader):])
		}
	}
	return 0
}

// tiffHeader reads a TIFF header ("II*\0" or "MM\0*") and returns the byte
// order and the offset of IFD0.
func tiffHeader(data []byte) (binary.ByteOrder, uint32, bool) {
	if len(data) < 8 {
		return nil, 0, false
	}
	var order binary.ByteOrder
	switch {
	case data[0] == 'I' && data[1] == 'I':
		order = binary.LittleEndian
	case data[0] == 'M' && data[1] == 'M':
		order = binary.BigEndian
	default:
		return nil, 0, false
	}
	if order.Uint16(data[2:]) != 42 {
		return nil, 0, false
	}
	return order, order.Uint32(data[4:]), true
}

// tiffOrientation returns tag 0x0112 of IFD0 of a TIFF structure (a TIFF
// file or the body of an EXIF block), or 0 when absent or invalid.
func tiffOrientation(data []byte) int {
	order, off, ok := tiffHeader(data)
	if !ok {
		return 0
	}
	count, entries, ok := ifdEntries(data, order, off)
	if !ok {
		return 0
	}
	for i := 0; i < count; i++ {
		e := entries[i*12 : i*12+12]
		if order.Uint16(e[0:]) != exifOrientationTag {
			continue
		}
		var v uint32
		switch typ, n := order.Uint16(e[2:]), order.Uint32(e[4:]); {
		case n < 1:
			return 0
		case typ == 3: // SHORT: value left-justified in the 4-byte field
			v = uint32(order.Uint16(e[8:]))
		case typ == 4: // LONG
			v = order.Uint32(e[8:])
		default:
			return 0
		}
		if v >= 1 && v <= 8 {
			return int(v)
		}
		return 0
	}
	return 0
}

// ifdEntries returns the entry count and the entry bytes (12 each) of the
// IFD at off, clamped to MaxIFDEntries and to what the data holds.
func ifdEntries(data []byte, order binary.ByteOrder, off uint32) (int, []byte, bool) {
	if uint64(off)+2 > uint64(len(data)) {
		return 0, nil, false
	}
	start := int(off) + 2
	count := int(order.Uint16(data[off:]))
	if count > MaxIFDEntries {
		count = MaxIFDEntries
	}
	if avail := (len(data) - start) / 12; count > avail {
		count = avail
	}
	return count, data[start : start+count*12], true
}

// tiffPages counts the IFDs chained from IFD0 of a TIFF file, stopping at
// MaxTIFFPages, at a cycle or at the first offset outside the file.
func tiffPages(data []byte) int {
	order, off, ok := tiffHeader(data)
	if !ok {
		return 0
	}
	pages := 0
	for pages < MaxTIFFPages && off != 0 {
		if uint64(off)+2 > uint64(len(data)) {
			break
		}
		n := uint64(order.Uint16(data[off:]))
		next := uint64(off) + 2 + 12*n
		if next+4 > uint64(len(data)) {
			break
		}
		pages++
		nextOff := order.Uint32(data[next:])
		if nextOff <= off {
			break // IFDs chained backwards would allow cycles; stop here
		}
		off = nextOff
	}
	return pages
}

// webpInfo is what the RIFF container of a WebP file tells without decoding.
type webpInfo struct {
	orientation int  // from the EXIF chunk, 0 if none
	lossless    bool // the image chunk is VP8L
	lossy       bool // the image chunk is VP8
	alpha       bool // VP8X alpha flag or an ALPH chunk
	animated    bool // VP8X animation flag or ANIM/ANMF chunks
}

// parseWebP walks the chunks of a RIFF WebP container.
func parseWebP(data []byte) webpInfo {
	var info webpInfo
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return info
	}
	end := uint64(binary.LittleEndian.Uint32(data[4:])) + 8
	if end > uint64(len(data)) {
		end = uint64(len(data))
	}
	pos := uint64(12)
	for i := 0; i < MaxWebPChunks && pos+8 <= end; i++ {
		id := string(data[pos : pos+4])
		size := uint64(binary.LittleEndian.Uint32(data[pos+4:]))
		body := pos + 8
		bodyEnd := body + size
		if bodyEnd > end {
			bodyEnd = end
		}
		chunk := data[body:bodyEnd]
		switch id {
		case "VP8X":
			if len(chunk) >= 1 {
				info.alpha = info.alpha || chunk[0]&0x10 != 0
				info.animated = info.animated || chunk[0]&0x02 != 0
			}
		case "ALPH":
			info.alpha = true
		case "ANIM", "ANMF":
			info.animated = true
		case "VP8 ":
			info.lossy = true
		case "VP8L":
			info.lossless = true
			if len(chunk) >= 5 && chunk[4]&0x10 != 0 { // alpha_is_used hint
				info.alpha = true
			}
		case "EXIF":
			if info.orientation == 0 {
				info.orientation = tiffOrientation(bytes.TrimPrefix(chunk, exifHeader))
			}
		}
		pos = body + size + size&1 // chunks are padded to even length
	}
	return info
}

// gifFrames counts the image descriptors of a GIF file by walking its block
// structure (header, colour tables, extensions, images with their data
// sub-blocks) without decompressing anything. A truncated or malformed file
// yields the frames seen so far; the result is capped at MaxGIFFrames.
func gifFrames(data []byte) int {
	if len(data) < 13 || string(data[0:3]) != "GIF" {
		return 0
	}
	pos := 13
	if flags := data[10]; flags&0x80 != 0 {
		pos += 3 << (1 + flags&0x07) // global colour table
	}
	frames := 0
	for blocks := 0; blocks < MaxGIFBlocks && frames < MaxGIFFrames; blocks++ {
		if pos >= len(data) {
			return frames
		}
		switch data[pos] {
		case 0x21: // extension: introducer, label, sub-blocks
			pos += 2
		case 0x2C: // image descriptor: 10 bytes, local table, LZW code size, sub-blocks
			if pos+10 > len(data) {
				return frames
			}
			flags := data[pos+9]
			pos += 10
			if flags&0x80 != 0 {
				pos += 3 << (1 + flags&0x07)
			}
			pos++ // LZW minimum code size
			frames++
		default: // 0x3B trailer, or garbage: either way the walk ends
			return frames
		}
		pos = skipSubBlocks(data, pos)
	}
	return frames
}

// skipSubBlocks returns the position after a chain of GIF data sub-blocks
// (length byte, payload) ended by a zero length, or len(data) if truncated.
// Each step advances at least one byte, so it is bounded by len(data).
func skipSubBlocks(data []byte, pos int) int {
	for pos < len(data) {
		n := int(data[pos])
		pos += 1 + n
		if n == 0 {
			return pos
		}
	}
	return len(data)
}
