package fileview

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// window cuts one window of numbered lines out of text (UTF-8, "\n" line
// ends). A final "\n" does not start another line. Each line is written as
// its number right-aligned to the width of the largest line number, a tab,
// the line and "\n"; the whole window, numbers included, stays within
// MaxWindowBytes. A line that alone does not fit is cut at a character
// boundary, and the window says the byte column its next part starts at.
func window(ctx context.Context, text string, lines *Lines, req Request) (string, *Window, error) {
	limit := windowLimit(req)
	if lines == nil || lines.bytes != len(text) {
		lines = nil // not this text's: count and scan
	}
	total := lines.count(text)
	if limit < 1 || limit > MaxWindowLines {
		return "", nil, &RangeError{Offset: req.Offset, TotalLines: total, Limit: limit, Name: visible(req.Name, 512),
			Valid: renderCall(req, max(1, min(req.Offset, total)), 1, DefaultWindowLines)}
	}
	offset, column := req.Offset, req.Column
	if offset == 0 {
		offset = 1
	}
	if column == 0 {
		column = 1
	}
	if total == 0 {
		if offset == 1 && column == 1 {
			return "", &Window{}, nil
		}
		return "", nil, &RangeError{Offset: offset, TotalLines: 0, Name: visible(req.Name, 512), Valid: renderCall(req, 1, 1, limit)}
	}
	if offset < 1 || offset > total {
		return "", nil, &RangeError{Offset: offset, TotalLines: total, Name: visible(req.Name, 512),
			Valid: renderCall(req, max(1, total-limit+1), 1, limit)}
	}
	// Find the start of line offset, from the nearest indexed line.
	pos, line := lines.near(offset)
	for ; line < offset; line++ {
		if line%(64<<10) == 0 {
			if err := ctx.Err(); err != nil {
				return "", nil, err
			}
		}
		pos += strings.IndexByte(text[pos:], '\n') + 1
	}
	first := lineAt(text, pos)
	if column < 1 || column-1 > len(first) {
		return "", nil, &RangeError{Offset: offset, TotalLines: total, Column: column, LineBytes: len(first),
			Name: visible(req.Name, 512), Valid: renderCall(req, offset, 1, limit)}
	}
	// A column inside a character moves back to the character's start.
	start := column - 1
	for start > 0 && start < len(first) && !utf8.RuneStart(first[start]) {
		start--
	}
	column = start + 1
	pos += start

	width := len(strconv.Itoa(total))
	var b strings.Builder
	b.Grow(min(MaxWindowBytes, len(text)-pos+limit*(width+2)))
	w := &Window{TotalLines: total, Start: offset, StartColumn: column}
	line, col := offset, column
	numBuf := make([]byte, 0, 24)
	for n := 0; n < limit && line <= total; n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return "", nil, err
			}
		}
		content := lineAt(text, pos)
		numBuf = appendNumber(numBuf[:0], line, width)
		need := len(numBuf) + 1 + len(content) + 1
		if b.Len()+need > MaxWindowBytes {
			if n > 0 {
				break // the line starts the next window
			}
			// The line alone does not fit: cut it at a character boundary.
			room := MaxWindowBytes - len(numBuf) - 2
			cut := room
			for cut > 0 && !utf8.RuneStart(content[cut]) {
				cut--
			}
			if cut == 0 { // cannot happen with a 32 KiB window; keep paging moving
				_, cut = utf8.DecodeRuneInString(content)
			}
			b.Write(numBuf)
			b.WriteByte('\t')
			b.WriteString(content[:cut])
			b.WriteByte('\n')
			w.End = line
			w.NextStart, w.NextColumn = line, col+cut
			return b.String(), w, nil
		}
		b.Write(numBuf)
		b.WriteByte('\t')
		b.WriteString(content)
		b.WriteByte('\n')
		w.End = line
		pos += len(content) + 1
		line++
		col = 1
	}
	if line <= total {
		w.NextStart, w.NextColumn = line, 1
	}
	return b.String(), w, nil
}

// lineAt is the rest of the line that starts at pos, without its "\n".
func lineAt(text string, pos int) string {
	if pos >= len(text) {
		return ""
	}
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		return text[pos : pos+i]
	}
	return text[pos:]
}

// lineStride: a text's line index keeps where every lineStride-th line
// starts, so a window of a long kept text scans at most that many lines to
// find its first one, and never counts the whole text again; the index of
// a 16 MiB text of short lines is a few hundred offsets.
const lineStride = 1024

// Lines indexes a text's lines: how many there are and where every
// lineStride-th one starts. A nil *Lines is no index: its methods count
// and scan.
type Lines struct {
	bytes  int   // the length of the text it indexes
	total  int   // countLines of it
	starts []int // starts[k] is the byte offset of line k*lineStride+1
}

// IndexLines indexes text's lines.
func IndexLines(text string) *Lines {
	l := &Lines{bytes: len(text), total: countLines(text), starts: []int{0}}
	for pos, line := 0, 1; ; line++ {
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 || pos+i+1 >= len(text) {
			return l
		}
		pos += i + 1
		if line%lineStride == 0 {
			l.starts = append(l.starts, pos)
		}
	}
}

func (l *Lines) count(text string) int {
	if l == nil {
		return countLines(text)
	}
	return l.total
}

// near is the indexed line at or before line offset and where it starts.
func (l *Lines) near(offset int) (pos, line int) {
	if l == nil {
		return 0, 1
	}
	k := min((offset-1)/lineStride, len(l.starts)-1)
	return l.starts[k], k*lineStride + 1
}

// countLines counts lines; a final "\n" ends the last line rather than
// starting an empty one.
func countLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// appendNumber writes n right-aligned in width columns.
func appendNumber(dst []byte, n, width int) []byte {
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], int64(n), 10)
	for i := len(digits); i < width; i++ {
		dst = append(dst, ' ')
	}
	return append(dst, digits...)
}
