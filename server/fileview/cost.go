package fileview

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
)

// This file estimates, before anything is decoded, how much memory Convert
// will need for a file, from what the file's header says about itself: an
// image's pixels and their depth, the declared sizes of the parts of an
// Office package, the file's size otherwise. A caller takes that much from a
// memory budget before converting, and describes the file instead when it
// alone would need more than the whole budget.
//
// The estimator reads only a bounded prefix of the file and, for zip and
// TIFF files, their directory; it allocates nothing in proportion to the file's
// size, only a record per part of an Office file (at most MaxPackageEntries).
// It errs on the generous side: an estimate may be higher than what a file
// really takes, never much lower.

// The cost model's numbers, each with the reason for its value.
const (
	// costHeadBytes: image headers are looked for in the first 16 MiB only;
	// ICC profiles, XMP and Photoshop blocks put at most a few MB before a
	// JPEG's frame header, and the walk hops from segment length to segment
	// length, so it stays cheap. A header not found there is taken to be
	// the largest image the imaging package decodes.
	costHeadBytes = 16 << 20

	// costSniffBytes: the prefix the kind of a file is told from; the
	// furthest any magic number check looks is 4 KiB (Ogg and WebM markers).
	costSniffBytes = 4 << 10

	// worstBytesPerPixel: what a pixel can cost when the header does not say
	// more: 8 bytes of 16-bit RGBA, decoded once more when interlaced (or
	// decompressed into a strip buffer first, for TIFF).
	worstBytesPerPixel = 16

	// rgbaBytesPerPixel: scaling, turning and placing on a canvas all work
	// on 8-bit RGBA.
	rgbaBytesPerPixel = 4

	// kernelTmpBytes: the quality pass (imaging's kernelShrink) keeps every
	// source row at the destination's width as 8-bit RGBA, 4 bytes a pixel.
	kernelTmpBytes = 4

	// imageEncodeBytes: encoding the result grows a buffer towards
	// imaging.MaxOutputBytes, which may double once past it before the
	// size check, plus the encoder's own state (a deflate window for PNG).
	imageEncodeBytes = 2*imaging.MaxOutputBytes + 1<<20

	// jpegCoefficientBytes: a progressive JPEG keeps every 8x8 block's 64
	// coefficients as int32 until the last scan: 4 bytes per sample.
	jpegCoefficientBytes = 4

	// webpLossyAlphaBytes: a lossy WebP with alpha keeps an alpha plane, and
	// an alpha channel compressed losslessly is first decoded as a whole
	// NRGBA image plus its ARGB words: 1 + 4 + 4 bytes per pixel.
	webpLossyAlphaBytes = 9

	// webpLosslessBytes: a lossless WebP is decoded into 32-bit ARGB words,
	// transformed into a second such buffer, then copied into NRGBA.
	webpLosslessBytes = 12

	// textCopies: a text is held once decoded and once more while its line
	// ends are normalised; UTF-16 grows by half when it becomes UTF-8, so
	// three times the file covers the usual cases.
	textCopies = 3

	// officeTextCopies: extracted Office text is built in a growing buffer
	// (which briefly holds the old and the new backing array), and table
	// cells and text boxes collect their lines before joining them.
	officeTextCopies = 3

	// officeTokenCopies: encoding/xml gathers one text run in a growing
	// buffer, so the longest run of a part, at most the part, costs up to
	// twice its size.
	officeTokenCopies = 2

	// officeExtraLines: lines Office extraction writes that are not text of
	// the file ("Slide 12", "Speaker notes:", "(rows 3-9 empty)"), at most
	// one short line per slide or per sheet row.
	officeExtraLines = MaxSlides * 64

	// zipEntryBytes: archive/zip keeps a File of about 200 bytes per entry,
	// plus its name, extra field and comment; 512 covers ordinary ones.
	zipEntryBytes = 512

	// sharedStringBytes: a kept shared string costs its text plus a 16-byte
	// string header and the growth of the slice holding it.
	sharedStringBytes = 32

	// converterBytes: the fixed state of one conversion (decompressor
	// windows, XML decoder buffers, the view and its header).
	converterBytes = 1 << 20

	// archiveBytes: listing an archive keeps the listing (growing, so twice
	// its cap) and the decompressor's state: bzip2 holds a 900 kB block as
	// 3.6 MB of words, archive/tar reads a PAX header of up to 1 MiB.
	archiveBytes = 2*MaxArchiveListingBytes + 8<<20
)

