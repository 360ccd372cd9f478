package fileview

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"
)

// Hostile inputs: each must finish with a bounded view, within generous
// memory bounds measured by the allocator (never by the clock).

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const gib = 1 << 30

// zeros1GiB is a deflate stream of 1 GiB of zero bytes (about 1 MB).
func zeros1GiB(t testing.TB, prefix, suffix []byte) ([]byte, uint32, uint64) {
	return repeatedDeflate(t, prefix, make([]byte, 1<<20), 1024, suffix)
}

func TestAZipBombIsListedWithoutBeingInflated(t *testing.T) {
	deflated, crc, size := zeros1GiB(t, nil, nil)
	data := rawZipOf(t, rawZipPart{name: "bomb.bin", deflated: deflated, crc: crc, size: size})
	var v *View
	if alloc := allocated(func() { v = convert(t, "bomb.zip", data) }); alloc > 64<<20 {
		t.Fatalf("listing allocated %d bytes", alloc)
	}
	if got := lines(t, v); len(got) != 1 || got[0] != "bomb.bin\t1,073,741,824 bytes" {
		t.Fatalf("lines %q", got)
	}
}

func TestAWordDocumentThatInflatesToAGigabyteStopsAtTheCaps(t *testing.T) {
	head := []byte(`<w:document ` + wNS + `><w:body>`)
	paras := bytes.Repeat([]byte(`<w:p><w:r><w:t>`+strings.Repeat("a", 1000)+`</w:t></w:r></w:p>`), 1000) // ~1 MB
	tests := []struct {
		name     string
		deflated func() ([]byte, uint32, uint64)
		want     string
	}{
		{"a gigabyte of paragraphs stops at the text cap", func() ([]byte, uint32, uint64) {
			return repeatedDeflate(t, head, paras, 1024, []byte(`</w:body></w:document>`))
		}, "The text is cut: only the first 16,777,216 bytes"},
		{"a gigabyte of whitespace stops at the part cap", func() ([]byte, uint32, uint64) {
			return zeros1GiBOf(t, append(head, para("before")...), ' ')
		}, "word/document.xml is larger than 33,554,432 bytes"},
		{"a gigabyte of zero bytes is damaged XML", func() ([]byte, uint32, uint64) {
			return zeros1GiB(t, head, nil)
		}, "word/document.xml is damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deflated, crc, size := tt.deflated()
			data := rawZipOf(t, rawZipPart{name: "[Content_Types].xml", uncompress: contentTypes},
				rawZipPart{name: "word/document.xml", deflated: deflated, crc: crc, size: size})
			var v *View
			alloc := allocated(func() { v = convert(t, "bomb.docx", data) })
			if v.Kind != KindDocument || !strings.Contains(v.Header, tt.want) {
				t.Fatalf("kind %q header:\n%s", v.Kind, v.Header)
			}
			if alloc > 768<<20 {
				t.Fatalf("allocated %d MiB", alloc>>20)
			}
			if len(v.Text) > MaxWindowBytes {
				t.Fatalf("window of %d bytes", len(v.Text))
			}
		})
	}
}

// zeros1GiBOf is like zeros1GiB with the byte b instead of zero.
func zeros1GiBOf(t testing.TB, prefix []byte, b byte) ([]byte, uint32, uint64) {
	return repeatedDeflate(t, prefix, bytes.Repeat([]byte{b}, 1<<20), 1024, nil)
}

// gzipOfDeflate wraps a raw deflate stream as a gzip member.
func gzipOfDeflate(deflated []byte, crc uint32, size uint64) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	out = append(out, deflated...)
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(size))
}

