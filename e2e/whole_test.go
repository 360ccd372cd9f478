package e2e

// Issue 55: a file arrives whole or not at all. Mattermost's plugin bridge
// ends the body of a client that went away with a clean EOF, so every way
// a file comes in (a presigned PUT, a file request's page, its drop URL)
// compares what arrived with what was declared: a body cut half way keeps
// nothing, and the same request then takes the whole file.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// wholeSize is the file the tests send: 800 KiB, cut at half.
const wholeSize = 819_200

// sendHalf writes a request declaring Content-Length len(data) over a raw
// TCP connection, then half of data, then ends its side of the connection,
// as a client that went away would; it answers what the server said, if
// anything, before it closed.
func sendHalf(t *testing.T, method, target string, header http.Header, data []byte) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, u.RequestURI(), u.Host, len(data))
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, _ := io.ReadAll(conn)
	return string(answer)
}

// cutShortAnswer fails unless answer, the server's reply to a body cut at
// half of wholeSize, refuses it saying how much arrived and what to do.
func cutShortAnswer(t *testing.T, answer, next string) {
	t.Helper()
	status, _, _ := strings.Cut(answer, "\r\n")
	if status != "HTTP/1.1 400 Bad Request" || !strings.Contains(answer, "The upload stopped after 409,600 of 819,200 bytes; nothing was kept.") || !strings.Contains(answer, next) {
		t.Fatalf("a body cut at half was answered %q", answer)
	}
}

// waitCutShort waits until the audit trail records the person's upload for
// request id as refused for being cut short.
func waitCutShort(t *testing.T, u harness.User, id string) {
	t.Helper()
	q := url.Values{"user": {u.ID}, "kind": {string(audit.KindFileRequest)}, "per_page": {"200"}}
	eventuallyWithin(t, 60*time.Second, "the cut upload is audited as cut short", func() bool {
		code, p, body := auditPage(t, mm.Admin.Token, audit.APIPath, q)
		if code != http.StatusOK {
			t.Fatalf("the admin reads the trail: %d %s", code, body)
		}
		for _, e := range p.Entries {
			if e.Targets["file_request_id"] == id && e.Reason == "cut_short" {
				return true
			}
		}
		return false
	})
}

// nothingKeptNamed fails when u's workspace, listed through REST, holds a file
// whose name starts with stem.
func nothingKeptNamed(t *testing.T, u harness.User, stem string) {
	t.Helper()
	for _, e := range listWorkspace(t, u.Token) {
		if strings.HasPrefix(e.Name, stem) {
			t.Fatalf("the workspace kept %s (%d bytes) of a body cut short", e.Name, e.Size)
		}
	}
}

// readBack is u's workspace file name read through REST.
func readBack(t *testing.T, u harness.User, name string) []byte {
	t.Helper()
	resp, got := httpDo(t, http.MethodGet, restURL(name), u.Token, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("read back %s: %d %s", name, resp.StatusCode, got)
	}
	return got
}

func TestAPresignedPutCutHalfWayKeepsNothingAndTheSameURLThenTakesTheWholeFile(t *testing.T) {
	alice := mm.Users[0]
	c := aliceClient(t)
	name := uniq(t, "cut-put") + ".bin"
	data := randomBytes(t, wholeSize)
	d := requestUpload(t, c, name, len(data), "")

	cutShortAnswer(t, sendHalf(t, http.MethodPut, d.Upload.URL, nil, data), "Send the whole file again to the same URL")
	nothingKeptNamed(t, alice, strings.TrimSuffix(name, ".bin"))

	resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", data)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the whole file to the same URL: %d %s", resp.StatusCode, body)
	}
	if got := readBack(t, alice, name); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, identical %v", len(got), bytes.Equal(got, data))
	}
	// Spent now: the URL took its file.
	if resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", data); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a PUT after the file was stored: %d %s", resp.StatusCode, body)
	}
}

func TestARESTPutCutHalfWayKeepsNothingAndTheRetryIsStored(t *testing.T) {
	alice := mm.Users[0]
	name := uniq(t, "cut-rest") + ".bin"
	data := randomBytes(t, wholeSize)
	cutShortAnswer(t, sendHalf(t, http.MethodPut, restURL(name), http.Header{"Authorization": {"Bearer " + alice.Token}}, data), "Send the whole file again.")
	nothingKeptNamed(t, alice, strings.TrimSuffix(name, ".bin"))
	if resp, body := httpDo(t, http.MethodPut, restURL(name), alice.Token, data); resp.StatusCode != http.StatusCreated {
		t.Fatalf("the whole file: %d %s", resp.StatusCode, body)
	}
	if got := readBack(t, alice, name); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, identical %v", len(got), bytes.Equal(got, data))
	}
}

func TestAFileGivenOnThePageCutHalfWayKeepsNothingAndTheRequestTakesTheRetry(t *testing.T) {
	carol := newPerson(t, "carol")
	c := connect(t, mm.URL, carol.Token)
	purpose := uniq(t, "the scan, cut half way")
	done := askForFile(c, map[string]any{"purpose": purpose, "types": []string{".pdf"}, "max_size_mib": 1})
	id := waitFileRequest(t, carol, purpose)
	page := fileRequestPage(id)
	web := browserAt(t, mm.URL, carol)
	pdf := append([]byte("%PDF-1.7\n"), randomBytes(t, wholeSize-9)...)

	u, _ := url.Parse(page)
	header := http.Header{}
	var cookies []string
	for _, ck := range web.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
		if ck.Name == "MMCSRF" {
			header.Set("X-CSRF-Token", ck.Value)
		}
	}
	header.Set("Cookie", strings.Join(cookies, "; "))
	header.Set("X-File-Name", "scan.pdf")
	header.Set("X-File-Size", fmt.Sprint(len(pdf)))
	cutShortAnswer(t, sendHalf(t, http.MethodPost, page, header, pdf), "Send the file again: the request still waits for it.")
	waitCutShort(t, carol, id)
	nothingKeptNamed(t, carol, "scan")

	code, o := giveFile(t, web, page, "scan.pdf", pdf)
	if code != http.StatusCreated || o.SHA256 != hexSHA(pdf) || o.Name != "scan.pdf" {
		t.Fatalf("the retry on the page: %d %+v", code, o)
	}
	if got := readBack(t, carol, "scan.pdf"); !bytes.Equal(got, pdf) {
		t.Fatalf("read back %d bytes, identical %v", len(got), bytes.Equal(got, pdf))
	}
	var got tools.FileRequestResult
	if structuredAs(t, <-done, &got); got.File == nil || got.File.SHA256 != hexSHA(pdf) {
		t.Fatalf("request_file after the retry answered %+v", got)
	}
}

