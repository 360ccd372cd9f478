package fileview

import (
	"archive/tar"
	"context"
	"errors"
	"testing"
	"unicode/utf8"
)

// Every parser of untrusted bytes has a fuzz target. The invariants: no
// panic, a view or a *RangeError, and a window within MaxWindowBytes.

func checkView(t *testing.T, v *View, err error) {
	t.Helper()
	var re *RangeError
	if err != nil {
		if !errors.As(err, &re) {
			t.Fatalf("error that is not a RangeError: %v", err)
		}
		return
	}
	if v == nil {
		t.Fatal("nil view without error")
	}
	if len(v.Text) > MaxWindowBytes {
		t.Fatalf("window of %d bytes", len(v.Text))
	}
	if !utf8.ValidString(v.Text) || !utf8.ValidString(v.Header) {
		t.Fatal("invalid UTF-8 in the view")
	}
	if v.Header == "" {
		t.Fatal("no header")
	}
}

func FuzzTextWindow(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd"), 1, 0, 2)
	f.Add([]byte{0xFF, 0xFE, 'a', 0, '\n', 0, 0x3D, 0xD8}, 1, 0, 0)
	f.Add([]byte("\x93x\x94\n"), 1, 1, 1)
	f.Add([]byte("ab€cd\n"), 1, 4, 1)
	f.Fuzz(func(t *testing.T, data []byte, offset, column, limit int) {
		v, err := Convert(context.Background(), data, Request{Name: "f.txt", Offset: offset, Column: column, Limit: limit})
		checkView(t, v, err)
		if err == nil {
			if v2, err := WindowOfText(context.Background(), string(data), Request{Name: "f.txt", Offset: offset, Column: column, Limit: limit}, "text"); err == nil {
				checkView(t, v2, nil)
			}
		}
	})
}

func FuzzDocx(f *testing.F) {
	f.Add([]byte(para("hello") + `<w:tbl><w:tr><w:tc>` + para("x") + `</w:tc></w:tr></w:tbl>`))
	f.Add([]byte(`<w:p><w:r><w:fldChar w:fldCharType="begin"/><w:instrText>X</w:instrText><w:fldChar w:fldCharType="separate"/><w:t>y</w:t></w:r></w:p>`))
	f.Add([]byte(`<w:p><w:r><w:t>a</w:t></w:r><w:txbxContent><w:p><w:t>b</w:t></w:p></w:txbxContent></w:p></w:tc></w:tr>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := Convert(context.Background(), docxOf(t, string(body)), Request{Name: "f.docx"})
		checkView(t, v, err)
	})
}

func FuzzPptx(f *testing.F) {
	f.Add([]byte(slideXML("0", "a", "b")), []byte(notesXML("n")), []byte(`<p:sldIdLst><p:sldId r:id="rIda"/></p:sldIdLst>`))
	f.Add([]byte(`<p:sld><a:tbl><a:tr><a:tc><a:p><a:t>x</a:t></a:p></a:tc></a:tr></a:tbl></p:sld>`), []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, slide, notes, pres []byte) {
		data := zipOf(t,
			part{"[Content_Types].xml", contentTypes},
			part{"ppt/presentation.xml", `<p:presentation ` + pNS + `>` + string(pres) + `<p:sldIdLst><p:sldId id="256" r:id="rIda"/></p:sldIdLst></p:presentation>`},
			part{"ppt/_rels/presentation.xml.rels", relsOf(relOf("rIda", "slide", "slides/slide1.xml"))},
			part{"ppt/slides/slide1.xml", string(slide)},
			part{"ppt/slides/_rels/slide1.xml.rels", relsOf(relOf("rId1", "notesSlide", "../notesSlides/n.xml"))},
			part{"ppt/notesSlides/n.xml", string(notes)},
		)
		v, err := Convert(context.Background(), data, Request{Name: "f.pptx"})
		checkView(t, v, err)
	})
}

func FuzzXlsx(f *testing.F) {
	f.Add([]byte(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" s="1"><v>45000.5</v></c><c t="b"><v>1</v></c></row><row r="9"><c r="XFD9"><v>1</v></c></row>`),
		[]byte(`<si><t>a</t></si><si><r><t>b</t></r></si>`),
		[]byte(`<numFmts><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs>`))
	f.Add([]byte(`<row><c r="ZZZZ1" t="inlineStr"><is><t>x</t></is></c></row>`), []byte(""), []byte(`<cellXfs><xf numFmtId="14"/></cellXfs>`))
	f.Fuzz(func(t *testing.T, rows, sst, styles []byte) {
		data := xlsxOf(t, len(rows)%2 == 0, "<si><t>s</t></si>"+string(sst), "<cellXfs/>"+string(styles), [3]string{"S", "hidden", sheetXML(string(rows))})
		v, err := Convert(context.Background(), data, Request{Name: "f.xlsx"})
		checkView(t, v, err)
	})
}

func FuzzZipListing(f *testing.F) {
	f.Add(zipOf(f, part{"a/", ""}, part{"a/b.txt", "hello"}))
	f.Add(rawZipOf(f, rawZipPart{name: "l", uncompress: "target", unixMode: 0xA1FF}, rawZipPart{name: "e", deflated: []byte{3, 0}, encrypted: true}))
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := listZip(context.Background(), data); err != nil && !errors.Is(err, errZipDamaged) {
			t.Fatalf("unexpected error %v", err)
		}
		v, err := Convert(context.Background(), data, Request{Name: "f.zip"})
		checkView(t, v, err)
	})
}

func FuzzTarListing(f *testing.F) {
	f.Add(tarOf(f, tarEntry{name: "d/", typ: tar.TypeDir}, tarEntry{name: "d/f", typ: tar.TypeReg, body: "x"}, tarEntry{name: "l", typ: tar.TypeSymlink, linkname: "d/f"}), false)
	f.Add(tarOf(f, tarEntry{name: "a", typ: tar.TypeReg, body: "abc"}), true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		name := "f.tar"
		if gz {
			data, name = gzipOf(t, data), "f.tar.gz"
		}
		v, err := Convert(context.Background(), data, Request{Name: name})
		checkView(t, v, err)
	})
}

func FuzzSniff(f *testing.F) {
	for _, seed := range [][]byte{pngHeaderClaiming(1, 1), webpBytes, bmpBytes, id3Bytes, mp3Frames(), m4aBytes, heicBytes, webmBytes, pdfBytes, svgBytes, []byte(tarBz2), {0x1f, 0x8b}, []byte("BZh9")} {
		f.Add(seed, "x.bin")
	}
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		kind, detected, mismatch := Sniff(data, name)
		if kind == "" || detected == "" {
			t.Fatalf("Sniff = %q %q", kind, detected)
		}
		if !utf8.ValidString(mismatch) {
			t.Fatal("invalid UTF-8 in mismatch")
		}
	})
}

func FuzzConvert(f *testing.F) {
	for _, seed := range [][]byte{[]byte("text\n"), pngHeaderClaiming(2, 2), id3Bytes, pdfBytes, []byte(tarBz2), gzipOf(f, []byte("x")),
		docxOf(f, para("x")), xlsxOf(f, false, "<si><t>a</t></si>", "", [3]string{"S", "", sheetXML(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`)})} {
		f.Add(seed, "file", 0, 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, name string, offset, limit int) {
		v, err := Convert(context.Background(), data, Request{Name: name, Offset: offset, Limit: limit})
		checkView(t, v, err)
	})
}
