package fileview

import (
	"context"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// textEncoding is how a text file's bytes encode its characters.
type textEncoding int

const (
	encUTF8 textEncoding = iota
	encUTF8BOM
	encUTF16LE
	encUTF16BE
	encWindows1252
)

func (e textEncoding) String() string {
	switch e {
	case encUTF16LE:
		return "UTF-16LE"
	case encUTF16BE:
		return "UTF-16BE"
	case encWindows1252:
		return "Windows-1252"
	}
	return "UTF-8"
}

// classifyText decides whether data is text and in which encoding: a BOM
// decides first; then valid UTF-8; then Windows-1252 when every byte is one
// that encoding defines and no control character but tab, newline, carriage
// return, form feed and escape (ANSI colours in logs) appears.
func classifyText(data []byte) (textEncoding, bool) {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		return encUTF8BOM, true
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		return encUTF16LE, true
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		return encUTF16BE, true
	}
	for _, b := range data {
		if b < 0x20 && !allowedControl(b) {
			return 0, false
		}
	}
	if utf8.Valid(data) {
		return encUTF8, true
	}
	for _, b := range data {
		if b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D {
			return 0, false
		}
	}
	return encWindows1252, true
}

func allowedControl(b byte) bool {
	return b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x1B
}

// cp1252 holds the characters Windows-1252 puts at 0x80-0x9F (0 where it
// defines none); 0xA0-0xFF are the same code points as Latin-1.
var cp1252 = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// decodeText turns data in enc into UTF-8 with "\n" line ends. Invalid
// sequences become U+FFFD.
func decodeText(ctx context.Context, data []byte, enc textEncoding) (string, error) {
	var b strings.Builder
	switch enc {
	case encUTF8BOM:
		data = data[3:]
		fallthrough
	case encUTF8:
		if !utf8.Valid(data) {
			return normaliseText(strings.ToValidUTF8(string(data), "\uFFFD")), nil
		}
		return normaliseText(string(data)), nil
	case encWindows1252:
		b.Grow(len(data) + len(data)/8)
		for i, c := range data {
			if i%(64<<10) == 0 {
				if err := ctx.Err(); err != nil {
					return "", err
				}
			}
			switch {
			case c < 0x80:
				b.WriteByte(c)
			case c < 0xA0:
				r := cp1252[c-0x80]
				if r == 0 {
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				b.WriteRune(rune(c))
			}
		}
	case encUTF16LE, encUTF16BE:
		data = data[2:]
		b.Grow(len(data) + len(data)/2)
		units := make([]uint16, 0, 4096)
		for i := 0; i+1 < len(data); i += 2 {
			if enc == encUTF16LE {
				units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
			} else {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			}
			// Flush whole chunks, never between the halves of a surrogate pair.
			if len(units) >= 4096 && !utf16.IsSurrogate(rune(units[len(units)-1])) {
				if err := ctx.Err(); err != nil {
					return "", err
				}
				for _, r := range utf16.Decode(units) {
					b.WriteRune(r)
				}
				units = units[:0]
			}
		}
		for _, r := range utf16.Decode(units) {
			b.WriteRune(r)
		}
		if len(data)%2 == 1 {
			b.WriteRune(utf8.RuneError) // a half character at the end
		}
	}
	return normaliseText(strings.TrimPrefix(b.String(), "\uFEFF")), nil
}

// normaliseText turns CRLF and lone CR line ends into LF.
func normaliseText(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// convertText reads a text file into a window.
func convertText(ctx context.Context, data []byte, req Request, s sniffed) (*View, error) {
	text, err := decodeText(ctx, data, s.enc)
	if err != nil {
		return nil, err
	}
	var about []string
	switch s.enc {
	case encWindows1252:
		about = append(about, "Its bytes are not UTF-8; they were read as Windows-1252 and are shown as UTF-8.")
	case encUTF16LE, encUTF16BE:
		about = append(about, "It is encoded as "+s.enc.String()+" (with a byte-order mark); it is shown as UTF-8.")
	}
	return windowView(ctx, text, req, KindText, s.detected, s.mismatch, int64(len(data)), about)
}
