package fileview

import (
	"strings"
	"testing"
)

func TestWordTextComesOutAsTheReaderSeesIt(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"paragraphs are lines", para("First") + para("Second"), []string{"First", "Second"}},
		{"runs join, tab is a tab, break is a new line",
			`<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r><w:r><w:t xml:space="preserve"> d</w:t></w:r></w:p>`,
			[]string{"a\tb", "c d"}},
		{"table rows are tab-separated cells",
			`<w:tbl><w:tblPr/><w:tblGrid/><w:tr><w:tc>` + para("Name") + `</w:tc><w:tc>` + para("Qty") + `</w:tc></w:tr>` +
				`<w:tr><w:tc>` + para("Apples") + para("green") + `</w:tc><w:tc>` + para("3") + `</w:tc></w:tr></w:tbl>` + para("after"),
			[]string{"Name\tQty", "Apples green\t3", "after"}},
		{"a text box follows its paragraph, once",
			`<w:p><w:r><w:t>Anchor</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>` +
				para("Boxed") + `</w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox><w:txbxContent>` +
				para("Boxed") + `</w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t> text</w:t></w:r></w:p>` + para("Next"),
			[]string{"Anchor text", "Boxed", "Next"}},
		{"deleted tracked changes are left out, inserted text kept",
			`<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r><w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>` +
				`<w:ins w:id="2" w:author="A"><w:r><w:t>new</w:t></w:r></w:ins><w:r><w:t xml:space="preserve"> text</w:t></w:r></w:p>`,
			[]string{"The new text"}},
		{"field codes are left out, field results kept",
			`<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>` +
				`<w:r><w:t>HIDDEN</w:t></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>4</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
			[]string{"Page 4"}},
		{"nested fields keep only the outer result",
			`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>IF </w:instrText></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r>` +
				`<w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>` +
				`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>result</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
			[]string{"result"}},
		{"tab stops in paragraph properties are not tabs",
			`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>x</w:t></w:r></w:p>`,
			[]string{"x"}},
		{"runs of empty paragraphs become one empty line", para("a") + `<w:p/><w:p/><w:p/>` + para("b"), []string{"a", "", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := convert(t, "doc.docx", docxOf(t, tt.body))
			if v.Kind != KindDocument || v.Detected != "Word document" {
				t.Fatalf("kind %q detected %q", v.Kind, v.Detected)
			}
			if got := lines(t, v); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("lines %q, want %q", got, tt.want)
			}
			if !strings.Contains(v.Header, "Formatting, pictures and embedded objects are not included") {
				t.Fatalf("header:\n%s", v.Header)
			}
		})
	}
}

func TestPowerPointSlidesComeInPresentationOrderWithHiddenMarkedAndNotes(t *testing.T) {
	// slide1.xml is listed second, slide2.xml first: the order is the
	// presentation's, not the file names'.
	data := pptxOf(t, []string{"ppt/slides/slide2.xml", "ppt/slides/slide1.xml", "ppt/slides/slide3.xml"},
		part{"ppt/slides/slide1.xml", slideXML("", "Second title", "Second body")},
		part{"ppt/slides/slide2.xml", slideXML("", "Opening")},
		part{"ppt/slides/_rels/slide2.xml.rels", relsOf(relOf("rId1", "notesSlide", "../notesSlides/notesSlide1.xml"))},
		part{"ppt/notesSlides/notesSlide1.xml", notesXML("Say hello", "Then go on")},
		part{"ppt/slides/slide3.xml", slideXML("0", "Backup")},
	)
	v := convert(t, "deck.pptx", data)
	if v.Kind != KindPresentation || v.Detected != "PowerPoint presentation" {
		t.Fatalf("kind %q detected %q", v.Kind, v.Detected)
	}
	want := []string{"Slide 1", "Opening", "Speaker notes:", "Say hello", "Then go on", "",
		"Slide 2", "Second title", "Second body", "",
		"Slide 3 (hidden)", "Backup"}
	if got := lines(t, v); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q,\nwant %q", got, want)
	}
}