// Estimate is what converting a file is expected to take in memory.
type Estimate struct {
	// Bytes is the memory Convert is expected to need beyond the file's own
	// bytes, which the caller already holds and counts itself.
	Bytes int64
	// Kind is what the file was taken for.
	Kind Kind
	// Basis says in a few words what the figure comes from, for a person:
	// "decoding 5,700×5,700 pixels of 16-bit colour".
	Basis string
}

// EstimateCost estimates the memory Convert will need for data beyond data
// itself, from the file's header alone. It never decodes and reads at most
// costHeadBytes of the file plus a zip file's central directory or a TIFF's
// image directory.
func EstimateCost(data []byte) Estimate {
	if len(data) > MaxInputBytes {
		return Estimate{Kind: KindOther, Basis: "it is described, not read"}
	}
	head := data[:min(len(data), costSniffBytes)]
	switch {
	case len(data) == 0:
		return Estimate{Kind: KindText, Basis: "it is empty"}
	case hasZipMagic(head):
		s := sniffZip(data) // the first 256 bytes and the central directory
		if s.kind == KindArchive {
			return archiveEstimate()
		}
		if s.kind == KindOther {
			return Estimate{Kind: KindOther, Basis: "it is described, not read"}
		}
		return officeEstimate(data, s.kind)
	case hasGzipMagic(head) || hasBzip2Magic(head):
		// Whether a tar is inside is told by decompressing; assume it is.
		return archiveEstimate()
	}
	s := sniffBytes(head, "")
	switch {
	case s.kind == KindPDF && !strings.HasPrefix(string(head), "%PDF-"):
		// Told from "%PDF-" in the first kilobyte only when the bytes are
		// not text, which the prefix alone cannot settle.
		return textEstimate(data)
	case s.kind == KindImage:
		return imageEstimate(data, s.family)
	case s.kind == KindArchive:
		return archiveEstimate()
	case s.kind == KindText || s.family == "binary":
		return textEstimate(data)
	}
	// PDFs, audio, video and formats that are only described are used as
	// they are or not at all.
	return Estimate{Kind: s.kind, Basis: "it is not converted"}
}

func hasZipMagic(b []byte) bool {
	return strings.HasPrefix(string(b), "PK\x03\x04") || strings.HasPrefix(string(b), "PK\x05\x06") || strings.HasPrefix(string(b), "PK\x07\x08")
}

func hasGzipMagic(b []byte) bool  { return len(b) >= 2 && b[0] == 0x1F && b[1] == 0x8B }
func hasBzip2Magic(b []byte) bool { return strings.HasPrefix(string(b), "BZh") }

// textEstimate: a byte-order mark makes a file text whatever follows; a
// control character in the prefix makes it binary (Convert decides so from
// any one of them); otherwise the whole file may be decoded as text.
func textEstimate(data []byte) Estimate {
	head := data[:min(len(data), costSniffBytes)]
	bom := len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) ||
		len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF
	if !bom {
		for _, b := range head {
			if b < 0x20 && !allowedControl(b) {
				return Estimate{Kind: KindOther, Basis: "it is not text and not converted"}
			}
		}
	}
	return Estimate{Bytes: textCopies * int64(len(data)), Kind: KindText,
		Basis: fmt.Sprintf("decoding %s of text", sizeText(int64(len(data))))}
}

func archiveEstimate() Estimate {
	return Estimate{Bytes: archiveBytes, Kind: KindArchive, Basis: "listing its entries"}
}

