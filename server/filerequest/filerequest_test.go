package filerequest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

const (
	alice = "aliceaaaaaaaaaaaaaaaaaaaaa"
	bob   = "bobbbbbbbbbbbbbbbbbbbbbbbb"
)

type fixture struct {
	store *Store
	ws    *workspace.Store
	now   *time.Time
	srv   *httptest.Server
	// router serves a request in this process, as Mattermost's plugin
	// bridge hands it over: its ContentLength 0, its header kept.
	router http.Handler
	// person is who the page takes as the person's own session.
	person string
	heard  []error
	// verdict is what the admin's rule and the account's state say of a
	// drop URL's person, asked on each request (Routes.Admits); asked
	// counts the askings.
	verdict func(userID string) (admission.Verdict, error)
	asked   int
	// withheld is why the admin withholds request_file ("": offered).
	withheld string
}

func newFixture(t *testing.T, limits workspace.Limits) *fixture {
	t.Helper()
	kv := mattermost.NewBytesKV(&pluginapi.MemoryStore{})
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	f := &fixture{now: &now, person: alice, verdict: func(string) (admission.Verdict, error) { return admission.Allowed, nil }}
	f.store = &Store{KV: kv, Now: func() time.Time { return *f.now }}
	f.ws = workspace.New(kv, func() workspace.Limits { return limits })
	f.ws.Now = func() time.Time { return *f.now }
	rt := &Routes{Store: f.store, Workspace: f.ws, Log: nopLog{},
		Person: func(_ *http.Request, userID, csrf string) error {
			if userID != f.person || csrf != "csrf-"+userID {
				return ErrNotThePerson
			}
			return nil
		},
		Received: func(_ context.Context, _ Request, err error) { f.heard = append(f.heard, err) },
		Admits: func(userID string) (admission.Verdict, error) {
			f.asked++
			return f.verdict(userID)
		},
		Withheld: func() string { return f.withheld },
	}
	r := mux.NewRouter()
	rt.Register(r)
	f.router = r
	f.srv = httptest.NewServer(r)
	t.Cleanup(f.srv.Close)
	return f
}

type nopLog struct{}

func (nopLog) Info(string, ...any)  {}
func (nopLog) Error(string, ...any) {}

var roomy = workspace.Limits{QuotaBytes: 10 << 20, MaxFileBytes: 4 << 20}

// give uploads body as user with the session's token, naming it name.
func (f *fixture) give(t *testing.T, user, id, name string, body io.Reader, length int64) (int, Outcome) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+Path+"/"+id, body)
	req.ContentLength = length
	req.Header.Set("Mattermost-User-Id", user)
	req.Header.Set("X-CSRF-Token", "csrf-"+user)
	req.Header.Set("X-File-Name", url.PathEscape(name))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o Outcome
	_ = json.NewDecoder(resp.Body).Decode(&o)
	return resp.StatusCode, o
}

func (f *fixture) page(t *testing.T, user, csrfCookie, id string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+Path+"/"+id, nil)
	req.Header.Set("Mattermost-User-Id", user)
	if csrfCookie != "" {
		req.AddCookie(&http.Cookie{Name: "MMCSRF", Value: csrfCookie})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (f *fixture) ask(t *testing.T, user string, ask Ask) Request {
	t.Helper()
	if ask.MaxSize == 0 {
		ask.MaxSize = 1 << 20
	}
	req, err := f.store.Create(user, ask)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestAGivenFileLandsInTheWorkspaceWithItsSha256AndTheRequestCarriesAHandlePinnedToIt(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "the slides", Types: []string{".pdf"}})
	pdf := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 3000)...)
	code, o := f.give(t, alice, req.ID, "deck.pdf", bytes.NewReader(pdf), int64(len(pdf)))
	if code != http.StatusCreated || o.State != StateReceived || o.SHA256 != sum(pdf) || o.Type != "application/pdf" || o.Name != "deck.pdf" {
		t.Fatalf("upload answered %d %+v", code, o)
	}
	got, err := f.store.Load(alice, req.ID)
	if err != nil || got.State != StateReceived || got.File == nil || got.File.Handle == "" {
		t.Fatalf("the request after the upload: %+v %v", got, err)
	}
	var read []byte
	err = f.ws.RedeemStream(context.Background(), alice, got.File.Handle, func(rf workspace.RedeemedFile, r io.Reader) error {
		read, err = io.ReadAll(r)
		return err
	})
	if err != nil || !bytes.Equal(read, pdf) {
		t.Fatalf("the handle redeems %d bytes, %v", len(read), err)
	}
	// A second upload for the same request stores nothing more.
	if code, _ := f.give(t, alice, req.ID, "other.pdf", bytes.NewReader(pdf), int64(len(pdf))); code != http.StatusConflict {
		t.Fatalf("a second upload answered %d", code)
	}
	if files, _ := f.ws.List(alice); len(files) != 1 {
		t.Fatalf("the workspace holds %d files", len(files))
	}
}

