// Package fileview turns a file's bytes into what a model can read through
// MCP: numbered windows of text, the extracted text of Word, Excel and
// PowerPoint files, archive listings, images, and small audio and video.
//
// It is pure: bytes and a request in, a bounded view out. It makes no network
// call, touches no disk and knows nothing of Mattermost. Every limit is a
// constant in limits.go, every loop checks its context, and a cancelled call
// returns the context's error, never a truncated view.
package fileview

import (
	"context"
	"fmt"
	"strings"
)

// Request says which file is being read and which window of it.
type Request struct {
	// Name is the file name as stored.
	Name string
	// Offset is the 1-based first line of the window; 0 means 1.
	Offset int
	// Column is the 1-based byte column within line Offset where the window
	// starts; 0 means 1. A line longer than one window is cut at a character
	// boundary and the header's next call continues it with a column, so paging
	// never loses or repeats a byte.
	Column int
	// Limit is the number of lines in the window; 0 means DefaultWindowLines.
	Limit int
	// Permalink is where a person can open the file (a post link); it is put in
	// descriptions of files that are not read.
	Permalink string
	// NextCall renders the exact call that reads the window starting at line
	// offset, byte column column (1 = the start of the line; a renderer may omit
	// it then) with limit lines, for example
	// `read_file(file_id="abc", offset=501, limit=500)`. When nil the header says
	// "offset=501 limit=500" (and "column=N" when N > 1).
	NextCall func(offset, column, limit int) string
}

// Kind is what a file is, as far as reading it goes.
type Kind string

// The kinds of file a View can be.
const (
	KindText         Kind = "text"
	KindDocument     Kind = "document"     // Word .docx
	KindPresentation Kind = "presentation" // PowerPoint .pptx
	KindSpreadsheet  Kind = "spreadsheet"  // Excel .xlsx
	KindArchive      Kind = "archive"
	KindImage        Kind = "image"
	KindAudio        Kind = "audio"
	KindVideo        Kind = "video"
	KindPDF          Kind = "pdf"
	KindOther        Kind = "other"
)

// Window says which lines a windowed view holds.
type Window struct {
	TotalLines int // lines in the whole text
	Start      int // first line in this window (1-based); 0 for an empty text
	End        int // last line in this window, possibly only its first part
	NextStart  int // first line of the next window; 0 when this is the last window
	// StartColumn is the 1-based byte column in line Start where this window
	// begins: 1 unless it continues a line cut by the previous window.
	StartColumn int
	// NextColumn is the byte column in line NextStart where the next window
	// begins: 1 normally, more than 1 when line End was cut and continues, 0
	// when this is the last window.
	NextColumn int
}

// Image is an image ready to be sent to the model.
type Image struct {
	Data                          []byte
	MIMEType                      string
	OriginalWidth, OriginalHeight int
	Width, Height                 int
	OriginalBytes, Bytes          int
	Turned, Scaled, Reencoded     bool
	Frames                        int // frames in the original (animated GIF); the image is the first
}

// Media is audio or video small enough to be sent as itself.
type Media struct {
	Data     []byte
	MIMEType string
}

// View is what the model gets for one file.
type View struct {
	Kind     Kind
	Detected string // human type from the bytes, e.g. "PNG image", "ZIP archive", "UTF-8 text"
	Mismatch string // "" or e.g. "report.png: its name says PNG image, its bytes are a ZIP archive"
	Header   string // the text the model reads first
	Text     string // the numbered window (windowed kinds)
	Window   *Window
	Image    *Image // kind image, when decodable and within limits
	Media    *Media // audio or video within MaxMediaBytes
	// Whole is the whole text a windowed view was cut from (text, Office
	// files, archive listings): a caller that keeps it cuts the next window
	// from it without the file's bytes or another conversion.
	Whole *Text
}

// Version names what Convert produces. Bump it whenever a conversion's
// output changes, so a kept Whole from an older version is not reused.
const Version = "1"

// Text is the whole text of a converted file and the facts its windows'
// headers tell.
type Text struct {
	Kind     Kind     `json:"kind"`
	Detected string   `json:"detected"`
	Mismatch string   `json:"mismatch,omitempty"`
	Size     int64    `json:"size"`
	About    []string `json:"about,omitempty"`
	Body     string   `json:"body"`
	// lines indexes Body's lines once the text is kept (Index): a window of
	// it then costs the window, not the text.
	lines *Lines
}

