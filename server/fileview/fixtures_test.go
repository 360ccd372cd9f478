package fileview

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// Fixtures are built here, in code, from a few lines of XML each: no binary
// fixture files.

// part is one file inside a zip fixture.
type part struct {
	name string
	body string
}

// zipOf builds a zip holding parts in order.
func zipOf(t testing.TB, parts ...part) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, p.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml"`

// docxOf wraps body XML (the children of w:body) into a .docx.
func docxOf(t testing.TB, body string) []byte {
	t.Helper()
	return zipOf(t,
		part{"[Content_Types].xml", contentTypes},
		part{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wNS + `><w:body>` + body + `</w:body></w:document>`},
	)
}

// para is a Word paragraph with one run of text.
func para(text string) string {
	return `<w:p><w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

const relsNS = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`

func relsOf(rels ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><Relationships ` + relsNS + `>` + strings.Join(rels, "") + `</Relationships>`
}

func relOf(id, typ, target string) string {
	return `<Relationship Id="` + id + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/` + typ + `" Target="` + target + `"/>`
}

const pNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// slideXML is a slide with one text box holding paragraphs; show "0" hides it.
func slideXML(show string, paras ...string) string {
	attr := ""
	if show != "" {
		attr = ` show="` + show + `"`
	}
	var ps strings.Builder
	for _, p := range paras {
		ps.WriteString(`<a:p><a:r><a:rPr lang="en-US"/><a:t>` + p + `</a:t></a:r></a:p>`)
	}
	return `<?xml version="1.0" encoding="UTF-8"?><p:sld ` + pNS + attr + `><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/></p:nvSpPr><p:txBody><a:bodyPr/><a:lstStyle/>` + ps.String() + `</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
}

func notesXML(paras ...string) string {
	var ps strings.Builder
	for _, p := range paras {
		ps.WriteString(`<a:p><a:r><a:t>` + p + `</a:t></a:r></a:p>`)
	}
	return `<?xml version="1.0" encoding="UTF-8"?><p:notes ` + pNS + `><p:cSld><p:spTree>` +
		`<p:sp><p:txBody><a:p><a:fld id="{1}" type="slidenum"><a:t>7</a:t></a:fld></a:p></p:txBody></p:sp>` +
		`<p:sp><p:txBody>` + ps.String() + `</p:txBody></p:sp></p:spTree></p:cSld></p:notes>`
}

// pptxOf builds a presentation whose slides are listed in presentation.xml
// in the order given by order (part names), whatever their file names.
func pptxOf(t testing.TB, order []string, parts ...part) []byte {
	t.Helper()
	var ids, rels strings.Builder
	for i, name := range order {
		id := "rId" + string(rune('a'+i))
		ids.WriteString(`<p:sldId id="` + string(rune('0'+i)) + `25" r:id="` + id + `"/>`)
		rels.WriteString(relOf(id, "slide", strings.TrimPrefix(name, "ppt/")))
	}
	all := []part{
		{"[Content_Types].xml", contentTypes},
		{"ppt/presentation.xml", `<?xml version="1.0" encoding="UTF-8"?><p:presentation ` + pNS + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`},
		{"ppt/_rels/presentation.xml.rels", relsOf(rels.String())},
	}
	return zipOf(t, append(all, parts...)...)
}

const sNS = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

// sheetXML wraps rows (the children of sheetData) into a worksheet.
func sheetXML(rows string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><worksheet ` + sNS + `><sheetData>` + rows + `</sheetData></worksheet>`
}

// xlsxOf builds a workbook. sheets are (name, state, sheet XML); sst and
// styles may be empty.
func xlsxOf(t testing.TB, date1904 bool, sst, styles string, sheets ...[3]string) []byte {
	t.Helper()
	var list, rels strings.Builder
	var parts []part
	for i, s := range sheets {
		id := "rId" + string(rune('a'+i))
		state := ""
		if s[1] != "" {
			state = ` state="` + s[1] + `"`
		}
		list.WriteString(`<sheet name="` + s[0] + `" sheetId="` + string(rune('1'+i)) + `"` + state + ` r:id="` + id + `"/>`)
		target := "worksheets/sheet" + string(rune('1'+i)) + ".xml"
		rels.WriteString(relOf(id, "worksheet", target))
		parts = append(parts, part{"xl/" + target, s[2]})
	}
	if sst != "" {
		rels.WriteString(relOf("rIdS", "sharedStrings", "sharedStrings.xml"))
		parts = append(parts, part{"xl/sharedStrings.xml", `<?xml version="1.0" encoding="UTF-8"?><sst ` + sNS + `>` + sst + `</sst>`})
	}
	if styles != "" {
		rels.WriteString(relOf("rIdT", "styles", "styles.xml"))
		parts = append(parts, part{"xl/styles.xml", `<?xml version="1.0" encoding="UTF-8"?><styleSheet ` + sNS + `>` + styles + `</styleSheet>`})
	}
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	all := []part{
		{"[Content_Types].xml", contentTypes},
		{"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook ` + sNS + `>` + pr + `<sheets>` + list.String() + `</sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", relsOf(rels.String())},
	}
	return zipOf(t, append(all, parts...)...)
}

// tarEntry is one entry of a tar fixture.
type tarEntry struct {
	name     string
	typ      byte
	body     string
	linkname string
}

func tarOf(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.linkname, ModTime: time.Unix(1700000000, 0), Format: tar.FormatPAX}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// repeatedDeflate is a raw deflate stream of prefix, then chunk n times, then
// suffix, built without compressing the repeats: each segment is compressed
// alone and flushed to a byte boundary, so one compressed chunk can be copied
// n times (its back-references stay inside it). This makes a gigabyte bomb in
// milliseconds. It returns the stream, the CRC-32 and the length of what it
// inflates to.
func repeatedDeflate(t testing.TB, prefix, chunk []byte, n int, suffix []byte) ([]byte, uint32, uint64) {
	t.Helper()
	segment := func(b []byte) []byte {
		var buf bytes.Buffer
		fw, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	c := segment(chunk)
	var out bytes.Buffer
	out.Write(segment(prefix))
	out.Grow(len(c) * n)
	crc := crc32.Update(0, crc32.IEEETable, prefix)
	for i := 0; i < n; i++ {
		out.Write(c)
		crc = crc32.Update(crc, crc32.IEEETable, chunk)
	}
	out.Write(segment(suffix))
	crc = crc32.Update(crc, crc32.IEEETable, suffix)
	out.Write([]byte{0x03, 0x00}) // final empty block
	return out.Bytes(), crc, uint64(len(prefix)) + uint64(len(chunk))*uint64(n) + uint64(len(suffix))
}

// rawZipPart is a zip entry given as an already deflated stream.
type rawZipPart struct {
	name       string
	deflated   []byte
	crc        uint32
	size       uint64
	encrypted  bool
	unixMode   uint32
	uncompress string // when set, written normally instead
}

func rawZipOf(t testing.TB, parts ...rawZipPart) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		h := &zip.FileHeader{Name: p.name, Method: zip.Deflate}
		if p.unixMode != 0 {
			h.SetMode(fsModeOf(p.unixMode))
		}
		if p.deflated == nil {
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(w, p.uncompress); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h.CRC32, h.UncompressedSize64, h.CompressedSize64 = p.crc, p.size, uint64(len(p.deflated))
		if p.encrypted {
			h.Flags |= 1
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(p.deflated); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// convert runs Convert on data with a name and fails the test on error.
func convert(t testing.TB, name string, data []byte) *View {
	t.Helper()
	v, err := Convert(context.Background(), data, Request{Name: name})
	if err != nil {
		t.Fatalf("Convert(%s): %v", name, err)
	}
	return v
}

// lines strips the numbers from a window's text.
func lines(t testing.TB, v *View) []string {
	t.Helper()
	if v.Text == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(v.Text, "\n"), "\n") {
		_, text, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("line without a number: %q", l)
		}
		out = append(out, text)
	}
	return out
}

// fsModeOf turns a Unix st_mode into an fs.FileMode for zip headers.
func fsModeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & 0xF000 {
	case 0xA000:
		mode |= fs.ModeSymlink
	case 0x4000:
		mode |= fs.ModeDir
	}
	return mode
}
