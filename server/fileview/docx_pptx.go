package fileview

import (
	"context"
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// This file extracts the running text of Word documents and PowerPoint
// slides: paragraphs, tables, text boxes. Nesting is tracked with an explicit
// stack of frames (bounded by MaxXMLDepth), never by recursion.

// dialect says how one XML vocabulary marks text.
type dialect struct {
	skip      map[string]bool // elements whose whole subtree holds no visible text
	textbox   string          // element holding a text box's paragraphs ("" when none)
	fields    bool            // Word complex fields (fldChar begin/separate/end)
	dropEmpty bool            // leave empty paragraphs out entirely
}

var wordDialect = dialect{
	skip: map[string]bool{
		"del": true, "moveFrom": true, "delText": true, "delInstrText": true, "instrText": true,
		"Fallback": true, "pPr": true, "rPr": true, "tblPr": true, "trPr": true, "tcPr": true,
		"sectPr": true, "tblGrid": true, "tblPrEx": true, "customXmlPr": true, "sdtPr": true,
	},
	textbox: "txbxContent",
	fields:  true,
}

var slideDialect = dialect{
	skip: map[string]bool{
		"Fallback": true, "pPr": true, "rPr": true, "endParaRPr": true, "bodyPr": true,
		"lstStyle": true, "spPr": true, "nvSpPr": true, "nvGrpSpPr": true, "tblPr": true, "tcPr": true,
	},
	dropEmpty: true,
}

type frameKind byte

const (
	framePara frameKind = iota
	frameTable
	frameRow
	frameCell
	frameTextbox
)

type frame struct {
	kind  frameKind
	level int
	text  strings.Builder // paragraph text
	after []string        // paragraph: lines of text boxes anchored in it
	lines []string        // cell, text box: their paragraphs
	cells []string        // row: its cells
}

// flow turns one part's token stream into lines.
type flow struct {
	d          dialect
	x          *extraction
	emit       func(string)
	frames     []*frame
	skipLevel  int
	textLevel  int
	fieldCodes []bool // per open field: still in its code part
	inCode     int    // open fields in their code part
	fieldsOver int    // fields nested beyond MaxFieldNesting (treated as code)
	lastEmpty  bool
}

func newFlow(d dialect, x *extraction, emit func(string)) *flow {
	return &flow{d: d, x: x, emit: emit}
}

// run reads tokens until the part ends, the text budget is spent or an error;
// root, when not nil, is called with the first element.
func (f *flow) run(w *xmlWalker, root func(xml.StartElement)) error {
	for {
		if f.x.full {
			f.flush()
			return errTextFull
		}
		t, err := w.next()
		if err != nil {
			f.flush()
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if root != nil {
				root(t)
				root = nil
			}
			f.start(w.depth, t)
		case xml.EndElement:
			f.end(w.depth + 1)
		case xml.CharData:
			if f.skipLevel == 0 && f.textLevel > 0 {
				f.appendText(t)
			}
		}
	}
}

func (f *flow) start(level int, el xml.StartElement) {
	if f.skipLevel > 0 {
		return
	}
	local := el.Name.Local
	if f.d.skip[local] || (local == "fld" && strings.EqualFold(attr(el, "type"), "slidenum")) {
		f.skipLevel = level
		return
	}
	switch local {
	case "p":
		f.push(framePara, level)
	case "tbl":
		f.push(frameTable, level)
	case "tr":
		f.push(frameRow, level)
	case "tc":
		f.push(frameCell, level)
	case "t":
		f.textLevel = level
	case "tab":
		f.appendText([]byte("\t"))
	case "br", "cr":
		f.appendText([]byte("\n"))
	case "noBreakHyphen":
		f.appendText([]byte("-"))
	case "fldChar":
		if f.d.fields {
			f.field(attr(el, "fldCharType"))
		}
	default:
		if f.d.textbox != "" && local == f.d.textbox {
			f.push(frameTextbox, level)
		}
	}
}

func (f *flow) end(level int) {
	if f.skipLevel > 0 {
		if level <= f.skipLevel {
			f.skipLevel = 0
		}
		return
	}
	if level <= f.textLevel {
		f.textLevel = 0
	}
	for len(f.frames) > 0 && f.frames[len(f.frames)-1].level >= level {
		f.closeTop()
	}
}

func (f *flow) field(typ string) {
	switch typ {
	case "begin":
		if len(f.fieldCodes) < MaxFieldNesting && f.fieldsOver == 0 {
			f.fieldCodes = append(f.fieldCodes, true)
			f.inCode++
		} else {
			f.fieldsOver++
		}
	case "separate":
		if f.fieldsOver == 0 && len(f.fieldCodes) > 0 && f.fieldCodes[len(f.fieldCodes)-1] {
			f.fieldCodes[len(f.fieldCodes)-1] = false
			f.inCode--
		}
	case "end":
		if f.fieldsOver > 0 {
			f.fieldsOver--
		} else if n := len(f.fieldCodes); n > 0 {
			if f.fieldCodes[n-1] {
				f.inCode--
			}
			f.fieldCodes = f.fieldCodes[:n-1]
		}
	}
}

func (f *flow) push(k frameKind, level int) {
	f.frames = append(f.frames, &frame{kind: k, level: level})
}

// appendText adds text to the innermost open paragraph.
func (f *flow) appendText(s []byte) {
	if len(f.frames) == 0 || f.inCode > 0 || f.fieldsOver > 0 {
		return
	}
	top := f.frames[len(f.frames)-1]
	if top.kind != framePara || !f.x.take(len(s)) {
		return
	}
	top.text.Write(s)
}

// closeTop closes the innermost frame and hands its text outward.
func (f *flow) closeTop() {
	fr := f.frames[len(f.frames)-1]
	f.frames = f.frames[:len(f.frames)-1]
	switch fr.kind {
	case framePara:
		f.deliver(fr.text.String())
		for _, l := range fr.after {
			f.deliver(l)
		}
	case frameTextbox:
		if p := f.innermost(framePara); p != nil {
			p.after = append(p.after, fr.lines...)
			return
		}
		for _, l := range fr.lines {
			f.deliver(l)
		}
	case frameCell:
		cell := cellText(strings.Join(nonEmpty(fr.lines), " "))
		if len(f.frames) > 0 && f.frames[len(f.frames)-1].kind == frameRow {
			row := f.frames[len(f.frames)-1]
			row.cells = append(row.cells, cell)
			return
		}
		f.deliver(cell)
	case frameRow:
		f.deliver(strings.TrimRight(strings.Join(fr.cells, "\t"), "\t"))
	}
}

// deliver passes a finished line to whatever encloses it: a cell or text box
// collects it, anything else lets it out.
func (f *flow) deliver(s string) {
	for i := len(f.frames) - 1; i >= 0; i-- {
		switch fr := f.frames[i]; fr.kind {
		case frameCell, frameTextbox:
			fr.lines = append(fr.lines, s)
			return
		case framePara:
			fr.after = append(fr.after, s)
			return
		}
	}
	for _, l := range strings.Split(s, "\n") {
		empty := strings.TrimSpace(l) == ""
		if empty && (f.d.dropEmpty || f.lastEmpty) {
			continue
		}
		f.lastEmpty = empty
		f.emit(l)
	}
}

// flush closes every open frame, so text read before a stop is not lost.
func (f *flow) flush() {
	for len(f.frames) > 0 {
		f.closeTop()
	}
}

func (f *flow) innermost(k frameKind) *frame {
	for i := len(f.frames) - 1; i >= 0; i-- {
		if f.frames[i].kind == k {
			return f.frames[i]
		}
	}
	return nil
}

// cellText keeps a table cell on one line.
func cellText(s string) string {
	if strings.ContainsAny(s, "\t\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' {
				return ' '
			}
			return r
		}, s)
	}
	return strings.TrimSpace(s)
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// extractDocx reads word/document.xml.
func extractDocx(ctx context.Context, p *pkg) (*extraction, error) {
	x := newExtraction()
	const part = "word/document.xml"
	r, err := p.open(part, MaxPartBytes)
	if err != nil {
		return x, x.partError(ctx, part, err)
	}
	defer r.Close()
	err = newFlow(wordDialect, x, x.line).run(newWalker(ctx, r), nil)
	return x, x.partError(ctx, part, err)
}

