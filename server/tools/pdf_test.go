package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

func TestAPDFViewCarriesThePDFItselfBesideItsTextOrInsteadOfIt(t *testing.T) {
	pdf := []byte("%PDF-1.4\n...")
	cases := []struct {
		name     string
		content  string
		pdf      []byte
		size     int64
		req      fileview.Request
		wantPDF  bool
		wantText string
	}{
		{"text and the PDF", "Harbour minutes", pdf, 100, fileview.Request{Name: "m.pdf"}, true, "embedded application/pdf"},
		{"no text layer", "", pdf, 100, fileview.Request{Name: "scan.pdf"}, true, "no text layer"},
		{"bytes that are not a PDF", "", nil, 100, fileview.Request{Name: "fake.pdf"}, false, "do not start like a PDF"},
		{"too large to embed", "Harbour minutes", nil, fileview.MaxMediaBytes + 1, fileview.Request{Name: "big.pdf"}, false, "only its text is here"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := &model.FileInfo{Name: c.req.Name, Size: c.size}
			v, err := pdfTextView(context.Background(), info, c.content, c.req, c.content != "", c.pdf)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Media != nil && v.Media.MIMEType == "application/pdf"; got != c.wantPDF {
				t.Fatalf("PDF embedded: %v, want %v", got, c.wantPDF)
			}
			if !strings.Contains(v.Header, c.wantText) || v.Kind != fileview.KindPDF {
				t.Fatalf("header %q (kind %s) does not say %q", v.Header, v.Kind, c.wantText)
			}
		})
	}
}

func TestOnlyTheFirstWindowOfAPDFCarriesThePDF(t *testing.T) {
	cases := []struct {
		offset, column int
		want           bool
	}{{0, 0, true}, {1, 1, true}, {2, 0, false}, {1, 5, false}}
	for _, c := range cases {
		if got := firstWindow(fileview.Request{Offset: c.offset, Column: c.column}); got != c.want {
			t.Errorf("offset %d column %d: %v, want %v", c.offset, c.column, got, c.want)
		}
	}
}