// Index indexes the text's lines for the windows to come; call it before
// the text is shared, as it is not safe to call beside Window.
func (t *Text) Index() { t.lines = IndexLines(t.Body) }

// Window cuts one window of the text, as Convert would from the file.
func (t *Text) Window(ctx context.Context, req Request) (*View, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return windowViewOf(ctx, t.Body, t.lines, req, t.Kind, t.Detected, t.Mismatch, t.Size, t.About)
}

// RangeError is returned when a request's window does not exist: Offset past
// the last line, Column past the end of its line, or Limit outside
// [1, MaxWindowLines]. Its message says how many lines the file has and gives
// a call that works.
type RangeError struct {
	Offset, TotalLines int
	Column             int    // the requested column, when it was the problem
	LineBytes          int    // bytes in line Offset, when Column was the problem
	Limit              int    // the requested limit, when it was the problem
	Name               string // the file's name
	Valid              string // a call that works
}

func (e *RangeError) Error() string {
	name := e.Name
	if name == "" {
		name = "the file"
	}
	lines := countNoun(e.TotalLines, "line", "lines")
	switch {
	case e.Limit != 0:
		return fmt.Sprintf("limit=%d is out of range: a window holds 1 to %d lines. %s has %s; try %s",
			e.Limit, MaxWindowLines, name, lines, e.Valid)
	case e.TotalLines == 0:
		return fmt.Sprintf("offset=%d is past the end: %s is empty (0 lines); try %s", e.Offset, name, e.Valid)
	case e.Column != 0:
		return fmt.Sprintf("column=%d is past the end of line %d, which has %s; %s has %s; try %s",
			e.Column, e.Offset, countNoun(e.LineBytes, "byte", "bytes"), name, lines, e.Valid)
	default:
		return fmt.Sprintf("offset=%d is out of range: %s has %s (offsets 1 to %s); try %s",
			e.Offset, name, lines, commas(int64(e.TotalLines)), e.Valid)
	}
}

// Convert turns a file's bytes into a bounded view. It returns a *RangeError
// when the requested window does not exist, and the context's error when ctx
// is cancelled; any other input, however damaged, gives a view that says what
// could and could not be read.
func Convert(ctx context.Context, data []byte, req Request) (*View, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A file over the cap is typed from its first MaxInputBytes only.
	s := sniff(data[:min(len(data), MaxInputBytes)], req.Name)
	if len(data) > MaxInputBytes {
		v := describeView(req, int64(len(data)), s.detected, s.kind, s.mismatch,
			fmt.Sprintf("it is larger than %s, the most this server reads into memory for one file", sizeText(MaxInputBytes)))
		return v, nil
	}
	var (
		v   *View
		err error
	)
	switch s.kind {
	case KindText:
		v, err = convertText(ctx, data, req, s)
	case KindDocument, KindPresentation, KindSpreadsheet:
		v, err = convertOffice(ctx, data, req, s)
	case KindArchive:
		v, err = convertArchive(ctx, data, req, s)
	case KindImage:
		v, err = convertImage(ctx, data, req, s)
	case KindAudio, KindVideo:
		v = convertMedia(data, req, s)
	case KindPDF:
		v = describeView(req, int64(len(data)), s.detected, KindPDF, s.mismatch,
			"the text of a PDF can be read only when the server has extracted it, and no extracted text came with this file")
	default:
		v = describeView(req, int64(len(data)), s.detected, KindOther, s.mismatch, s.reason)
	}
	if err != nil {
		return nil, err
	}
	// A cancellation that raced with the last loop must not leave a view that
	// is quietly shorter than it should be.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return v, nil
}

// Describe gives a view of a file whose bytes are not read, for example one
// over the admin's largest-file setting: its name, type, size, why it is not
// read, and where a person can open it. detectedOrDeclaredType may be a human
// type ("QuickTime video") or a MIME type ("video/quicktime").
func Describe(req Request, size int64, detectedOrDeclaredType string, reason string) *View {
	typ := strings.TrimSpace(detectedOrDeclaredType)
	kind := kindOfType(typ, req.Name)
	if typ == "" {
		if nt, ok := nameType(req.Name); ok {
			typ = nt.human
		} else {
			typ = "file of unknown type"
		}
	}
	return describeView(req, size, typ, kind, "", reason)
}