// officeEstimate adds up what the zip directory declares for the XML parts
// the extractors may read, within the package caps. The directory is read
// the way openPackage reads it (archive/zip, the first of duplicate names),
// and archive/zip refuses to inflate a part beyond its declared size, so
// the declarations bound what is read.
func officeEstimate(data []byte, kind Kind) Estimate {
	dir, err := findZipDir(data)
	if err != nil {
		return Estimate{Kind: kind, Basis: "it is damaged and only described"}
	}
	entries := 0
	_ = dir.each(nil, func(*zipEntry) bool { entries++; return entries <= MaxPackageEntries })
	if entries > MaxPackageEntries {
		return Estimate{Kind: kind, Basis: "it has too many parts and is only described"}
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return Estimate{Kind: kind, Basis: "it is damaged and only described"}
	}
	var read, largest, shared uint64
	seen := make(map[string]bool, len(zr.File))
	for _, f := range zr.File {
		name := strings.ToLower(strings.TrimPrefix(f.Name, "/"))
		if seen[name] {
			continue // openPackage keeps the first
		}
		seen[name] = true
		if !strings.HasSuffix(name, ".xml") && !strings.HasSuffix(name, ".rels") {
			continue // pictures and embedded files are never read
		}
		size := min(f.UncompressedSize64, MaxPartBytes)
		read += size
		largest = max(largest, size)
		if strings.HasSuffix(name, "sharedstrings.xml") {
			shared += size
		}
	}
	entries = len(zr.File)
	read = min(read, MaxPackageBytes)
	text := min(read+officeExtraLines, MaxExtractedTextBytes)
	if kind == KindSpreadsheet {
		// Shared strings and cells placed by column make a sheet's text
		// larger than its XML; only the text cap bounds it.
		text = MaxExtractedTextBytes
	}
	cost := uint64(entries)*zipEntryBytes + officeTextCopies*text + officeTokenCopies*largest + converterBytes
	if kind == KindSpreadsheet && shared > 0 {
		// Every kept string is at least "<si><t>x</t></si>", 16 bytes of XML.
		strs := min(shared/16, MaxSharedStrings)
		cost += min(shared, MaxSharedStringBytes) + strs*sharedStringBytes
	}
	return Estimate{Bytes: int64(cost), Kind: kind,
		Basis: fmt.Sprintf("extracting text from %s of XML", sizeText(int64(read)))}
}

// picture is what an image's header says about decoding it.
type picture struct {
	format        string
	width, height int64
	// decoded is the bytes the decoder holds at its peak, the decoded image
	// included.
	decoded int64
	// turns says the format can carry an EXIF orientation, which costs a
	// turned copy.
	turns bool
	// asIs says the image is sent as it came once decoded (a small PNG),
	// so nothing is scaled or encoded.
	asIs  bool
	depth string // for the basis: "16-bit colour", "8-bit colour"; "" when the header was not found
}

// imageEstimate follows imaging.Prepare: decode, place a GIF frame on its
// canvas, scale to MaxLongEdge, turn upright, encode within MaxOutputBytes.
func imageEstimate(data []byte, family string) Estimate {
	var p picture
	var ok bool
	switch family {
	case "png":
		p, ok = pngPicture(data)
	case "jpeg":
		p, ok = jpegPicture(data)
	case "gif":
		p, ok = gifPicture(data)
	case "webp":
		p, ok = webpPicture(data)
	case "bmp":
		p, ok = bmpPicture(data)
	case "tiff":
		p, ok = tiffPicture(data)
	default:
		return Estimate{Kind: KindImage, Basis: "it is not decoded here"} // SVG, HEIC, AVIF
	}
	if !ok {
		// A header the decoder cannot read either means nothing is decoded.
		return Estimate{Kind: KindImage, Basis: "its header cannot be read, so it is not decoded"}
	}
	if p.width*p.height > imaging.MaxPixels {
		return Estimate{Kind: KindImage, Basis: "it has more pixels than are decoded here"}
	}
	cost := p.decoded + converterBytes
	if !p.asIs {
		cost += imageWorkBytes(p) + imageEncodeBytes
	}
	basis := fmt.Sprintf("decoding %s pixels of %s", dims(int(p.width), int(p.height)), p.depth)
	if p.depth == "" {
		basis = fmt.Sprintf("its header does not give its size within its first %s, so it is taken as the largest image decoded here", sizeText(costHeadBytes))
	}
	return Estimate{Bytes: cost, Kind: KindImage, Basis: basis}
}

