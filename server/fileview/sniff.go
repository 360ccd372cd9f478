package fileview

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/binary"
	"io"
	"path"
	"strings"
)

// sniffed is what the bytes (and, where they cannot tell, the name) say a
// file is.
type sniffed struct {
	kind     Kind
	family   string // what is compared with the name's type: "png", "zip", "text" ...
	detected string // human type
	mime     string // for media
	mismatch string
	enc      textEncoding // for text
	reason   string       // for kind other: why it is only described
}

// typeInfo is what a file name's extension says a file is.
type typeInfo struct {
	family string
	kind   Kind
	human  string
}

// extTypes maps extensions to what they claim. Families match the families
// sniff gives the bytes; two names for one format share a family.
var extTypes = map[string]typeInfo{
	".txt": {"text", KindText, "text"}, ".text": {"text", KindText, "text"},
	".md": {"text", KindText, "Markdown text"}, ".markdown": {"text", KindText, "Markdown text"},
	".csv": {"text", KindText, "CSV text"}, ".tsv": {"text", KindText, "TSV text"},
	".json": {"text", KindText, "JSON text"}, ".jsonl": {"text", KindText, "JSON Lines text"},
	".xml": {"text", KindText, "XML text"}, ".html": {"text", KindText, "HTML text"}, ".htm": {"text", KindText, "HTML text"},
	".log": {"text", KindText, "log text"}, ".yaml": {"text", KindText, "YAML text"}, ".yml": {"text", KindText, "YAML text"},
	".toml": {"text", KindText, "TOML text"}, ".ini": {"text", KindText, "INI text"}, ".cfg": {"text", KindText, "configuration text"},
	".conf": {"text", KindText, "configuration text"}, ".sql": {"text", KindText, "SQL text"}, ".css": {"text", KindText, "CSS text"},
	".go": {"text", KindText, "Go source text"}, ".py": {"text", KindText, "Python source text"},
	".js": {"text", KindText, "JavaScript source text"}, ".ts": {"text", KindText, "TypeScript source text"},
	".java": {"text", KindText, "Java source text"}, ".c": {"text", KindText, "C source text"}, ".h": {"text", KindText, "C header text"},
	".cpp": {"text", KindText, "C++ source text"}, ".rs": {"text", KindText, "Rust source text"}, ".rb": {"text", KindText, "Ruby source text"},
	".sh": {"text", KindText, "shell script text"}, ".ps1": {"text", KindText, "PowerShell script text"},
	".rtf": {"text", KindText, "RTF text"}, ".srt": {"text", KindText, "subtitle text"}, ".vtt": {"text", KindText, "subtitle text"},
	".svg": {"svg", KindImage, "SVG image"},
	".pdf": {"pdf", KindPDF, "PDF document"},
	".png": {"png", KindImage, "PNG image"}, ".jpg": {"jpeg", KindImage, "JPEG image"}, ".jpeg": {"jpeg", KindImage, "JPEG image"},
	".jfif": {"jpeg", KindImage, "JPEG image"}, ".gif": {"gif", KindImage, "GIF image"}, ".webp": {"webp", KindImage, "WebP image"},
	".bmp": {"bmp", KindImage, "BMP image"}, ".tif": {"tiff", KindImage, "TIFF image"}, ".tiff": {"tiff", KindImage, "TIFF image"},
	".heic": {"heif", KindImage, "HEIC image"}, ".heif": {"heif", KindImage, "HEIF image"}, ".avif": {"heif", KindImage, "AVIF image"},
	".mp3": {"mp3", KindAudio, "MP3 audio"}, ".wav": {"wav", KindAudio, "WAV audio"}, ".ogg": {"ogg", KindAudio, "Ogg audio"},
	".oga": {"ogg", KindAudio, "Ogg audio"}, ".opus": {"ogg", KindAudio, "Ogg audio"}, ".flac": {"flac", KindAudio, "FLAC audio"},
	".m4a": {"mp4", KindAudio, "M4A audio"}, ".mp4": {"mp4", KindVideo, "MP4 video"}, ".m4v": {"mp4", KindVideo, "MP4 video"},
	".mov": {"mp4", KindVideo, "QuickTime video"}, ".webm": {"ebml", KindVideo, "WebM video"}, ".mkv": {"ebml", KindVideo, "Matroska video"},
	".avi": {"avi", KindVideo, "AVI video"},
	".zip": {"zip", KindArchive, "ZIP archive"}, ".jar": {"zip", KindArchive, "ZIP archive"},
	".docx": {"docx", KindDocument, "Word document"}, ".docm": {"docx", KindDocument, "Word document"},
	".xlsx": {"xlsx", KindSpreadsheet, "Excel workbook"}, ".xlsm": {"xlsx", KindSpreadsheet, "Excel workbook"},
	".pptx": {"pptx", KindPresentation, "PowerPoint presentation"}, ".pptm": {"pptx", KindPresentation, "PowerPoint presentation"},
	".odt": {"odf", KindOther, "OpenDocument file"}, ".ods": {"odf", KindOther, "OpenDocument file"}, ".odp": {"odf", KindOther, "OpenDocument file"},
	".tar": {"tar", KindArchive, "tar archive"},
	".tgz": {"gzip", KindArchive, "gzip-compressed tar archive"}, ".tar.gz": {"gzip", KindArchive, "gzip-compressed tar archive"},
	".gz":   {"gzip", KindOther, "gzip-compressed file"},
	".tbz2": {"bzip2", KindArchive, "bzip2-compressed tar archive"}, ".tbz": {"bzip2", KindArchive, "bzip2-compressed tar archive"},
	".tar.bz2": {"bzip2", KindArchive, "bzip2-compressed tar archive"}, ".bz2": {"bzip2", KindOther, "bzip2-compressed file"},
	".doc": {"ole2", KindOther, "Word 97-2003 document"}, ".xls": {"ole2", KindOther, "Excel 97-2003 workbook"},
	".ppt": {"ole2", KindOther, "PowerPoint 97-2003 presentation"}, ".msg": {"ole2", KindOther, "Outlook message"},
	".7z": {"7z", KindOther, "7-Zip archive"}, ".rar": {"rar", KindOther, "RAR archive"}, ".xz": {"xz", KindOther, "xz-compressed file"},
	".zst": {"zstd", KindOther, "Zstandard-compressed file"},
	".exe": {"pe", KindOther, "Windows executable"}, ".dll": {"pe", KindOther, "Windows executable"},
}