func TestATarGzThatExpandsToGigabytesStopsAtTheReadCap(t *testing.T) {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	if err := tw.WriteHeader(&tar.Header{Name: "huge.bin", Typeflag: tar.TypeReg, Size: 64 * gib, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	// The header claims 64 GiB; the stream holds 4 GiB of zeros after it.
	deflated, crc, size := repeatedDeflate(t, hdr.Bytes(), make([]byte, 1<<20), 4096, nil)
	data := gzipOfDeflate(deflated, crc, size)
	var v *View
	alloc := allocated(func() { v = convert(t, "bomb.tar.gz", data) })
	if alloc > 64<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	if got := lines(t, v); len(got) != 1 || got[0] != "huge.bin\t68,719,476,736 bytes" {
		t.Fatalf("lines %q", got)
	}
	if !strings.Contains(v.Header, "Reading stopped after 268,435,456 bytes") {
		t.Fatalf("header:\n%s", v.Header)
	}
}

func TestAWorkbookWithMillionsOfSharedStringsKeepsOnlyTheCap(t *testing.T) {
	chunk := bytes.Repeat([]byte(`<si><t>x</t></si>`), 60_000)
	deflated, crc, size := repeatedDeflate(t, []byte(`<sst `+sNS+` count="3000000" uniqueCount="3000000">`), chunk, 50, []byte(`</sst>`))
	sheet := sheetXML(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>2999999</v></c></row>`)
	data := rawZipOf(t,
		rawZipPart{name: "[Content_Types].xml", uncompress: contentTypes},
		rawZipPart{name: "xl/workbook.xml", uncompress: `<workbook ` + sNS + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		rawZipPart{name: "xl/_rels/workbook.xml.rels", uncompress: relsOf(relOf("rId1", "worksheet", "worksheets/sheet1.xml"), relOf("rId2", "sharedStrings", "sharedStrings.xml"))},
		rawZipPart{name: "xl/worksheets/sheet1.xml", uncompress: sheet},
		rawZipPart{name: "xl/sharedStrings.xml", deflated: deflated, crc: crc, size: size},
	)
	var v *View
	alloc := allocated(func() { v = convert(t, "strings.xlsx", data) })
	if alloc > 256<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	if got := lines(t, v); len(got) != 2 || got[1] != "x\t[string not loaded]" {
		t.Fatalf("lines %q", got)
	}
	for _, want := range []string{"3,000,000 shared strings", "only the first 500,000 were loaded"} {
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
}

func TestXMLNestedAHundredThousandDeepIsRefused(t *testing.T) {
	deep := strings.Repeat("<w:p>", 100_000) + strings.Repeat("</w:p>", 100_000)
	data := docxOf(t, deep)
	var v *View
	alloc := allocated(func() { v = convert(t, "deep.docx", data) })
	if alloc > 64<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	if v.Text != "" || !strings.Contains(v.Header, "more than 256 levels deep") {
		t.Fatalf("header:\n%s", v.Header)
	}
	for _, data := range [][]byte{
		xlsxOf(t, false, "", "", [3]string{"S", "", sheetXML(strings.Repeat("<x>", 100_000))}),
		pptxOf(t, []string{"ppt/slides/s.xml"}, part{"ppt/slides/s.xml", slideXML("", strings.Repeat("<a:p>", 100_000))}),
	} {
		v := convert(t, "deep", data)
		if v.Text != "" || !strings.Contains(v.Header, "more than 256 levels deep") {
			t.Fatalf("header:\n%s", v.Header)
		}
	}
}

func TestAnOfficeFileWithTooManyPartsIsNotOpened(t *testing.T) {
	parts := []part{{"[Content_Types].xml", contentTypes}, {"word/document.xml", "<w:document/>"}}
	for i := 0; i <= MaxPackageEntries; i++ {
		parts = append(parts, part{name: "p/" + strings.Repeat("x", i%13) + string(rune('a'+i%26)), body: ""})
	}
	v := convert(t, "parts.docx", zipOf(t, parts...))
	if v.Text != "" || !strings.Contains(v.Header, "more than 20,000 parts") {
		t.Fatalf("header:\n%s", v.Header)
	}
}