// extractPptx reads the slides in the order presentation.xml lists them
// (not the order of their file names), each followed by its speaker notes.
func extractPptx(ctx context.Context, p *pkg) (*extraction, error) {
	x := newExtraction()
	const pres = "ppt/presentation.xml"
	rels, err := readRels(ctx, p, pres)
	if err != nil {
		if err := x.partError(ctx, "ppt/_rels/presentation.xml.rels", err); err != nil {
			return x, err
		}
	}
	ids, more, err := slideIDs(ctx, p, pres)
	if err != nil {
		if err := x.partError(ctx, pres, err); err != nil || x.refused != "" {
			return x, err
		}
	}
	if more > 0 {
		x.note("Only the first %s slides are read; %s more are not.", commas(MaxSlides), commas(int64(more)))
	}
	for i, id := range ids {
		if x.full {
			break
		}
		n := i + 1
		rl, ok := rels[id]
		if !ok || rl.external || !p.has(rl.target) {
			x.line(fmt.Sprintf("Slide %d: its content is missing from the file", n))
			continue
		}
		if err := slideText(ctx, p, x, n, rl.target); err != nil || x.refused != "" {
			return x, err
		}
	}
	if len(ids) == 0 && x.refused == "" {
		x.note("The presentation lists no slides.")
	}
	return x, nil
}