// nameType is what a file name's extension says the file is.
func nameType(name string) (typeInfo, bool) {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	for _, double := range []string{".tar.gz", ".tar.bz2"} {
		if strings.HasSuffix(base, double) {
			return extTypes[double], true
		}
	}
	t, ok := extTypes[path.Ext(base)]
	return t, ok
}

// Sniff says what a file is from its bytes, using the name only where the
// bytes cannot tell (plain text from CSV, M4A from MP4). mismatch is set when
// the name claims a different type than the bytes.
func Sniff(data []byte, name string) (kind Kind, detected string, mismatch string) {
	s := sniff(data, name)
	return s.kind, s.detected, s.mismatch
}

func sniff(data []byte, name string) sniffed {
	s := sniffBytes(data, name)
	nt, known := nameType(name)
	if s.kind == KindText {
		// Text's subtype comes from the name: CSV, Markdown, source...
		if known && nt.family == "text" && nt.human != "text" {
			s.detected = nt.human + " (" + s.enc.String() + ")"
		}
	}
	if known && !compatibleFamilies(nt.family, s.family) {
		s.mismatch = visible(path.Base(strings.ReplaceAll(name, "\\", "/")), 512) +
			": its name says " + nt.human + ", its bytes are " + withArticle(s.detected)
	}
	return s
}

func compatibleFamilies(nameFamily, bytesFamily string) bool {
	if nameFamily == bytesFamily {
		return true
	}
	// An SVG is XML text; a text name on SVG bytes (or the reverse) is fine.
	pair := nameFamily + "/" + bytesFamily
	return pair == "text/svg" || pair == "svg/text" || pair == "text/empty" || bytesFamily == "empty"
}

