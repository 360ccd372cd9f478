package fileview

import (
	"context"
	"encoding/xml"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
)

// This file extracts the cell values of Excel workbooks, sheet by sheet and
// row by row, streaming each worksheet.

type sheetInfo struct {
	name, state, relID string
}

// extractXlsx reads the workbook's sheets in workbook order.
func extractXlsx(ctx context.Context, p *pkg) (*extraction, error) {
	x := newExtraction()
	const wb = "xl/workbook.xml"
	rels, err := readRels(ctx, p, wb)
	if err != nil {
		if err := x.partError(ctx, "xl/_rels/workbook.xml.rels", err); err != nil {
			return x, err
		}
	}
	sheets, date1904, more, err := workbookSheets(ctx, p, wb)
	if err != nil {
		if err := x.partError(ctx, wb, err); err != nil || x.refused != "" {
			return x, err
		}
	}
	if more > 0 {
		x.note("Only the first %s sheets are read; %s more are not.", commas(MaxSheets), commas(int64(more)))
	}
	sstPart, stylesPart := "xl/sharedStrings.xml", "xl/styles.xml"
	for _, r := range rels {
		switch path.Base(r.typ) {
		case "sharedStrings":
			sstPart = r.target
		case "styles":
			stylesPart = r.target
		}
	}
	sst := &sharedStrings{}
	if p.has(sstPart) {
		if err := sst.read(ctx, p, sstPart); err != nil {
			if err := x.partError(ctx, sstPart, err); err != nil || x.refused != "" {
				return x, err
			}
		}
		if sst.cut {
			x.note("The workbook has %s shared strings (%s of text at most are kept); only the first %s were loaded, and cells that use a later one show \"[string not loaded]\".",
				declaredOr(sst.declared, len(sst.ends)), sizeText(MaxSharedStringBytes), commas(int64(len(sst.ends))))
		}
	}
	st := &styles{custom: map[int]fmtClass{}}
	if p.has(stylesPart) {
		if err := st.read(ctx, p, stylesPart); err != nil {
			if err := x.partError(ctx, stylesPart, err); err != nil || x.refused != "" {
				return x, err
			}
		}
	}
	for i, sh := range sheets {
		if x.full {
			break
		}
		if i > 0 {
			x.line("")
		}
		label := fmt.Sprintf("Sheet %d %q", i+1, visible(sh.name, 256))
		switch sh.state {
		case "hidden":
			label += " (hidden)"
		case "veryHidden":
			label += " (very hidden)"
		}
		x.line(label)
		rl, ok := rels[sh.relID]
		if !ok || rl.external || !p.has(rl.target) {
			x.line("(its cells are missing from the file)")
			continue
		}
		sr := &sheetReader{x: x, sst: sst, styles: st, date1904: date1904}
		if err := x.partError(ctx, rl.target, sr.read(ctx, p, rl.target)); err != nil || x.refused != "" {
			return x, err
		}
	}
	if len(sheets) == 0 && x.refused == "" {
		x.note("The workbook lists no sheets.")
	}
	return x, nil
}

func declaredOr(declared, loaded int) string {
	if declared > loaded {
		return commas(int64(declared))
	}
	return "more than " + commas(int64(loaded))
}

// workbookSheets lists the sheets of workbook.xml in order.
func workbookSheets(ctx context.Context, p *pkg, part string) (sheets []sheetInfo, date1904 bool, more int, err error) {
	err = p.eachToken(ctx, part, MaxSmallPartBytes, func(_ *xmlWalker, t xml.Token) error {
		el, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch el.Name.Local {
		case "workbookPr":
			v := attr(el, "date1904")
			date1904 = v == "1" || v == "true"
		case "sheet":
			if len(sheets) < MaxSheets {
				sheets = append(sheets, sheetInfo{name: attr(el, "name"), state: attr(el, "state"), relID: relID(el)})
			} else {
				more++
			}
		}
		return nil
	})
	return sheets, date1904, more, err
}