func TestExcelCellsAreShownAsTheirValues(t *testing.T) {
	const sst = `<si><t>Name</t></si><si><r><t>Rich </t></r><r><rPr><b/></rPr><t>text</t></r><rPh><t>ふりがな</t></rPh></si><si><t>two
lines</t></si>`
	const styles = `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd\ hh:mm"/><numFmt numFmtId="165" formatCode="&quot;Day&quot;\ 0.00"/></numFmts>` +
		`<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs>`
	sheet := sheetXML(
		`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><t>inline</t></is></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2" t="b"><v>1</v></c><c r="C2" t="b"><v>0</v></c></row>` +
			`<row r="3"><c r="A3"><f>SUM(B3:C3)</f><v>0.30000000000000004</v></c><c r="B3" t="str"><f>A1&amp;"!"</f><v>Name!</v></c><c r="D3" t="e"><v>#DIV/0!</v></c></row>` +
			`<row r="4"><c r="A4" s="1"><v>45366</v></c><c r="B4" s="2"><v>45366.6041666667</v></c><c r="C4" s="3"><v>3</v></c><c r="D4"><v>1234567</v></c></row>` +
			`<row r="5"><c r="A5" t="s"><v>2</v></c></row>` +
			`<row r="6"/><row r="7"><c r="A7" t="s"><v>0</v></c></row>` +
			`<row r="12"><c r="B12"><v>12</v></c></row>` +
			`<row r="40"><c r="A40" t="s"><v>0</v></c></row>`)
	data := xlsxOf(t, false, sst, styles, [3]string{"Budget", "", sheet})
	v := convert(t, "book.xlsx", data)
	if v.Kind != KindSpreadsheet || v.Detected != "Excel workbook" {
		t.Fatalf("kind %q detected %q", v.Kind, v.Detected)
	}
	want := []string{
		`Sheet 1 "Budget"`,
		"Name\t\tinline",
		"Rich text\tTRUE\tFALSE",
		"0.3\tName!\t\t#DIV/0!",
		"2024-03-15\t2024-03-15 14:30\t3\t1234567",
		"two↵lines",
		"(row 6 empty)",
		"Name",
		"(rows 8-11 empty)",
		"\t12",
		"(rows 13-39 empty)",
		"Name",
	}
	if got := lines(t, v); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q,\nwant %q", got, want)
	}
	if !strings.Contains(v.Header, "Formatting, pictures and embedded objects are not included") {
		t.Fatalf("header:\n%s", v.Header)
	}
}

