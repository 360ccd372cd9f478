package fileview

import (
	"strings"
	"testing"
)

func TestTheBytesDecideWhetherAFileFitsAnExtensionAndTheNameOnlyBreaksTies(t *testing.T) {
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
	html := []byte("<!doctype html><html><body>not a report</body></html>")
	zipStart := []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	cases := []struct {
		name, file, ext string
		head            []byte
		fits, known     bool
	}{
		{"a PDF named as one", "report.pdf", ".pdf", pdf, true, true},
		{"a PDF without an extension: the bytes tell it", "scan", ".pdf", pdf, true, true},
		{"HTML named report.pdf", "report.pdf", ".pdf", html, false, true},
		{"text named as CSV fits CSV", "data.csv", ".csv", []byte("a,b\n1,2\n"), true, true},
		{"text named .txt does not fit CSV: the name breaks the tie", "data.txt", ".csv", []byte("a,b\n1,2\n"), false, true},
		{"the start of a zip named .docx fits .docx", "letter.docx", ".docx", zipStart, true, true},
		{"the start of a zip named .docx does not fit .xlsx", "letter.docx", ".xlsx", zipStart, false, true},
		{"a PNG named .pdf", "chart.pdf", ".pdf", png, false, true},
		{"an empty file is not a PDF", "empty.pdf", ".pdf", nil, false, true},
		{"an empty file is empty text", "empty.txt", ".txt", nil, true, true},
		{"an extension of unknown bytes matches on the name", "model.dwg", ".DWG", []byte{0, 1, 2}, true, false},
		{"an unknown extension the name lacks", "model.bin", ".dwg", []byte{0, 1, 2}, false, false},
	}
	for _, c := range cases {
		fits, known := FitsExtension(c.head, c.file, c.ext)
		if fits != c.fits || known != c.known {
			t.Errorf("%s: FitsExtension(%q, %q) = %v, %v; want %v, %v", c.name, c.file, c.ext, fits, known, c.fits, c.known)
		}
	}
}

func FuzzFitsExtensionNeverTakesAnEmptyFileForABinaryFormat(f *testing.F) {
	f.Add([]byte("%PDF-1.4"), "a.pdf", ".pdf")
	f.Add([]byte("<html>"), "report.pdf", ".pdf")
	f.Add([]byte{}, "x.png", ".png")
	f.Fuzz(func(t *testing.T, head []byte, name, ext string) {
		fits, known := FitsExtension(head, name, ext)
		if len(head) == 0 && known && fits {
			if want, _ := nameType("file" + strings.ToLower(ext)); want.family != "text" {
				t.Fatalf("an empty file fits %q", ext)
			}
		}
	})
}