// sharedStrings holds the workbook's string table in one buffer.
type sharedStrings struct {
	buf      []byte
	ends     []uint32
	declared int
	cut      bool
}

func (s *sharedStrings) get(i int) (string, bool) {
	if i < 0 || i >= len(s.ends) {
		return "", false
	}
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return string(s.buf[start:s.ends[i]]), true
}

// read loads strings until the count or byte cap, then stops reading.
func (s *sharedStrings) read(ctx context.Context, p *pkg, part string) error {
	inSI, inT := false, false
	skipLevel, start := 0, 0
	return p.eachToken(ctx, part, MaxPartBytes, func(w *xmlWalker, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			switch {
			case skipLevel > 0:
			case t.Name.Local == "sst":
				s.declared, _ = strconv.Atoi(attr(t, "uniqueCount"))
			case t.Name.Local == "si":
				if len(s.ends) >= MaxSharedStrings || len(s.buf) >= MaxSharedStringBytes {
					s.cut = true
					return errStopWalk
				}
				inSI, start = true, len(s.buf)
			case t.Name.Local == "rPh" || t.Name.Local == "phoneticPr":
				skipLevel = w.depth
			case t.Name.Local == "t" && inSI:
				inT = true
			}
		case xml.EndElement:
			switch {
			case skipLevel > 0:
				if w.depth+1 <= skipLevel {
					skipLevel = 0
				}
			case t.Name.Local == "t":
				inT = false
			case t.Name.Local == "si" && inSI:
				s.ends = append(s.ends, uint32(len(s.buf)))
				inSI = false
			}
		case xml.CharData:
			if inSI && inT && skipLevel == 0 {
				room := min(MaxCellBytes-(len(s.buf)-start), MaxSharedStringBytes-len(s.buf))
				if room > 0 {
					s.buf = append(s.buf, t[:min(len(t), room)]...)
				}
			}
		}
		return nil
	})
}

// sheetReader streams one worksheet's rows into lines.
type sheetReader struct {
	x        *extraction
	sst      *sharedStrings
	styles   *styles
	date1904 bool

	row, lastRow, lastEmitted int
	cells                     []string
	col                       int
	typ                       string
	style                     int
	val                       []byte
	inCell, inV, inIS, inT    bool
	skipLevel                 int
	missingStrings, dropped   int
	tooFar                    bool
}

func (s *sheetReader) read(ctx context.Context, p *pkg, part string) error {
	r, err := p.open(part, MaxPartBytes)
	if err != nil {
		return err
	}
	defer r.Close()
	w := newWalker(ctx, r)
	err = s.walk(w)
	if s.lastEmitted == 0 {
		s.x.line("(no cells with values)")
	}
	if s.missingStrings > 0 {
		s.x.note("%s cells use shared strings that were not loaded.", commas(int64(s.missingStrings)))
	}
	if s.dropped > 0 {
		s.x.note("%s cells beyond column XFD (Excel's last) were left out.", commas(int64(s.dropped)))
	}
	if s.tooFar {
		s.x.note("Rows numbered beyond %s (Excel's last row) were left out.", commas(MaxSheetRow))
	}
	return err
}

func (s *sheetReader) walk(w *xmlWalker) error {
	for {
		if s.x.full {
			return errTextFull
		}
		t, err := w.next()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if s.skipLevel > 0 {
				continue
			}
			switch t.Name.Local {
			case "row":
				n, err := strconv.Atoi(attr(t, "r"))
				if err != nil || n < 1 {
					n = s.lastRow + 1
				}
				if n > MaxSheetRow {
					s.tooFar = true
					s.skipLevel = w.depth
					continue
				}
				s.row, s.lastRow = n, n
				s.cells = s.cells[:0]
				s.col = 0
			case "c":
				s.startCell(t)
			case "v":
				s.inV = s.inCell
			case "is":
				s.inIS = s.inCell
			case "t":
				s.inT = s.inIS
			case "rPh", "phoneticPr", "f", "extLst":
				s.skipLevel = w.depth
			}
		case xml.EndElement:
			if s.skipLevel > 0 {
				if w.depth+1 <= s.skipLevel {
					s.skipLevel = 0
				}
				continue
			}
			switch t.Name.Local {
			case "v":
				s.inV = false
			case "t":
				s.inT = false
			case "is":
				s.inIS = false
			case "c":
				s.endCell()
			case "row":
				s.endRow()
			}
		case xml.CharData:
			if s.skipLevel == 0 && (s.inV || s.inIS && s.inT) {
				room := MaxCellBytes - len(s.val)
				if room > 0 && s.x.take(min(len(t), room)) {
					s.val = append(s.val, t[:min(len(t), room)]...)
				}
			}
		}
	}
}