func TestExcelDatesFollowTheWorkbooksDateSystem(t *testing.T) {
	const styles = `<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="22"/><xf numFmtId="21"/></cellXfs>`
	tests := []struct {
		name     string
		date1904 bool
		value    string
		style    string
		want     string
	}{
		{"1900 system", false, "45366", "1", "2024-03-15"},
		{"1900 system keeps Excel's 29 February 1900", false, "60", "1", "1900-02-29"},
		{"1900 system before the phantom day", false, "59", "1", "1900-02-28"},
		{"1900 system after the phantom day", false, "61", "1", "1900-03-01"},
		{"1900 system first day", false, "1", "1", "1900-01-01"},
		{"1904 system", true, "43904", "1", "2024-03-15"},
		{"1904 system day zero", true, "0", "1", "1904-01-01"},
		{"date and time", false, "45366.5", "2", "2024-03-15 12:00"},
		{"time only with seconds", false, "0.75001157407", "3", "18:00:01"},
		{"not a date format", false, "45366", "0", "45366"},
		{"negative is no date", false, "-5", "1", "-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sheet := sheetXML(`<row r="1"><c r="A1" s="` + tt.style + `"><v>` + tt.value + `</v></c></row>`)
			v := convert(t, "d.xlsx", xlsxOf(t, tt.date1904, "", styles, [3]string{"S", "", sheet}))
			if got := lines(t, v); len(got) != 2 || got[1] != tt.want {
				t.Fatalf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCustomNumberFormatsAreDatesOnlyWhenTheyHaveDateTokens(t *testing.T) {
	tests := []struct {
		code string
		want fmtClass
	}{
		{`yyyy\-mm\-dd\ hh:mm`, fmtClass{date: true, time: true}},
		{`yyyy-mm-dd hh:mm`, fmtClass{date: true, time: true}},
		{`d/m/yy`, fmtClass{date: true}},
		{`mmm yyyy`, fmtClass{date: true}},
		{`h:mm AM/PM`, fmtClass{time: true}},
		{`mm:ss`, fmtClass{time: true, seconds: true}},
		{`[h]:mm:ss`, fmtClass{time: true, seconds: true, elapsed: true}},
		{`"Days "0`, fmtClass{}},
		{`0.00E+00`, fmtClass{}},
		{`[Red]#,##0;[Blue]-#,##0`, fmtClass{}},
		{`#,##0 \m\m`, fmtClass{}},
		{`[$-409]General`, fmtClass{}},
		{`General`, fmtClass{}},
		{`_(* #,##0_)`, fmtClass{}},
	}
	for _, tt := range tests {
		if got := classifyFormat(tt.code); got != tt.want {
			t.Errorf("classifyFormat(%q) = %+v, want %+v", tt.code, got, tt.want)
		}
	}
}

func TestExcelSheetsComeInWorkbookOrderWithHiddenOnesMarked(t *testing.T) {
	cell := func(v string) string {
		return sheetXML(`<row r="1"><c r="A1" t="inlineStr"><is><t>` + v + `</t></is></c></row>`)
	}
	data := xlsxOf(t, false, "", "",
		[3]string{"Visible", "", cell("one")},
		[3]string{"Secret", "hidden", cell("two")},
		[3]string{"Deep", "veryHidden", cell("three")},
		[3]string{"Empty", "", sheetXML("")},
	)
	v := convert(t, "s.xlsx", data)
	want := []string{`Sheet 1 "Visible"`, "one", "", `Sheet 2 "Secret" (hidden)`, "two", "",
		`Sheet 3 "Deep" (very hidden)`, "three", "", `Sheet 4 "Empty"`, "(no cells with values)"}
	if got := lines(t, v); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q,\nwant %q", got, want)
	}
}

func TestLegacyOfficeFilesAreDescribedWithAdviceToResave(t *testing.T) {
	ole := func(stream string) []byte {
		b := []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
		b = append(b, make([]byte, 504)...)
		for _, c := range stream {
			b = append(b, byte(c), 0)
		}
		return append(b, make([]byte, 64)...)
	}
	tests := []struct {
		name, file, stream, detected, advice string
	}{
		{"Word", "old.doc", "WordDocument", "Word 97-2003 document", ".docx"},
		{"Excel", "old.xls", "Workbook", "Excel 97-2003 workbook", ".xlsx"},
		{"PowerPoint", "old.ppt", "PowerPoint Document", "PowerPoint 97-2003 presentation", ".pptx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Convert(t.Context(), ole(tt.stream), Request{Name: tt.file, Permalink: "https://mm.example/pl/p1"})
			if err != nil {
				t.Fatal(err)
			}
			if v.Kind != KindOther || v.Detected != tt.detected || v.Text != "" {
				t.Fatalf("kind %q detected %q", v.Kind, v.Detected)
			}
			for _, want := range []string{"save it as " + tt.advice, "A person can open it at https://mm.example/pl/p1"} {
				if !strings.Contains(v.Header, want) {
					t.Errorf("header lacks %q:\n%s", want, v.Header)
				}
			}
		})
	}
}

func TestADamagedOfficeFileIsDescribedNotFailed(t *testing.T) {
	data := docxOf(t, para("hello"))
	v := convert(t, "cut.docx", data[:len(data)/2])
	if v.Text != "" || !strings.Contains(v.Header, "not shown") {
		t.Fatalf("view %+v", v)
	}
}
