package fileview

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file writes the sentences the model reads: which file this is, what
// follows, what was left out, and the exact next call.

// fileLine is the header's first line: the file's name, type and size
// (size < 0 leaves the size out).
func fileLine(name, detected string, size int64) string {
	n := visible(name, 512)
	if n == "" {
		n = "(no name)"
	}
	if size < 0 {
		return fmt.Sprintf("File %q: %s.", n, detected)
	}
	return fmt.Sprintf("File %q: %s, %s.", n, detected, sizeText(size))
}

// windowLines says which lines follow and what to call next.
func windowLines(req Request, w *Window) string {
	if w.TotalLines == 0 {
		return "The file is empty: 0 lines. This is the end of the file."
	}
	var b strings.Builder
	if w.Start == w.End {
		fmt.Fprintf(&b, "Line %s of %s follows", commas(int64(w.Start)), commas(int64(w.TotalLines)))
	} else {
		fmt.Fprintf(&b, "Lines %s-%s of %s follow", commas(int64(w.Start)), commas(int64(w.End)), commas(int64(w.TotalLines)))
	}
	b.WriteString(", numbered: each line is its line number, a tab, then the line.")
	if w.StartColumn > 1 {
		fmt.Fprintf(&b, " Line %s continues from byte %s of that line; the bytes before it were in the previous window.",
			commas(int64(w.Start)), commas(int64(w.StartColumn)))
	}
	if w.NextStart == 0 {
		b.WriteString(" This is the end of the file.")
		return b.String()
	}
	if w.NextColumn > 1 {
		fmt.Fprintf(&b, " Line %s is longer than one window: it is cut after byte %s of that line and continues in the next window.",
			commas(int64(w.End)), commas(int64(w.NextColumn-1)))
	}
	fmt.Fprintf(&b, "\nNext call: %s", renderCall(req, w.NextStart, w.NextColumn, windowLimit(req)))
	return b.String()
}

// windowLimit is the request's limit, or the default when it has none.
func windowLimit(req Request) int {
	if req.Limit == 0 {
		return DefaultWindowLines
	}
	return req.Limit
}

// renderCall renders a call to read the window at offset/column.
func renderCall(req Request, offset, column, limit int) string {
	if column < 1 {
		column = 1
	}
	if req.NextCall != nil {
		return req.NextCall(offset, column, limit)
	}
	if column > 1 {
		return fmt.Sprintf("offset=%d column=%d limit=%d", offset, column, limit)
	}
	return fmt.Sprintf("offset=%d limit=%d", offset, limit)
}

// sentence trims s and ends it with a full stop unless it already ends a
// sentence.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// commas writes n with thousands separators: 12034 -> "12,034".
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// countNoun writes "1 line" or "12,034 lines".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(int64(n)) + " " + many
}

// sizeText writes a byte count the way a person reads it: exact bytes, with
// megabytes or gigabytes beside large numbers (decimal units, as the caps are).
func sizeText(n int64) string {
	exact := countNoun64(n, "byte", "bytes")
	switch {
	case n >= 1_000_000_000:
		return fmt.Sprintf("%s (%.1f GB)", exact, float64(n)/1e9)
	case n >= 1_000_000:
		return fmt.Sprintf("%s (%.1f MB)", exact, float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%s (%.0f KB)", exact, float64(n)/1e3)
	}
	return exact
}

func countNoun64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(n) + " " + many
}

// withArticle puts "a" or "an" before a type name the way it is said aloud:
// "a ZIP archive", "an HEIC image", "an Excel workbook". Text, audio and
// video need none.
func withArticle(t string) string {
	if t == "" {
		return "unknown data"
	}
	first, _, _ := strings.Cut(t, " ")
	if t == "text" || strings.HasPrefix(t, "binary") || strings.HasPrefix(t, "unknown") ||
		strings.HasSuffix(t, " text") || strings.HasSuffix(t, " audio") || strings.HasSuffix(t, " video") {
		// Mass nouns: "its bytes are UTF-8 text", "its bytes are MP4 video".
		return t
	}
	r, _ := utf8.DecodeRuneInString(first)
	acronym := len(first) > 1 && strings.ToUpper(first) == first
	if acronym {
		if strings.ContainsRune("AEFHILMNORSX", unicode.ToUpper(r)) {
			return "an " + t
		}
		return "a " + t
	}
	if strings.ContainsRune("AEIOUaeiou", r) {
		return "an " + t
	}
	return "a " + t
}

// visible makes a name safe to show: control, format (bidi, zero-width) and
// separator characters and invalid UTF-8 become U+FFFD, so a name can neither
// break a line nor reorder what the model reads; it is cut at max bytes.
func visible(s string, max int) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || invisible(r) {
			clean = false
			break
		}
	}
	if clean && len(s) <= max {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i >= max {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError || invisible(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisible reports characters that would hide, move or break text: C0/C1
// controls (tab and newline included), DEL, format characters such as bidi
// overrides and zero-width joiners, and line/paragraph separators.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}