func TestAFileGivenUnderTheNameOfAWorkspaceFileNeverReplacesIt(t *testing.T) {
	f := newFixture(t, roomy)
	if _, err := f.ws.Write(context.Background(), alice, "notes.txt", strings.NewReader("the model's"), workspace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	req := f.ask(t, alice, Ask{Purpose: "notes"})
	if code, o := f.give(t, alice, req.ID, "notes.txt", strings.NewReader("the person's"), 12); code != http.StatusCreated || o.Name != "notes (2).txt" {
		t.Fatalf("upload answered %d %+v", code, o)
	}
	if _, b, _ := f.ws.ReadAll(alice, "notes.txt", 100); string(b) != "the model's" {
		t.Fatalf("the workspace's own file became %q", b)
	}
}

func TestOnlyThePersonsOwnSessionIsServedAndAnotherPersonGetsNotFound(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "the slides"})
	if code, body := f.page(t, alice, "csrf-"+alice, req.ID); code != http.StatusOK || !strings.Contains(body, "the slides") || !strings.Contains(body, "Written by the AI") {
		t.Fatalf("alice's page: %d %.300s", code, body)
	}
	// A program with alice's token: no CSRF cookie, or the MCP client's session.
	if code, _ := f.page(t, alice, "", req.ID); code != http.StatusForbidden {
		t.Fatalf("alice's page without her session's CSRF cookie: %d", code)
	}
	if code, o := f.give(t, alice, req.ID, "a.txt", strings.NewReader("x"), 1); code != http.StatusCreated {
		t.Fatalf("alice's upload: %d %+v", code, o)
	}
	other := f.ask(t, alice, Ask{Purpose: "more"})
	f.person = bob
	if code, _ := f.page(t, bob, "csrf-"+bob, other.ID); code != http.StatusNotFound {
		t.Fatalf("bob's view of alice's request: %d", code)
	}
	if code, _ := f.give(t, bob, other.ID, "a.txt", strings.NewReader("x"), 1); code != http.StatusNotFound {
		t.Fatalf("bob's upload to alice's request: %d", code)
	}
	f.person = "nobody"
	if code, _ := f.give(t, alice, other.ID, "a.txt", strings.NewReader("x"), 1); code != http.StatusForbidden {
		t.Fatalf("an upload without the person's session: %d", code)
	}
	if files, _ := f.ws.List(bob); len(files) != 0 {
		t.Fatalf("bob's workspace holds %d files", len(files))
	}
}

func TestAFileOverTheBoundIsRefusedBeforeAByteIsStoredAndABodyPastItStopsThereWithNothingKept(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "small", MaxSize: 1000})
	// Declared too large: refused from the length alone.
	code, o := f.give(t, alice, req.ID, "big.bin", bytes.NewReader(make([]byte, 1001)), 1001)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(o.Message, "at most 1000 bytes") {
		t.Fatalf("a declared 1001 bytes answered %d %+v", code, o)
	}
	// Not declared (chunked): the bytes stop at the bound.
	code, o = f.give(t, alice, req.ID, "big.bin", io.MultiReader(bytes.NewReader(make([]byte, 1001))), -1)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("1001 bytes sent chunked answered %d %+v", code, o)
	}
	if files, _ := f.ws.List(alice); len(files) != 0 {
		t.Fatalf("the workspace keeps %d files of refused uploads", len(files))
	}
	// Exactly the bound is taken, and the request was free again for it.
	if code, o := f.give(t, alice, req.ID, "ok.bin", bytes.NewReader(make([]byte, 1000)), 1000); code != http.StatusCreated {
		t.Fatalf("1000 bytes answered %d %+v", code, o)
	}
}

