package filerequest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// bridged sends body to path as Mattermost's plugin bridge hands a request
// to the plugin: ContentLength 0, the sender's Content-Length header kept,
// and a body that ends with a clean EOF wherever its client went away,
// read in pieces of any size as a network hands them over.
func (f *fixture) bridged(t *testing.T, method, path, name string, declared int64, body []byte, header map[string]string) (int, Outcome) {
	t.Helper()
	req := httptest.NewRequest(method, path, struct{ io.Reader }{iotest.HalfReader(bytes.NewReader(body))})
	req.ContentLength = 0
	req.Header.Set("Content-Length", fmt.Sprint(declared))
	req.Header.Set("X-File-Name", url.PathEscape(name))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, req)
	var o Outcome
	if err := json.Unmarshal(rec.Body.Bytes(), &o); err != nil {
		t.Fatalf("%s %s answered %d %q", method, path, rec.Code, rec.Body)
	}
	return rec.Code, o
}

func (f *fixture) onPage(user string) map[string]string {
	return map[string]string{"Mattermost-User-Id": user, "X-CSRF-Token": "csrf-" + user}
}

func TestAFileCutShortIsNotKeptAndTheRequestTakesTheRetryByteIdentical(t *testing.T) {
	whole := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("0123456789"), 81_920)...)
	for _, way := range []struct {
		name   string
		method string
		path   func(req Request) string
		header map[string]string
	}{
		{"the page", http.MethodPost, func(req Request) string { return Path + "/" + req.ID }, map[string]string{"Mattermost-User-Id": alice, "X-CSRF-Token": "csrf-" + alice}},
		{"the drop URL", http.MethodPut, func(req Request) string { return DropURL("", req) }, nil},
	} {
		t.Run(way.name, func(t *testing.T) {
			f := newFixture(t, roomy)
			req := f.ask(t, alice, Ask{Purpose: "the scan", Types: []string{".pdf"}})
			for _, cut := range []int{len(whole) / 2, 100} {
				code, o := f.bridged(t, way.method, way.path(req), "scan.pdf", int64(len(whole)), whole[:cut], way.header)
				want := fmt.Sprintf("stopped after %s of %s bytes; nothing was kept", grouped(cut), grouped(len(whole)))
				if code != http.StatusBadRequest || o.State != StateWaiting || !strings.Contains(o.Message, want) || !strings.Contains(o.Message, "Send the file again") {
					t.Fatalf("cut at %d: %d %+v", cut, code, o)
				}
			}
			if files, _ := f.ws.List(alice); len(files) != 0 {
				t.Fatalf("the workspace keeps %+v", files)
			}
			if got, _ := f.store.Load(alice, req.ID); got.State != StateWaiting || !got.UploadingUntil.IsZero() {
				t.Fatalf("the request after the cut: %+v", got)
			}
			code, o := f.bridged(t, way.method, way.path(req), "scan.pdf", int64(len(whole)), whole, way.header)
			if code != http.StatusCreated || o.SHA256 != sum(whole) || o.Name != "scan.pdf" || o.Type != "application/pdf" {
				t.Fatalf("the retry: %d %+v", code, o)
			}
			if _, data, err := f.ws.ReadAll(alice, "scan.pdf", 1<<20); err != nil || !bytes.Equal(data, whole) {
				t.Fatalf("read back %d bytes, %v", len(data), err)
			}
		})
	}
}

func grouped(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestABodyLongerThanDeclaredOrTheSizeThePageSaidIsNotKept(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	if code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes and more"), f.onPage(alice)); code != http.StatusBadRequest || !strings.Contains(o.Message, "ran past the 5 bytes") {
		t.Fatalf("a long body: %d %+v", code, o)
	}
	page := f.onPage(alice)
	page["X-File-Size"] = "4"
	if code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes"), page); code != http.StatusBadRequest || !strings.Contains(o.Message, "X-File-Size") {
		t.Fatalf("a size the page said that is not the length sent: %d %+v", code, o)
	}
	if files, _ := f.ws.List(alice); len(files) != 0 {
		t.Fatalf("the workspace keeps %+v", files)
	}
	page["X-File-Size"] = "5"
	if code, o := f.bridged(t, http.MethodPost, Path+"/"+req.ID, "notes.txt", 5, []byte("notes"), page); code != http.StatusCreated {
		t.Fatalf("the file as said: %d %+v", code, o)
	}
}