func (s *sheetReader) startCell(el xml.StartElement) {
	s.inCell = s.row > 0
	col := columnOf(attr(el, "r"))
	if col == 0 {
		col = s.col + 1
	}
	s.col = col
	s.typ = attr(el, "t")
	s.style = -1
	if v, err := strconv.Atoi(attr(el, "s")); err == nil {
		s.style = v
	}
	s.val = s.val[:0]
}

// columnOf reads the column letters of an A1 reference: "C7" -> 3.
func columnOf(ref string) int {
	col := 0
	for i := 0; i < len(ref) && i < 4; i++ {
		c := ref[i] | 0x20
		if c < 'a' || c > 'z' {
			break
		}
		col = col*26 + int(c-'a'+1)
	}
	return col
}

func (s *sheetReader) endCell() {
	if !s.inCell {
		return
	}
	s.inCell, s.inV, s.inIS, s.inT = false, false, false, false
	if s.col > MaxSheetColumn {
		s.dropped++
		return
	}
	v := s.render()
	if v == "" {
		return
	}
	// A shared string is charged where a cell uses it, as inline text is
	// charged as it is read: otherwise one short row could repeat a long
	// string into any number of bytes before the row is written.
	if s.typ == "s" && !s.x.take(len(v)) {
		return
	}
	for len(s.cells) < s.col {
		s.cells = append(s.cells, "")
	}
	s.cells[s.col-1] = v
}

// render gives a cell's value as text.
func (s *sheetReader) render() string {
	raw := string(s.val)
	var v string
	switch s.typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return ""
		}
		str, ok := s.sst.get(i)
		if !ok {
			s.missingStrings++
			return "[string not loaded]"
		}
		v = str
	case "b":
		switch strings.TrimSpace(raw) {
		case "1", "true":
			v = "TRUE"
		case "0", "false":
			v = "FALSE"
		default:
			v = raw
		}
	case "str", "inlineStr", "e", "d":
		v = raw
	default:
		v = s.number(strings.TrimSpace(raw))
	}
	if strings.ContainsAny(v, "\r\n\t") {
		v = cellBreaks.Replace(v)
	}
	return v
}

// cellBreaks keeps a cell on its row's line: line breaks become ↵, tabs
// spaces. A Replacer is safe for concurrent use and never changes.
var cellBreaks = strings.NewReplacer("\r\n", "↵", "\n", "↵", "\r", "↵", "\t", " ")

func (s *sheetReader) number(raw string) string {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return raw
	}
	if c := s.styles.class(s.style); c.isDate() {
		if d, ok := excelDate(f, s.date1904, c); ok {
			return d
		}
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

func (s *sheetReader) endRow() {
	last := len(s.cells) - 1
	for last >= 0 && s.cells[last] == "" {
		last--
	}
	if last < 0 || s.row == 0 {
		return
	}
	if gap := s.row - s.lastEmitted - 1; gap == 1 {
		s.x.line(fmt.Sprintf("(row %d empty)", s.lastEmitted+1))
	} else if gap > 1 {
		s.x.line(fmt.Sprintf("(rows %d-%d empty)", s.lastEmitted+1, s.row-1))
	}
	s.x.line(strings.Join(s.cells[:last+1], "\t"))
	s.lastEmitted = max(s.lastEmitted, s.row)
}