// imageWorkBytes is what happens to a decoded image before it is encoded:
// the larger of scaling it to MaxLongEdge and shrinking it again to meet
// MaxOutputBytes (by then the first scaling's buffers are garbage), plus
// placing a GIF frame on its canvas and turning a photo upright.
func imageWorkBytes(p picture) int64 {
	w, h := p.width, p.height
	var scale int64
	if long := max(w, h); long > imaging.MaxLongEdge {
		tw := max(1, w*imaging.MaxLongEdge/long) + 1
		th := max(1, h*imaging.MaxLongEdge/long) + 1
		// The box prescale by k (at k = 1 a conversion to RGBA), then the
		// quality pass.
		k := max(1, min(w/tw, h/th))
		sh := h / k
		scale += (w / k) * sh * rgbaBytesPerPixel
		scale += tw*sh*kernelTmpBytes + tw*th*rgbaBytesPerPixel
		w, h = tw, th
	}
	var shrink int64
	if w*h*rgbaBytesPerPixel > imaging.MaxOutputBytes {
		// The first retry scales by at most ShrinkMargin; later ones less.
		sw := int64(float64(w)*imaging.ShrinkMargin) + 1
		shrink = sw*h*kernelTmpBytes + sw*h*rgbaBytesPerPixel
	}
	work := max(scale, shrink)
	if p.format == imaging.FormatGIF {
		work += p.width * p.height * rgbaBytesPerPixel // the first frame on its canvas
	}
	if p.turns {
		work += 2 * w * h * rgbaBytesPerPixel // a copy in RGBA, then turned
	}
	return work
}

// pngPicture reads IHDR, which must be the first chunk: the decoder makes
// 16-bit images 8 bytes a pixel, paletted ones 1, all others at most 4, and
// holds two rows of the file's own pixel format; an interlaced image is
// decoded pass by pass into images as large as the whole.
func pngPicture(data []byte) (picture, bool) {
	if len(data) < 33 || string(data[12:16]) != "IHDR" {
		return picture{}, false
	}
	w := int64(binary.BigEndian.Uint32(data[16:20]))
	h := int64(binary.BigEndian.Uint32(data[20:24]))
	depth, colour, interlace := int64(data[24]), data[25], data[28]
	if w <= 0 || h <= 0 || w > 1<<31-1 || h > 1<<31-1 {
		return picture{}, false
	}
	channels := map[byte]int64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
	if channels == 0 || depth == 0 || depth > 16 {
		return picture{}, false
	}
	bpp := int64(4)
	switch {
	case depth == 16:
		bpp = 8
	case colour == 3:
		bpp = 1
	}
	decoded := w * h * bpp
	if interlace == 1 {
		decoded *= 2
	}
	rows := 2 * (w*channels*depth/8 + 2)
	kind := map[byte]string{0: "grey", 2: "colour", 3: "palette colour", 4: "grey with alpha", 6: "colour with alpha"}[colour]
	// PNG has no orientation and one frame: a small one is sent as it is.
	asIs := max(w, h) <= imaging.MaxLongEdge && len(data) <= imaging.MaxOutputBytes
	return picture{format: imaging.FormatPNG, width: w, height: h, decoded: decoded + rows, asIs: asIs,
		depth: fmt.Sprintf("%d-bit %s", depth, kind)}, true
}

// jpegPicture walks the segments up to the frame header (SOF). The decoder
// allocates whole MCUs, holds every sample of a progressive image as a
// coefficient, and converts four-component images to CMYK.
func jpegPicture(data []byte) (picture, bool) {
	head := data[:min(len(data), costHeadBytes)]
	pos := 2
	for pos+4 <= len(head) {
		if head[pos] != 0xFF {
			pos++ // the decoder skips stray bytes between segments too
			continue
		}
		marker := head[pos+1]
		switch {
		case marker == 0xFF || marker == 0x00 || marker == 0x01 || marker >= 0xD0 && marker <= 0xD8:
			pos++ // fill bytes, stuffed zeros, TEM, RSTn and SOI carry no length
			continue
		case marker == 0xD9 || marker == 0xDA:
			return picture{}, false // end of image, or scan data before any frame header
		}
		length := int(binary.BigEndian.Uint16(head[pos+2:]))
		if length < 2 {
			return picture{}, false
		}
		if isSOF(marker) {
			switch {
			case marker > 0xC2:
				return picture{}, false // lossless, hierarchical and arithmetic JPEG are not decoded here
			case pos+2+length > len(head) && len(head) < len(data):
				return worstPicture(imaging.FormatJPEG), true // the frame header is cut by the bound
			}
			return jpegFrame(head[pos+4:min(len(head), pos+2+length)], marker == 0xC2)
		}
		pos += 2 + length
	}
	if len(head) < len(data) {
		return worstPicture(imaging.FormatJPEG), true
	}
	return picture{}, false
}