// sniffBytes looks at magic numbers first, then containers, then text.
func sniffBytes(data []byte, name string) sniffed {
	nt, known := nameType(name)
	switch {
	case len(data) == 0:
		return sniffed{kind: KindText, family: "empty", detected: "empty file", enc: encUTF8}
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return imageType("png", "PNG image")
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return imageType("jpeg", "JPEG image")
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		return imageType("gif", "GIF image")
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return imageType("webp", "WebP image")
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WAVE":
		return media(KindAudio, "wav", "WAV audio", "audio/wav")
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "AVI ":
		return other("avi", "AVI video", KindVideo, "AVI video cannot be sent to the model")
	case isBMP(data):
		return imageType("bmp", "BMP image")
	case bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*")):
		return imageType("tiff", "TIFF image")
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return sniffed{kind: KindPDF, family: "pdf", detected: "PDF document"}
	case bytes.HasPrefix(data, []byte("ID3")):
		return media(KindAudio, "mp3", "MP3 audio", "audio/mpeg")
	case bytes.HasPrefix(data, []byte("fLaC")):
		return media(KindAudio, "flac", "FLAC audio", "audio/flac")
	case bytes.HasPrefix(data, []byte("OggS")):
		if bytes.Contains(data[:min(len(data), 4096)], []byte("\x80theora")) {
			return other("ogg", "Ogg video", KindVideo, "Ogg video cannot be sent to the model")
		}
		return media(KindAudio, "ogg", "Ogg audio", "audio/ogg")
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		return sniffISOBMFF(data, nt, known)
	case bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		if bytes.Contains(data[:min(len(data), 4096)], []byte("webm")) {
			return media(KindVideo, "ebml", "WebM video", "video/webm")
		}
		return other("ebml", "Matroska video", KindVideo, "Matroska video cannot be sent to the model; WebM, MP4 and QuickTime can")
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) || bytes.HasPrefix(data, []byte("PK\x07\x08")):
		return sniffZip(data)
	case bytes.HasPrefix(data, []byte{0x1F, 0x8B}):
		if tarInside(gzipPrefix(data)) {
			return sniffed{kind: KindArchive, family: "gzip", detected: "gzip-compressed tar archive"}
		}
		return other("gzip", "gzip-compressed file", KindOther, "only a tar archive inside gzip is listed; other compressed files are not opened")
	case bytes.HasPrefix(data, []byte("BZh")):
		if tarInside(bzip2Prefix(data)) {
			return sniffed{kind: KindArchive, family: "bzip2", detected: "bzip2-compressed tar archive"}
		}
		return other("bzip2", "bzip2-compressed file", KindOther, "only a tar archive inside bzip2 is listed; other compressed files are not opened")
	case len(data) >= 512 && tarInside(data[:512]):
		return sniffed{kind: KindArchive, family: "tar", detected: "tar archive"}
	case bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		return sniffOLE2(data, nt, known)
	case bytes.HasPrefix(data, []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}):
		return other("7z", "7-Zip archive", KindOther, "7-Zip archives are not opened here; ZIP and tar archives are listed")
	case bytes.HasPrefix(data, []byte("Rar!\x1a\x07")):
		return other("rar", "RAR archive", KindOther, "RAR archives are not opened here; ZIP and tar archives are listed")
	case bytes.HasPrefix(data, []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}):
		return other("xz", "xz-compressed file", KindOther, "xz-compressed files are not opened here")
	case bytes.HasPrefix(data, []byte{0x28, 0xB5, 0x2F, 0xFD}):
		return other("zstd", "Zstandard-compressed file", KindOther, "Zstandard-compressed files are not opened here")
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return other("elf", "ELF executable", KindOther, "programs are not shown as content")
	case isPE(data):
		return other("pe", "Windows executable", KindOther, "programs are not shown as content")
	case isMP3Frames(data, known && nt.family == "mp3"):
		return media(KindAudio, "mp3", "MP3 audio", "audio/mpeg")
	}
	enc, ok := classifyText(data)
	if !ok && bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		// PDF readers accept the header anywhere in the first kilobyte.
		return sniffed{kind: KindPDF, family: "pdf", detected: "PDF document"}
	}
	if !ok {
		return other("binary", "binary data", KindOther, "it is not text and not a format this server converts")
	}
	if isSVG(data, enc) {
		return sniffed{kind: KindImage, family: "svg", detected: "SVG image", enc: enc}
	}
	return sniffed{kind: KindText, family: "text", detected: enc.String() + " text", enc: enc}
}

func imageType(family, human string) sniffed {
	return sniffed{kind: KindImage, family: family, detected: human}
}

func media(kind Kind, family, human, mime string) sniffed {
	return sniffed{kind: kind, family: family, detected: human, mime: mime}
}

func other(family, human string, kind Kind, reason string) sniffed {
	return sniffed{kind: kind, family: family, detected: human, reason: reason}
}