func TestAFileOverTheQuotaLeftIsRefusedNamingWhatIsLeftAndFilesDelete(t *testing.T) {
	f := newFixture(t, workspace.Limits{QuotaBytes: 2000, MaxFileBytes: 2000})
	if _, err := f.ws.Write(context.Background(), alice, "old.bin", bytes.NewReader(make([]byte, 1500)), workspace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	req := f.ask(t, alice, Ask{Purpose: "x", MaxSize: 2000})
	code, o := f.give(t, alice, req.ID, "new.bin", bytes.NewReader(make([]byte, 800)), 800)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(o.Message, "500 bytes left") || !strings.Contains(o.Message, "files_delete") {
		t.Fatalf("over the quota answered %d %+v", code, o)
	}
}

func TestAFileOfAnotherTypeThanAskedIsRefusedWithNothingKept(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "a photo", Types: []string{"image/*"}})
	if code, o := f.give(t, alice, req.ID, "notes.txt", strings.NewReader("plain words"), 11); code != http.StatusUnsupportedMediaType || !strings.Contains(o.Message, "image/*") {
		t.Fatalf("a text file for image/* answered %d %+v", code, o)
	}
	// Named as a picture, its bytes are a page.
	html := "<!doctype html><html><script>alert(1)</script></html>"
	if code, o := f.give(t, alice, req.ID, "photo.png", strings.NewReader(html), int64(len(html))); code != http.StatusUnsupportedMediaType || !strings.Contains(o.Message, "text/html") {
		t.Fatalf("a page named photo.png answered %d %+v", code, o)
	}
	if files, _ := f.ws.List(alice); len(files) != 0 {
		t.Fatalf("the workspace keeps %d refused files", len(files))
	}
	if len(f.heard) != 1 || Reason(f.heard[0]) != "wrong_type" {
		t.Fatalf("the audit heard %v", f.heard)
	}
}

func TestAPersonHasAtMostTenRequestsWaitingAndTheyAreGoneAfterAnHour(t *testing.T) {
	f := newFixture(t, roomy)
	var first Request
	for i := range MaxOpen {
		r := f.ask(t, alice, Ask{Purpose: "one"})
		if i == 0 {
			first = r
		}
	}
	if _, err := f.store.Create(alice, Ask{Purpose: "eleven", MaxSize: 1}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("the eleventh request: %v", err)
	}
	if _, err := f.store.Create(bob, Ask{Purpose: "bob's own", MaxSize: 1}); err != nil {
		t.Fatalf("bob is bounded by alice's requests: %v", err)
	}
	// A withdrawn one makes room.
	if r, err := f.store.Cancel(alice, first.ID); err != nil || r.State != StateCancelled {
		t.Fatalf("cancel: %+v %v", r, err)
	}
	if _, err := f.store.Create(alice, Ask{Purpose: "now there is room", MaxSize: 1}); err != nil {
		t.Fatal(err)
	}
	*f.now = f.now.Add(Lifetime)
	if _, err := f.store.Load(alice, first.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a request an hour old: %v", err)
	}
	if open, _ := f.store.Open(alice); len(open) != 0 {
		t.Fatalf("%d requests wait after an hour", len(open))
	}
	if code, _ := f.page(t, alice, "csrf-"+alice, first.ID); code != http.StatusNotFound {
		t.Fatalf("the page of an expired request: %d", code)
	}
}

