package fileview

import (
	"context"
	"strings"
	"testing"
)

func TestEveryWindowCutFromTheKeptTextIsTheWindowConvertGives(t *testing.T) {
	ctx := context.Background()
	files := map[string][]byte{
		"notes.txt":   []byte(numbered(1200)),
		"latin1.txt":  append([]byte("caf\xe9\n"), []byte(numbered(700))...),
		"report.docx": docxOf(t, paragraphs(900)),
	}
	for name, data := range files {
		first, err := Convert(ctx, data, Request{Name: name})
		if err != nil || first.Whole == nil {
			t.Fatalf("%s: %v, whole %v", name, err, first.Whole)
		}
		for _, req := range []Request{{Name: name, Offset: 501, Limit: 200}, {Name: name, Offset: 3, Limit: 1}} {
			want, err := Convert(ctx, data, req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := first.Whole.Window(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Header != want.Header || got.Text != want.Text || *got.Window != *want.Window {
				t.Fatalf("%s %+v: the kept text's window differs:\n%s\n---\n%s", name, req, got.Header, want.Header)
			}
		}
	}
	img, _ := Convert(ctx, pngOf(t, 4, 4), Request{Name: "a.png"})
	if img.Whole != nil {
		t.Fatal("an image view keeps a text")
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteString("\n")
	}
	return b.String()
}

func paragraphs(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(para(strings.Repeat("word ", i%12+1)))
	}
	return b.String()
}