// isBMP checks the "BM" magic and a known DIB header size, so text that
// starts with "BM" is not taken for a bitmap.
func isBMP(data []byte) bool {
	if len(data) < 26 || data[0] != 'B' || data[1] != 'M' {
		return false
	}
	switch binary.LittleEndian.Uint32(data[14:18]) {
	case 12, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

// isPE checks the DOS stub's pointer to a "PE\0\0" signature.
func isPE(data []byte) bool {
	if len(data) < 64 || data[0] != 'M' || data[1] != 'Z' {
		return false
	}
	off := int(binary.LittleEndian.Uint32(data[0x3C:0x40]))
	return off >= 64 && off <= len(data)-4 && string(data[off:off+4]) == "PE\x00\x00"
}

// sniffISOBMFF tells MP4, M4A, QuickTime and HEIF/AVIF apart by the ftyp
// brands; an MP4 brand on a file named .m4a is audio.
func sniffISOBMFF(data []byte, nt typeInfo, known bool) sniffed {
	boxSize := int(binary.BigEndian.Uint32(data[0:4]))
	end := min(len(data), max(boxSize, 12), 256)
	major := string(data[8:12])
	var brands []string
	brands = append(brands, major)
	for i := 16; i+4 <= end; i += 4 {
		brands = append(brands, string(data[i:i+4]))
	}
	has := func(set ...string) bool {
		for _, b := range brands {
			for _, s := range set {
				if b == s {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("avif", "avis"):
		return imageType("heif", "AVIF image")
	case has("heic", "heix", "hevc", "hevx", "mif1", "msf1", "heim", "heis"):
		return imageType("heif", "HEIC image")
	case major == "M4A " || major == "M4B " || major == "M4P ":
		return media(KindAudio, "mp4", "M4A audio", "audio/mp4")
	case major == "qt  ":
		return media(KindVideo, "mp4", "QuickTime video", "video/quicktime")
	case known && nt.kind == KindAudio && nt.family == "mp4":
		return media(KindAudio, "mp4", "M4A audio", "audio/mp4")
	case known && nt.human == "QuickTime video":
		return media(KindVideo, "mp4", "QuickTime video", "video/quicktime")
	}
	return media(KindVideo, "mp4", "MP4 video", "video/mp4")
}

// sniffZip tells Word, Excel and PowerPoint packages and OpenDocument files
// from plain zip archives by their marker parts.
func sniffZip(data []byte) sniffed {
	zipArchive := sniffed{kind: KindArchive, family: "zip", detected: "ZIP archive"}
	dir, err := findZipDir(data)
	if err != nil {
		return zipArchive
	}
	var contentTypes, word, excel, powerpoint, odf bool
	n := 0
	_ = dir.each(nil, func(e *zipEntry) bool {
		n++
		switch strings.ToLower(string(e.name)) {
		case "[content_types].xml":
			contentTypes = true
		case "word/document.xml":
			word = true
		case "xl/workbook.xml":
			excel = true
		case "ppt/presentation.xml":
			powerpoint = true
		case "mimetype":
			odf = true
		}
		return n < MaxSniffZipEntries
	})
	switch {
	case contentTypes && word:
		return sniffed{kind: KindDocument, family: "docx", detected: "Word document"}
	case contentTypes && excel:
		return sniffed{kind: KindSpreadsheet, family: "xlsx", detected: "Excel workbook"}
	case contentTypes && powerpoint:
		return sniffed{kind: KindPresentation, family: "pptx", detected: "PowerPoint presentation"}
	case odf && bytes.Contains(data[:min(len(data), 256)], []byte("application/vnd.oasis.opendocument")):
		return other("odf", "OpenDocument file", KindOther,
			"OpenDocument files are not converted here; a person can re-save it as .docx, .xlsx or .pptx and share that file")
	}
	return zipArchive
}

// sniffOLE2 names a legacy Office file by the streams its directory holds.
func sniffOLE2(data []byte, nt typeInfo, known bool) sniffed {
	utf16 := func(s string) []byte {
		b := make([]byte, 0, 2*len(s))
		for i := 0; i < len(s); i++ {
			b = append(b, s[i], 0)
		}
		return b
	}
	advice := func(ext string) string {
		return "legacy Office files are not converted here; a person can open it, save it as " + ext + " and share that file"
	}
	switch {
	case bytes.Contains(data, utf16("WordDocument")):
		return other("ole2", "Word 97-2003 document", KindOther, advice(".docx"))
	case bytes.Contains(data, utf16("Workbook")) || bytes.Contains(data, utf16("Book")):
		return other("ole2", "Excel 97-2003 workbook", KindOther, advice(".xlsx"))
	case bytes.Contains(data, utf16("PowerPoint Document")):
		return other("ole2", "PowerPoint 97-2003 presentation", KindOther, advice(".pptx"))
	case known && nt.family == "ole2":
		return other("ole2", nt.human, KindOther, advice(".docx, .xlsx or .pptx"))
	}
	return other("ole2", "legacy Office (OLE2) file", KindOther, advice(".docx, .xlsx or .pptx"))
}

// tarInside reports whether block starts with a tar header: the ustar magic,
// or an old-style header whose checksum is right.
func tarInside(block []byte) bool {
	if len(block) < 512 {
		return false
	}
	if string(block[257:262]) == "ustar" {
		return true
	}
	// v7 tar: checksum over the header with the checksum field as spaces.
	field := strings.TrimRight(strings.TrimSpace(strings.Trim(string(block[148:156]), "\x00 ")), "\x00")
	if field == "" {
		return false
	}
	var want int64
	for _, c := range field {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	var sum int64
	for i, b := range block[:512] {
		if i >= 148 && i < 156 {
			b = ' '
		}
		sum += int64(b)
	}
	return sum == want && want != 256 // 256 is a header of only zeros
}

// gzipPrefix inflates the first few hundred bytes of a gzip stream.
func gzipPrefix(data []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	buf := make([]byte, MaxSniffDecompressBytes)
	n, _ := io.ReadFull(zr, buf)
	return buf[:n]
}

// bzip2Prefix decompresses the first few hundred bytes of a bzip2 stream
// (bzip2 decodes a whole block, at most 900 kB, before the first byte).
func bzip2Prefix(data []byte) []byte {
	buf := make([]byte, MaxSniffDecompressBytes)
	n, _ := io.ReadFull(bzip2.NewReader(bytes.NewReader(data)), buf)
	return buf[:n]
}

// isMP3Frames recognises MPEG audio without an ID3 tag: a valid frame header
// followed by a second one where the first says it ends. A single header is
// taken only when the name also says MP3.
func isMP3Frames(data []byte, nameSaysMP3 bool) bool {
	n, ok := mp3FrameLen(data)
	if !ok {
		return false
	}
	if _, ok := mp3FrameLen(data[min(n, len(data)):]); ok {
		return true
	}
	return nameSaysMP3
}

// mp3FrameLen decodes an MPEG-1/2/2.5 layer III frame header.
func mp3FrameLen(h []byte) (int, bool) {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return 0, false
	}
	version := (h[1] >> 3) & 3 // 0: 2.5, 2: 2, 3: 1
	layer := (h[1] >> 1) & 3   // 1: layer III
	bitrateIdx := h[2] >> 4
	rateIdx := (h[2] >> 2) & 3
	if version == 1 || layer != 1 || bitrateIdx == 0 || bitrateIdx == 15 || rateIdx == 3 {
		return 0, false
	}
	v1 := [...]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	v2 := [...]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
	rates := [...][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	rate := rates[version][rateIdx]
	padding := int((h[2] >> 1) & 1)
	if version == 3 {
		return 144*v1[bitrateIdx]*1000/rate + padding, true
	}
	return 72*v2[bitrateIdx]*1000/rate + padding, true
}

// isSVG reports text whose first element is <svg>.
func isSVG(data []byte, enc textEncoding) bool {
	if enc != encUTF8 && enc != encUTF8BOM {
		return false
	}
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte("<svg"))
	if i < 0 {
		return false
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")))
	return bytes.HasPrefix(trimmed, []byte("<svg")) || bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<!DOCTYPE svg")) || bytes.HasPrefix(trimmed, []byte("<!--"))
}

// zipFamilies are the formats stored as a zip archive. A zip's directory
// is at its end, so the start of one tells only "a zip": among these the
// name decides, and a plain zip asked for takes any of them.
var zipFamilies = map[string]bool{"zip": true, "docx": true, "xlsx": true, "pptx": true, "odf": true}

// FitsExtension reports whether a file whose bytes start with head and
// whose name is name can be a file of extension ext (".pdf"): the bytes
// decide wherever they tell the format, and the name only chooses among
// the types the bytes leave open (CSV or Markdown among text, a Word file
// among zips read from their start), so HTML named report.pdf does not fit
// ".pdf" and a PDF named "scan" does. An extension this package does not
// know is matched on the name alone, and known is false.
func FitsExtension(head []byte, name, ext string) (fits, known bool) {
	ext = strings.ToLower(ext)
	want, known := nameType("file" + ext)
	named := strings.HasSuffix(strings.ToLower(name), ext)
	if !known {
		return named, false
	}
	s := sniff(head, name)
	if !familyFits(want.family, s.family) {
		return false, true
	}
	return named || s.detected == want.human, true
}

// familyFits is whether bytes of family got can be a file of family want.
func familyFits(want, got string) bool {
	switch {
	case got == "empty":
		// An empty file is empty text, not an empty PDF or image.
		return want == "text"
	case zipFamilies[want] && zipFamilies[got]:
		return got == "zip" || want == "zip" || got == want
	}
	return compatibleFamilies(want, got)
}
