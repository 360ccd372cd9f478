package fileview

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// This file opens Office packages (zip files of XML parts) within the
// package limits, and walks their XML one token at a time with the nesting
// depth counted, never recursing.

var (
	errPartCap       = errors.New("part larger than the per-part cap")
	errPackageCap    = errors.New("package larger than the total cap")
	errTooDeep       = errors.New("XML nested too deeply")
	errTooManyParts  = errors.New("too many parts")
	errTextFull      = errors.New("extracted-text cap reached")
	errPartNotExists = fs.ErrNotExist
)

// pkg is an opened Office package.
type pkg struct {
	ctx    context.Context
	byName map[string]*zip.File // lower-case part name -> part
	left   int64                // decompressed bytes the whole package may still read
}

// openPackage opens data as a zip of parts, refusing one with more parts
// than any real Office file has before archive/zip gets to hold them all.
func openPackage(ctx context.Context, data []byte) (*pkg, error) {
	dir, err := findZipDir(data)
	if err != nil {
		return nil, err
	}
	n := 0
	if err := dir.each(ctx, func(*zipEntry) bool { n++; return n <= MaxPackageEntries }); err != nil {
		return nil, err
	}
	if n > MaxPackageEntries {
		return nil, errTooManyParts
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, err
	}
	p := &pkg{ctx: ctx, byName: make(map[string]*zip.File, len(zr.File)), left: MaxPackageBytes}
	for _, f := range zr.File {
		key := strings.ToLower(strings.TrimPrefix(f.Name, "/"))
		if _, dup := p.byName[key]; !dup {
			p.byName[key] = f
		}
	}
	return p, nil
}

func (p *pkg) has(name string) bool {
	_, ok := p.byName[strings.ToLower(strings.TrimPrefix(name, "/"))]
	return ok
}

// open streams one part's decompressed bytes, at most limit of them and no
// more than the package has left. The size the zip declares is not trusted.
// errStopWalk ends eachToken early, without an error.
var errStopWalk = errors.New("stop walking")

// eachToken streams one part (at most limit decompressed bytes) and hands
// every XML token to fn, until the end of the part, an error, or fn
// returning errStopWalk.
func (p *pkg) eachToken(ctx context.Context, part string, limit int64, fn func(w *xmlWalker, t xml.Token) error) error {
	r, err := p.open(part, limit)
	if err != nil {
		return err
	}
	defer r.Close()
	w := newWalker(ctx, r)
	for {
		t, err := w.next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = fn(w, t)
		}
		if errors.Is(err, errStopWalk) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *pkg) open(name string, limit int64) (*partReader, error) {
	f, ok := p.byName[strings.ToLower(strings.TrimPrefix(name, "/"))]
	if !ok {
		return nil, errPartNotExists
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	return &partReader{p: p, rc: rc, left: limit}, nil
}

// partReader reads a part within its own cap and the package's.
type partReader struct {
	p    *pkg
	rc   io.ReadCloser
	left int64
}

func (r *partReader) Read(b []byte) (int, error) {
	if err := r.p.ctx.Err(); err != nil {
		return 0, err
	}
	if r.left <= 0 {
		return 0, errPartCap
	}
	if r.p.left <= 0 {
		return 0, errPackageCap
	}
	n := min(int64(len(b)), r.left, r.p.left)
	got, err := r.rc.Read(b[:n])
	r.left -= int64(got)
	r.p.left -= int64(got)
	return got, err
}

func (r *partReader) Close() error { return r.rc.Close() }

// xmlWalker hands out raw XML tokens with the element depth counted and the
// context checked, refusing nesting beyond MaxXMLDepth.
type xmlWalker struct {
	ctx   context.Context
	d     *xml.Decoder
	depth int
	n     int
}

func newWalker(ctx context.Context, r io.Reader) *xmlWalker {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		}
		return nil, fmt.Errorf("XML in %q is not supported", label)
	}
	return &xmlWalker{ctx: ctx, d: d}
}

// next returns the next token; for an end element, depth is already the
// depth outside it. Char data is only valid until the following call.
func (w *xmlWalker) next() (xml.Token, error) {
	w.n++
	if w.n%ctxCheckEvery == 0 {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
	}
	t, err := w.d.RawToken()
	if err != nil {
		return nil, err
	}
	switch t.(type) {
	case xml.StartElement:
		w.depth++
		if w.depth > MaxXMLDepth {
			return nil, errTooDeep
		}
	case xml.EndElement:
		if w.depth > 0 {
			w.depth--
		}
	}
	return t, nil
}

