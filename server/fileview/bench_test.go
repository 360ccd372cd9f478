package fileview

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Benchmarks build their own fixtures. Run with -benchmem.

// words is varied text, so fixtures compress like real prose (about 3:1).
func words(r *rand.Rand, n int) string {
	vocab := strings.Fields("the of and a to in is you that it he was for on are as with his they I at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part")
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocab[r.IntN(len(vocab))])
		if r.IntN(50) == 0 {
			fmt.Fprintf(&b, " %d", r.IntN(100000))
		}
	}
	return b.String()
}

func BenchmarkTextFirstWindowOf1MB(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(words(r, 12))
		sb.WriteByte('\n')
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Convert(context.Background(), data, Request{Name: "big.txt"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDocxOf5MB(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var body strings.Builder
	for i := 0; body.Len() < 15<<20; i++ {
		if i%20 == 0 {
			body.WriteString(`<w:tbl><w:tr><w:tc>` + para(words(r, 3)) + `</w:tc><w:tc>` + para(words(r, 3)) + `</w:tc></w:tr></w:tbl>`)
		}
		body.WriteString(`<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:lang w:val="en-US"/></w:rPr><w:t xml:space="preserve">` + words(r, 60) + `</w:t></w:r></w:p>`)
	}
	data := docxOf(b, body.String())
	b.Logf("docx: %d bytes, document.xml %d bytes", len(data), body.Len())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		v, err := Convert(context.Background(), data, Request{Name: "big.docx"})
		if err != nil || v.Kind != KindDocument {
			b.Fatal(err)
		}
	}
}

func BenchmarkXlsxOf50000Rows(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var sst, rows strings.Builder
	for i := 0; i < 5000; i++ {
		sst.WriteString(`<si><t>` + words(r, 2) + `</t></si>`)
	}
	for i := 1; i <= 50_000; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d" t="s"><v>%d</v></c><c r="B%d"><v>%d</v></c><c r="C%d" s="1"><v>%d</v></c><c r="D%d"><v>%f</v></c><c r="E%d" t="inlineStr"><is><t>%s</t></is></c></row>`,
			i, i, r.IntN(5000), i, r.IntN(1_000_000), i, 40000+r.IntN(9000), i, r.Float64()*1000, i, words(r, 3))
	}
	data := xlsxOf(b, false, sst.String(), `<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>`, [3]string{"Data", "", sheetXML(rows.String())})
	b.Logf("xlsx: %d bytes", len(data))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		v, err := Convert(context.Background(), data, Request{Name: "big.xlsx"})
		if err != nil || v.Window.TotalLines < 50_000 {
			b.Fatal(err, v.Window)
		}
	}
}

func BenchmarkTarGzOf100000Entries(b *testing.B) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := 0; i < 100_000; i++ {
		body := fmt.Sprintf("file %d\n", i)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("dir%03d/file%06d.txt", i%1000, i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			b.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.Logf("tar.gz: %d bytes", len(data))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		v, err := Convert(context.Background(), data, Request{Name: "many.tar.gz"})
		if err != nil || !strings.Contains(v.Header, "90,000 more are not listed") {
			b.Fatal(err, v.Header)
		}
	}
}

func BenchmarkJPEGOf12MegapixelsTurnedByEXIF(b *testing.B) {
	data := jpegWithOrientation(b, 4000, 3000, 6)
	b.Logf("jpeg: %d bytes", len(data))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		v, err := Convert(context.Background(), data, Request{Name: "photo.jpg"})
		if err != nil || v.Image == nil || !v.Image.Turned {
			b.Fatal(err)
		}
	}
}
