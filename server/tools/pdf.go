package tools

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// A PDF reaches the model two ways: the text Mattermost extracted from it,
// paged like any text (this plugin does not parse PDFs itself), and, when it
// is within the media cap, the PDF itself as an embedded application/pdf
// resource, so a client that reads PDFs sees layout, tables and images.

// pdfMagic starts every PDF file; a file named .pdf without it is not
// handed on as one.
var pdfMagic = []byte("%PDF-")

func isPDF(info *model.FileInfo) bool {
	return strings.EqualFold(info.Extension, "pdf") || info.MimeType == "application/pdf"
}

// firstWindow reports whether a request asks for the start of the file:
// the PDF itself comes with that window only, not again with every page.
func firstWindow(req fileview.Request) bool { return req.Offset <= 1 && req.Column <= 1 }

// pdfView pages the text Mattermost extracted from a PDF and, on the first
// window of a PDF within the media cap, adds the PDF itself. The text is
// read already (mattermost.ExtractedText); cutting a window takes copies of it, and the PDF's
// bytes and their base64 take theirs: all of it comes out of the memory for
// reading files first.
func (d Deps) pdfView(ctx context.Context, info *model.FileInfo, text string, req fileview.Request, fetch func() ([]byte, error)) (*fileview.View, func(), error) {
	withPDF := firstWindow(req) && info.Size <= fileview.MaxMediaBytes
	hasText := strings.TrimSpace(text) != ""
	if !withPDF && !hasText {
		return fileview.Describe(req, info.Size, "PDF document",
			"Mattermost has no text extracted from this PDF (content extraction may be off, the PDF may be scanned images, or extraction is still running for a new upload), "+
				"and at "+present.Size(info.Size)+" it is over the "+present.Size(fileview.MaxMediaBytes)+" a PDF may be to come back as itself"), noRelease, nil
	}
	cost := pdfTextCopies*int64(len(text)) + answerBytes
	if withPDF {
		cost += fetchCopies*info.Size + mediaAnswerBytes
	}
	release, err := d.take(ctx, d.memory(d.Config()), cost, time.Now().Add(conversionWait))
	var tooLarge *budget.TooLargeError
	if errors.As(err, &tooLarge) {
		over := &overBudget{need: cost, capacity: tooLarge.Capacity, basis: "paging the text Mattermost extracted from it"}
		return fileview.Describe(req, info.Size, "PDF document", over.reason()), noRelease, nil
	}
	if err != nil {
		return nil, noRelease, err
	}
	release = giveBack(release, cost)
	var pdf []byte
	if withPDF {
		if pdf, err = fetch(); err != nil {
			release()
			return nil, noRelease, err
		}
		if !bytes.HasPrefix(pdf, pdfMagic) {
			pdf = nil
		}
	}
	view, err := pdfTextView(ctx, info, text, req, hasText, pdf)
	if err != nil {
		release()
		return nil, noRelease, err
	}
	return view, release, nil
}

// pdfTextView is the view of a PDF: its extracted text when there is some,
// and the PDF itself when pdf holds it.
func pdfTextView(ctx context.Context, info *model.FileInfo, text string, req fileview.Request, hasText bool, pdf []byte) (*fileview.View, error) {
	var view *fileview.View
	if hasText {
		var err error
		view, err = fileview.WindowOfText(ctx, text, req, "the text Mattermost extracted from this PDF (layout, images and tables are not included)")
		if err != nil {
			return nil, err
		}
		view.Kind = fileview.KindPDF
	} else {
		view = &fileview.View{Kind: fileview.KindPDF, Detected: "PDF document",
			Header: "PDF document " + present.Name(req.Name) + ", " + present.Size(info.Size) + ". It has no text layer Mattermost could extract (it may be scanned images, or extraction is off or still running)."}
		if pdf == nil {
			view.Header += " Its bytes do not start like a PDF, so it is not handed on as one; a person can open it from the post."
		}
	}
	if pdf != nil {
		view.Media = &fileview.Media{Data: pdf, MIMEType: "application/pdf"}
		view.Header += "\nThe PDF itself follows as an embedded application/pdf resource, with its layout, tables and images."
	} else if hasText && info.Size > fileview.MaxMediaBytes && firstWindow(req) {
		view.Header += "\nThe PDF itself is " + present.Size(info.Size) + ", over the " + present.Size(fileview.MaxMediaBytes) + " a PDF may be to come back as itself: only its text is here."
	}
	return view, nil
}