// WindowOfText gives a numbered window over text that was extracted elsewhere
// (for example the text Mattermost extracted from a PDF). what says what the
// text is, e.g. "text Mattermost extracted from the PDF; layout, images and
// tables are not included".
func WindowOfText(ctx context.Context, text string, req Request, what string) (*View, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text = normaliseText(strings.ToValidUTF8(text, "\uFFFD"))
	kind := KindText
	detected := "text"
	if nt, ok := nameType(req.Name); ok {
		kind = nt.kind
		detected = nt.human
	}
	var about []string
	if what = strings.TrimSpace(what); what != "" {
		about = append(about, sentence(what))
	}
	return windowView(ctx, text, req, kind, detected, "", -1, about)
}

// windowView builds the view of one window over text, with a header made of
// the file line, the about sentences and the window's position and next call.
func windowView(ctx context.Context, text string, req Request, kind Kind, detected, mismatch string, size int64, about []string) (*View, error) {
	return windowViewOf(ctx, text, nil, req, kind, detected, mismatch, size, about)
}

// windowViewOf is windowView with the text's line index, if it has one.
func windowViewOf(ctx context.Context, text string, lines *Lines, req Request, kind Kind, detected, mismatch string, size int64, about []string) (*View, error) {
	body, w, err := window(ctx, text, lines, req)
	if err != nil {
		return nil, err
	}
	var h strings.Builder
	h.WriteString(fileLine(req.Name, detected, size))
	if mismatch != "" {
		h.WriteString("\n" + sentence(mismatch))
	}
	for _, a := range about {
		h.WriteString("\n" + a)
	}
	h.WriteString("\n" + windowLines(req, w))
	whole := &Text{Kind: kind, Detected: detected, Mismatch: mismatch, Size: size, About: about, Body: text}
	return &View{Kind: kind, Detected: detected, Mismatch: mismatch, Header: h.String(), Text: body, Window: w, Whole: whole}, nil
}

// describeView is the view of a file whose content is not shown.
func describeView(req Request, size int64, detected string, kind Kind, mismatch, reason string) *View {
	var h strings.Builder
	h.WriteString(fileLine(req.Name, detected, size))
	if mismatch != "" {
		h.WriteString("\n" + sentence(mismatch))
	}
	if reason != "" {
		h.WriteString("\nIts content is not shown: " + sentence(reason))
	}
	h.WriteString("\n" + personLink(req.Permalink))
	return &View{Kind: kind, Detected: detected, Mismatch: mismatch, Header: h.String()}
}

func personLink(permalink string) string {
	permalink = visible(strings.TrimSpace(permalink), 2048)
	if permalink == "" {
		return "No link for a person to open it came with this request."
	}
	return "A person can open it at " + permalink
}

// kindOfType guesses a kind from a MIME or human type and the file name, for
// files whose bytes are not at hand.
func kindOfType(typ, name string) Kind {
	t := strings.ToLower(typ)
	switch {
	case strings.HasPrefix(t, "image/") || strings.HasSuffix(t, " image"):
		return KindImage
	case strings.HasPrefix(t, "audio/") || strings.HasSuffix(t, " audio"):
		return KindAudio
	case strings.HasPrefix(t, "video/") || strings.HasSuffix(t, " video"):
		return KindVideo
	case t == "application/pdf" || strings.HasPrefix(t, "pdf"):
		return KindPDF
	case strings.HasPrefix(t, "text/") || strings.HasSuffix(t, " text"):
		return KindText
	}
	for k, mimes := range map[Kind][]string{
		KindDocument:     {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "word document"},
		KindSpreadsheet:  {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "excel workbook"},
		KindPresentation: {"application/vnd.openxmlformats-officedocument.presentationml.presentation", "powerpoint presentation"},
		KindArchive:      {"application/zip", "application/x-tar", "application/gzip", "zip archive", "tar archive"},
	} {
		for _, m := range mimes {
			if t == m {
				return k
			}
		}
	}
	if nt, ok := nameType(name); ok {
		return nt.kind
	}
	return KindOther
}