func isSOF(m byte) bool {
	return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC
}

// jpegFrame reads a frame header's body: precision, height, width and the
// components with their sampling factors.
func jpegFrame(f []byte, progressive bool) (picture, bool) {
	if len(f) < 6 || f[0] != 8 {
		return picture{}, false // only 8-bit samples are decoded
	}
	h, w, n := int64(binary.BigEndian.Uint16(f[1:3])), int64(binary.BigEndian.Uint16(f[3:5])), int(f[5])
	if w == 0 || h == 0 || n == 0 || n > 4 || len(f) < 6+3*n {
		return picture{}, false
	}
	var hmax, vmax int64 = 1, 1
	samp := make([][2]int64, n)
	for i := range n {
		hv := f[6+3*i+1]
		samp[i] = [2]int64{max(1, int64(hv>>4)), max(1, int64(hv&0x0F))}
		hmax, vmax = max(hmax, samp[i][0]), max(vmax, samp[i][1])
	}
	if n == 1 {
		hmax, vmax, samp[0] = 1, 1, [2]int64{1, 1} // the decoder ignores a lone component's factors
	}
	// Whole MCUs: the planes are padded to 8 x the largest factors.
	mcuW, mcuH := 8*hmax, 8*vmax
	pw, ph := (w+mcuW-1)/mcuW*mcuW, (h+mcuH-1)/mcuH*mcuH
	var samples int64
	for _, s := range samp {
		samples += pw * ph * s[0] * s[1] / (hmax * vmax)
	}
	decoded := samples
	if n == 4 {
		decoded += pw * ph * 4 // converted to CMYK
	}
	if progressive {
		decoded += samples * jpegCoefficientBytes
	}
	depth := map[int]string{1: "8-bit grey", 3: "8-bit colour", 4: "8-bit CMYK"}[n]
	if depth == "" {
		depth = "8-bit samples"
	}
	if progressive {
		depth += ", progressive"
	}
	return picture{format: imaging.FormatJPEG, width: w, height: h, decoded: decoded, turns: true, depth: depth}, true
}

// gifPicture reads the logical screen: the first frame (1 byte a pixel) fits
// within it, and is placed on a screen-sized RGBA canvas.
func gifPicture(data []byte) (picture, bool) {
	if len(data) < 13 {
		return picture{}, false
	}
	w, h := int64(binary.LittleEndian.Uint16(data[6:8])), int64(binary.LittleEndian.Uint16(data[8:10]))
	if w == 0 || h == 0 {
		return picture{}, false
	}
	return picture{format: imaging.FormatGIF, width: w, height: h, decoded: w * h, depth: "palette colour"}, true
}