// attr is the value of the attribute with this local name (any prefix).
func attr(el xml.StartElement, local string) string {
	for _, a := range el.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// relID is the value of a prefixed id attribute (r:id), as opposed to an
// unprefixed id that some elements also carry.
func relID(el xml.StartElement) string {
	for _, a := range el.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}

// rel is one relationship of a part.
type rel struct {
	typ, target string // target resolved to a part name
	external    bool
}

// readRels reads the relationships of part (from its _rels/*.rels part).
func readRels(ctx context.Context, p *pkg, part string) (map[string]rel, error) {
	dir, file := path.Split(part)
	rels := map[string]rel{}
	err := p.eachToken(ctx, dir+"_rels/"+file+".rels", MaxSmallPartBytes, func(_ *xmlWalker, t xml.Token) error {
		if len(rels) >= MaxRelationships {
			return errStopWalk
		}
		el, ok := t.(xml.StartElement)
		if !ok || el.Name.Local != "Relationship" {
			return nil
		}
		id := attr(el, "Id")
		if _, dup := rels[id]; dup || id == "" {
			return nil
		}
		target := attr(el, "Target")
		external := strings.EqualFold(attr(el, "TargetMode"), "External")
		if !external {
			if strings.HasPrefix(target, "/") {
				target = path.Clean(strings.TrimPrefix(target, "/"))
			} else {
				target = path.Join(dir, target)
			}
		}
		rels[id] = rel{typ: attr(el, "Type"), target: target, external: external}
		return nil
	})
	return rels, err
}

// extraction is the text taken out of an Office file, with what was cut.
type extraction struct {
	b       strings.Builder
	budget  int // character bytes that may still be taken in
	full    bool
	notes   []string
	refused string // set when the file is refused rather than read
}

func newExtraction() *extraction { return &extraction{budget: MaxExtractedTextBytes} }

// take charges n bytes against the text budget; false once it is spent.
func (x *extraction) take(n int) bool {
	if x.full {
		return false
	}
	x.budget -= n
	if x.budget < 0 {
		x.full = true
		return false
	}
	return true
}

// line adds one line of output.
func (x *extraction) line(s string) {
	if x.b.Len()+len(s)+1 > MaxExtractedTextBytes {
		x.full = true
		return
	}
	x.b.WriteString(s)
	x.b.WriteByte('\n')
}

func (x *extraction) note(format string, args ...any) {
	if len(x.notes) < 20 {
		x.notes = append(x.notes, fmt.Sprintf(format, args...))
	}
}

// partError turns an error from reading a part into a note or a refusal; it
// returns the error only when it is the context's.
func (x *extraction) partError(ctx context.Context, part string, err error) error {
	switch {
	case err == nil || err == io.EOF:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errTooDeep):
		x.refused = fmt.Sprintf("its XML (%s) nests elements more than %d levels deep; real Office files nest about 20, so it was not read", part, MaxXMLDepth)
	case errors.Is(err, errTextFull):
		// noted once, in officeAbout
	case errors.Is(err, errPartCap):
		x.note("%s is larger than %s when decompressed; the text from it stops where reading stopped.", part, sizeText(MaxPartBytes))
	case errors.Is(err, errPackageCap):
		x.note("Reading stopped after %s of decompressed data from the file; the text stops there.", sizeText(MaxPackageBytes))
	case errors.Is(err, errPartNotExists):
		x.note("Its part %s is missing.", part)
	default:
		x.note("Its part %s is damaged; the text from it stops where it became unreadable.", part)
	}
	return nil
}

// convertOffice extracts the text of a Word, Excel or PowerPoint file and
// shows a window of it.
func convertOffice(ctx context.Context, data []byte, req Request, s sniffed) (*View, error) {
	size := int64(len(data))
	p, err := openPackage(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason := "it is damaged: its zip structure cannot be read"
		if errors.Is(err, errTooManyParts) {
			reason = fmt.Sprintf("it has more than %s parts, which no real Office file has, so it was not opened", commas(MaxPackageEntries))
		}
		return describeView(req, size, s.detected, s.kind, s.mismatch, reason), nil
	}
	var (
		x     *extraction
		about string
	)
	switch s.kind {
	case KindDocument:
		x, err = extractDocx(ctx, p)
		about = "Text extracted from the document: one paragraph per line; table rows as cells separated by tabs; text boxes after the paragraph they are anchored in. Deleted tracked changes and field codes are left out; inserted text is kept."
	case KindPresentation:
		x, err = extractPptx(ctx, p)
		about = `Text extracted from the slides, in presentation order: a "Slide N" line (marked hidden when the slide is hidden), its text one paragraph per line, then its speaker notes after a "Speaker notes:" line.`
	default:
		x, err = extractXlsx(ctx, p)
		about = `Cell values extracted from the workbook, sheets in workbook order: a "Sheet N" line with its name (marked hidden when hidden), then one line per row, cells separated by tabs and placed by column (an empty cell is an empty field); runs of empty rows are folded into one "(rows a-b empty)" line. Formulas show their last calculated value, dates are shown as yyyy-mm-dd (with the time when the format has one), line breaks inside a cell are shown as ↵.`
	}
	if err != nil {
		return nil, err
	}
	if x.refused != "" {
		return describeView(req, size, s.detected, s.kind, s.mismatch, x.refused), nil
	}
	abouts := []string{about + " Formatting, pictures and embedded objects are not included."}
	if s.kind == KindDocument {
		abouts[0] += " Headers, footers, footnotes and comments are not included either."
	}
	if x.full {
		abouts = append(abouts, fmt.Sprintf("The text is cut: only the first %s of it were kept.", sizeText(MaxExtractedTextBytes)))
	}
	abouts = append(abouts, x.notes...)
	return windowView(ctx, x.b.String(), req, s.kind, s.detected, s.mismatch, size, abouts)
}