// slideIDs lists the relationship ids of sldIdLst in order.
func slideIDs(ctx context.Context, p *pkg, pres string) (ids []string, more int, err error) {
	err = p.eachToken(ctx, pres, MaxSmallPartBytes, func(_ *xmlWalker, t xml.Token) error {
		if el, ok := t.(xml.StartElement); ok && el.Name.Local == "sldId" {
			if len(ids) < MaxSlides {
				ids = append(ids, relID(el))
			} else {
				more++
			}
		}
		return nil
	})
	return ids, more, err
}

// slideText writes one slide and its notes.
func slideText(ctx context.Context, p *pkg, x *extraction, n int, part string) error {
	if x.b.Len() > 0 {
		x.line("")
	}
	r, err := p.open(part, MaxPartBytes)
	if err != nil {
		x.line(fmt.Sprintf("Slide %d", n))
		return x.partError(ctx, part, err)
	}
	headed := false
	head := func(el xml.StartElement) {
		label := fmt.Sprintf("Slide %d", n)
		if v := attr(el, "show"); v == "0" || v == "false" {
			label += " (hidden)"
		}
		x.line(label)
		headed = true
	}
	err = newFlow(slideDialect, x, x.line).run(newWalker(ctx, r), head)
	r.Close()
	if !headed {
		x.line(fmt.Sprintf("Slide %d", n))
	}
	if err := x.partError(ctx, part, err); err != nil || x.refused != "" {
		return err
	}
	rels, err := readRels(ctx, p, part)
	if err != nil {
		return nil // a slide without relationships has no notes
	}
	for _, rl := range rels {
		if rl.external || path.Base(rl.typ) != "notesSlide" {
			continue
		}
		nr, err := p.open(rl.target, MaxPartBytes)
		if err != nil {
			return x.partError(ctx, rl.target, err)
		}
		var notes []string
		err = newFlow(slideDialect, x, func(s string) { notes = append(notes, s) }).run(newWalker(ctx, nr), nil)
		nr.Close()
		if len(notes) > 0 {
			x.line("Speaker notes:")
			for _, l := range notes {
				x.line(l)
			}
		}
		return x.partError(ctx, rl.target, err)
	}
	return nil
}