// webpPicture walks the RIFF chunks for VP8X (canvas, animation, alpha),
// VP8 (lossy, decoded into 4:2:0 planes of whole macroblocks) and VP8L
// (lossless).
func webpPicture(data []byte) (picture, bool) {
	head := data[:min(len(data), costHeadBytes)]
	if len(head) < 12 {
		return picture{}, false
	}
	var (
		w, h             int64
		lossy, lossless  bool
		alpha, animation bool
	)
	pos := 12
	for n := 0; n < imaging.MaxWebPChunks && pos+8 <= len(head); n++ {
		id := string(head[pos : pos+4])
		size := int64(binary.LittleEndian.Uint32(head[pos+4 : pos+8]))
		body := head[pos+8 : min(int64(len(head)), int64(pos)+8+size)]
		switch id {
		case "VP8X":
			if len(body) >= 10 {
				animation = body[0]&0x02 != 0
				alpha = alpha || body[0]&0x10 != 0
				w = max(w, (int64(body[4])|int64(body[5])<<8|int64(body[6])<<16)+1)
				h = max(h, (int64(body[7])|int64(body[8])<<8|int64(body[9])<<16)+1)
			}
		case "ALPH":
			alpha = true
		case "VP8 ":
			if len(body) >= 10 && body[3] == 0x9D && body[4] == 0x01 && body[5] == 0x2A {
				lossy = true
				w = max(w, int64(binary.LittleEndian.Uint16(body[6:8])&0x3FFF))
				h = max(h, int64(binary.LittleEndian.Uint16(body[8:10])&0x3FFF))
			}
		case "VP8L":
			if len(body) >= 5 && body[0] == 0x2F {
				lossless = true
				bits := binary.LittleEndian.Uint32(body[1:5])
				w = max(w, int64(bits&0x3FFF)+1)
				h = max(h, int64(bits>>14&0x3FFF)+1)
			}
		}
		if lossy || lossless {
			break
		}
		pos += 8 + int(size+size&1)
	}
	switch {
	case animation:
		return picture{}, false // animated WebP is not decoded here
	case lossless && w > 0 && h > 0:
		return picture{format: imaging.FormatWebP, width: w, height: h, decoded: w * h * webpLosslessBytes, turns: true, depth: "lossless colour"}, true
	case lossy && w > 0 && h > 0:
		pw, ph := (w+15)/16*16, (h+15)/16*16
		decoded := pw * ph * 3 / 2
		if alpha {
			decoded += w * h * webpLossyAlphaBytes
		}
		return picture{format: imaging.FormatWebP, width: w, height: h, decoded: decoded, turns: true, depth: "lossy colour"}, true
	case w > 0 && h > 0:
		// A canvas whose image chunk was not reached: take it at its worst.
		return picture{format: imaging.FormatWebP, width: w, height: h, decoded: w * h * webpLosslessBytes, turns: true, depth: "colour"}, true
	case len(head) < len(data):
		return worstPicture(imaging.FormatWebP), true
	}
	return picture{}, false
}

// bmpPicture reads the DIB header: pixels are decoded to RGBA (paletted ones
// to 1 byte), one row of the file at a time.
func bmpPicture(data []byte) (picture, bool) {
	if !isBMP(data) {
		return picture{}, false
	}
	var w, h, bits int64
	if binary.LittleEndian.Uint32(data[14:18]) == 12 {
		w, h, bits = int64(binary.LittleEndian.Uint16(data[18:20])), int64(binary.LittleEndian.Uint16(data[20:22])), int64(binary.LittleEndian.Uint16(data[24:26]))
	} else {
		if len(data) < 30 {
			return picture{}, false
		}
		w, h = int64(int32(binary.LittleEndian.Uint32(data[18:22]))), int64(int32(binary.LittleEndian.Uint32(data[22:26])))
		bits = int64(binary.LittleEndian.Uint16(data[28:30]))
	}
	h = max(h, -h) // negative: stored top-down
	if w <= 0 || h == 0 || bits == 0 {
		return picture{}, false
	}
	return picture{format: imaging.FormatBMP, width: w, height: h, decoded: w*h*rgbaBytesPerPixel + w*4 + 4,
		depth: fmt.Sprintf("%d-bit colour", bits)}, true
}

// tiffPicture: TIFF keeps its image directory anywhere in the file, so the
// dimensions come from the imaging package's own header reading; its
// decoder decompresses strips into a buffer before converting them.
func tiffPicture(data []byte) (picture, bool) {
	_, w, h, err := imaging.Config(data)
	if w <= 0 || h <= 0 || err != nil && !errors.Is(err, imaging.ErrTooManyPixels) {
		return picture{}, false
	}
	return picture{format: imaging.FormatTIFF, width: int64(w), height: int64(h),
		decoded: int64(w) * int64(h) * worstBytesPerPixel, turns: true, depth: "up to 16-bit colour"}, true
}

// worstPicture is an image whose header lies beyond costHeadBytes: taken to
// be the largest the imaging package decodes, at the worst depth.
func worstPicture(format string) picture {
	side := int64(7071) // about sqrt(imaging.MaxPixels)
	return picture{format: format, width: side, height: side, decoded: imaging.MaxPixels * worstBytesPerPixel, turns: true}
}