func TestHTMLNamedReportPdfIsRefusedForAPdfAndAPdfWithoutExtensionIsTaken(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "the report", Types: []string{".pdf"}})
	html := []byte("<!doctype html><html><body><h1>Quarterly report</h1></body></html>")
	code, o := f.give(t, alice, req.ID, "report.pdf", bytes.NewReader(html), int64(len(html)))
	if code != http.StatusUnsupportedMediaType || o.State != StateWaiting || !strings.Contains(o.Message, "text/html") || !strings.Contains(o.Message, ".pdf") {
		t.Fatalf("HTML named report.pdf: %d %+v", code, o)
	}
	if files, _ := f.ws.List(alice); len(files) != 0 {
		t.Fatalf("the workspace keeps %+v", files)
	}
	pdf := []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")
	if code, o := f.give(t, alice, req.ID, "scan", bytes.NewReader(pdf), int64(len(pdf))); code != http.StatusCreated || o.Type != "application/pdf" {
		t.Fatalf("a PDF named scan: %d %+v", code, o)
	}
}

func TestTheBytesDecideTheTypeAndTheNameOnlyBreaksTies(t *testing.T) {
	html := []byte("<!doctype html><html></html>")
	text := []byte("a,b\n1,2\n")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	zipStart := []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")
	for _, c := range []struct {
		types []string
		name  string
		head  []byte
		want  bool
	}{
		{nil, "anything.bin", []byte{0}, true},
		{[]string{".pdf"}, "report.pdf", html, false},
		{[]string{"application/pdf"}, "report.pdf", text, false},
		{[]string{".csv"}, "data.csv", text, true},
		{[]string{"text/csv"}, "data.csv", text, true},
		{[]string{".csv"}, "data.txt", text, false},
		{[]string{"image/*"}, "photo.jpg", png, true},
		{[]string{"image/*"}, "photo.png", html, false},
		{[]string{".docx"}, "letter.docx", zipStart, true},
		{[]string{".docx", ".pdf"}, "letter.pdf", zipStart, false},
	} {
		if got := AcceptsBytes(c.types, c.name, c.head); got != c.want {
			t.Errorf("AcceptsBytes(%q, %q, %q) = %v", c.types, c.name, c.head, got)
		}
	}
}

func TestTheDropKeyIsKeptOnlyAsItsHashAndOnlyTheKeyOpensTheDropURL(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	raw, _ := f.store.KV.Get(key(alice))
	if req.DropKey == "" || bytes.Contains(raw, []byte(req.DropKey)) {
		t.Fatalf("the store holds the drop key: %s", raw)
	}
	loaded, _ := f.store.Load(alice, req.ID)
	if loaded.DropKey != "" || DropURL("https://mm", loaded) != "" {
		t.Fatalf("a request read back offers a drop URL: %q", DropURL("https://mm", loaded))
	}
	wrong := DropPath + "/" + alice + "/" + req.ID + "/" + strings.Repeat("0", 64)
	if code, _ := f.bridged(t, http.MethodPut, wrong, "n.txt", 1, []byte("n"), nil); code != http.StatusNotFound {
		t.Fatalf("another key: %d", code)
	}
	hashAsKey := DropPath + "/" + alice + "/" + req.ID + "/" + loaded.DropKeySHA256
	if code, _ := f.bridged(t, http.MethodPut, hashAsKey, "n.txt", 1, []byte("n"), nil); code != http.StatusNotFound {
		t.Fatalf("the stored hash as the key: %d", code)
	}
	if code, o := f.bridged(t, http.MethodPut, DropURL("", req), "n.txt", 1, []byte("n"), nil); code != http.StatusCreated {
		t.Fatalf("the key: %d %+v", code, o)
	}
}

func TestAFewFilesOfOneNameGivenAtOnceForManyRequestsNeverReplaceOneAnother(t *testing.T) {
	f := newFixture(t, roomy)
	const n = MaxOpen
	done := make(chan error, n)
	for i := range n {
		req := f.ask(t, alice, Ask{Purpose: fmt.Sprint("copy ", i)})
		go func() {
			code, o := f.give(t, alice, req.ID, "same.txt", strings.NewReader(fmt.Sprintf("copy %02d", i)), 7)
			if code != http.StatusCreated {
				done <- fmt.Errorf("copy %d: %d %+v", i, code, o)
				return
			}
			_, data, err := f.ws.ReadAll(alice, o.Name, 100)
			if err != nil || string(data) != fmt.Sprintf("copy %02d", i) {
				err = fmt.Errorf("%s holds %q, %v", o.Name, data, err)
			}
			done <- err
		}()
	}
	for range n {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if files, _ := f.ws.List(alice); len(files) != n {
		t.Fatalf("%d files kept of %d given", len(files), n)
	}
}