func TestAFileSentToTheDropURLCutHalfWayKeepsNothingAndTheDropURLTakesTheRetry(t *testing.T) {
	dave := newPerson(t, "dave")
	c := connectShowingViews(t, dave.Token)
	purpose := uniq(t, "the notes, dropped half way")
	res := call(t, c, "request_file", map[string]any{"purpose": purpose, "max_size_mib": 1})
	var asked tools.FileRequestResult
	structuredAs(t, res, &asked)
	view := fileRequestViewOf(t, res)
	if asked.State != filerequest.StateWaiting || view.DropURL == "" {
		t.Fatalf("request_file answered %s with %+v", text(res), view)
	}
	data := randomBytes(t, wholeSize)
	cutShortAnswer(t, sendHalf(t, http.MethodPut, view.DropURL, http.Header{"X-File-Name": {"notes.bin"}, "Origin": {"https://sandbox.example"}}, data),
		"Send the file again: the request still waits for it.")
	waitCutShort(t, dave, asked.ID)
	nothingKeptNamed(t, dave, "notes")

	code, body := putTo(t, view.DropURL, "", "notes.bin", data)
	if code != http.StatusCreated {
		t.Fatalf("the retry to the drop URL: %d %s", code, body)
	}
	var o filerequest.Outcome
	if err := json.Unmarshal([]byte(body), &o); err != nil || o.Name != "notes.bin" {
		t.Fatalf("the drop URL answered %s", body)
	}
	if got := readBack(t, dave, "notes.bin"); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, identical %v", len(got), bytes.Equal(got, data))
	}
	// The store keeps only the key's hash: the record holds nothing that
	// opens the drop URL.
	raw, err := mm.KVValue(context.Background(), "fr_"+dave.ID)
	if err != nil {
		t.Fatal(err)
	}
	if key := view.DropURL[strings.LastIndex(view.DropURL, "/")+1:]; bytes.Contains(raw, []byte(key)) {
		t.Fatal("the KV store holds the drop URL's key")
	}
}

func TestHTMLNamedReportPdfIsRefusedForARequestThatAskedForAPdf(t *testing.T) {
	erin := newPerson(t, "erin")
	c := connect(t, mm.URL, erin.Token)
	purpose := uniq(t, "the quarterly report")
	done := askForFile(c, map[string]any{"purpose": purpose, "types": []string{".pdf"}})
	id := waitFileRequest(t, erin, purpose)
	web := browserAt(t, mm.URL, erin)
	html := []byte("<!doctype html><html><body><h1>Quarterly report</h1><script>alert(1)</script></body></html>")
	code, o := giveFile(t, web, fileRequestPage(id), "report.pdf", html)
	if code != http.StatusUnsupportedMediaType || o.State != filerequest.StateWaiting || !strings.Contains(o.Message, "text/html") || !strings.Contains(o.Message, "Choose a file of that type") {
		t.Fatalf("HTML named report.pdf: %d %+v", code, o)
	}
	nothingKeptNamed(t, erin, "report")
	pdf := []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
	if code, o := giveFile(t, web, fileRequestPage(id), "report.pdf", pdf); code != http.StatusCreated || o.Type != "application/pdf" {
		t.Fatalf("a PDF after the refusal: %d %+v", code, o)
	}
	if res := <-done; !strings.Contains(text(res), hexSHA(pdf)) {
		t.Fatalf("request_file answered %s", text(res))
	}
}

func TestFilesOfOneNameGivenAtOnceForSeveralRequestsNeverReplaceOneAnother(t *testing.T) {
	frank := newPerson(t, "frank")
	c := connect(t, mm.URL, frank.Token)
	web := browserAt(t, mm.URL, frank)
	const n = 4
	pages := make([]string, n)
	for i := range n {
		purpose := uniq(t, fmt.Sprintf("copy %d", i))
		done := askForFile(c, map[string]any{"purpose": purpose})
		pages[i] = fileRequestPage(waitFileRequest(t, frank, purpose))
		go func() { <-done }()
	}
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code, o, err := harness.GiveFile(web, pages[i], "same.txt", fmt.Appendf(nil, "the person's copy %d\n", i))
			if err != nil || code != http.StatusCreated {
				t.Errorf("copy %d: %d %+v %v", i, code, o, err)
			}
			names[i] = o.Name
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, name := range names {
		if name == "" || seen[name] {
			t.Fatalf("names claimed: %q", names)
		}
		seen[name] = true
		if got := readBack(t, frank, name); string(got) != fmt.Sprintf("the person's copy %d\n", i) {
			t.Fatalf("%s holds %q", name, got)
		}
	}
	if files := listWorkspace(t, frank.Token); len(files) != n {
		t.Fatalf("%d files listed, want %d", len(files), n)
	}
}