func TestACancelledRequestsPageSaysWithdrawnAndTakesNoFile(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: "x"})
	if _, err := f.store.Cancel(alice, req.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := f.page(t, alice, "csrf-"+alice, req.ID); code != http.StatusOK || !strings.Contains(body, "Withdrawn") {
		t.Fatalf("the page of a withdrawn request: %d %.300s", code, body)
	}
	if code, _ := f.give(t, alice, req.ID, "a.txt", strings.NewReader("x"), 1); code != http.StatusConflict {
		t.Fatalf("an upload to a withdrawn request: %d", code)
	}
	// Cancelling one already answered leaves its answer.
	given := f.ask(t, alice, Ask{Purpose: "y"})
	f.give(t, alice, given.ID, "b.txt", strings.NewReader("y"), 1)
	if r, err := f.store.Cancel(alice, given.ID); err != nil || r.State != StateReceived {
		t.Fatalf("cancelling a request already answered: %+v %v", r, err)
	}
}

func TestThePageRunsOnlyItsOwnScriptAndShowsTheModelsWordsAsText(t *testing.T) {
	f := newFixture(t, roomy)
	req := f.ask(t, alice, Ask{Purpose: `<img src=x onerror=alert(1)> see https://evil.example`})
	resp, err := http.DefaultClient.Do(func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, f.srv.URL+Path+"/"+req.ID, nil)
		r.Header.Set("Mattermost-User-Id", alice)
		r.AddCookie(&http.Cookie{Name: "MMCSRF", Value: "csrf-" + alice})
		return r
	}())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body, csp := string(b), resp.Header.Get("Content-Security-Policy")
	if strings.Contains(body, "<img src=x") || !strings.Contains(body, "&lt;img src=x") {
		t.Fatalf("the model's words are not inert: %.400s", body)
	}
	if !strings.Contains(csp, "script-src 'nonce-") || strings.Contains(csp, "unsafe-inline'; script") || !strings.Contains(csp, "connect-src 'self'") {
		t.Fatalf("policy %q", csp)
	}
	nonce := strings.TrimSuffix(strings.SplitN(strings.SplitN(csp, "'nonce-", 2)[1], "'", 2)[0], "'")
	if strings.Count(body, "<script") != 1 || !strings.Contains(body, `<script nonce="`+nonce+`">`) {
		t.Fatalf("the page's scripts do not all carry the nonce %s", nonce)
	}
}

func TestTypesTakeExtensionsMediaTypesAndFamiliesAndRefuseAnythingElse(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		err  bool
	}{
		{[]string{"PDF", ".Docx", "image/*", "application/pdf", " "}, ".pdf,.docx,image/*,application/pdf", false},
		{[]string{"*/*"}, "", true},
		{[]string{"../x"}, "", true},
		{[]string{"text/html;x=1"}, "", true},
		{[]string{strings.Repeat("a", 101)}, "", true},
		{make([]string, MaxTypes+1), "", true},
	} {
		got, err := Types(tc.in)
		if (err != nil) != tc.err || strings.Join(got, ",") != tc.want {
			t.Errorf("Types(%q) = %q, %v", tc.in, got, err)
		}
	}
	for _, tc := range []struct {
		types     []string
		name, mt  string
		wantTaken bool
	}{
		{nil, "anything.bin", "", true},
		{[]string{".pdf"}, "Deck.PDF", "application/pdf", true},
		{[]string{".pdf"}, "deck.txt", "application/pdf", false},
		{[]string{"image/*"}, "photo.jpg", "image/jpeg", true},
		{[]string{"image/*"}, "photo.jpg", "text/html", false},
		{[]string{"image/*"}, "photo.jpg", "", true},
		{[]string{"application/pdf"}, "x.pdf", "application/pdf", true},
	} {
		if got := Accepts(tc.types, tc.name, tc.mt); got != tc.wantTaken {
			t.Errorf("Accepts(%q, %q, %q) = %v", tc.types, tc.name, tc.mt, got)
		}
	}
}

func FuzzAFileNameFromTheBrowserIsAWorkspaceNameOrRefused(f *testing.F) {
	for _, s := range []string{"deck.pdf", "..%2F..%2Fetc%2Fpasswd", "a%00b.txt", "%E2%80%AEfdp.exe", "C:%5Cx%5Cy.doc", strings.Repeat("%F0%9F%98%80", 200) + ".png", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		name, err := fileName(header)
		if err != nil {
			return
		}
		if workspace.CheckName(name) != nil || strings.ContainsAny(name, "/\\\x00") {
			t.Fatalf("fileName(%q) = %q, not a workspace name", header, name)
		}
	})
}
