package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

const (
	alice = "aliceaaaaaaaaaaaaaaaaaaaaa"
	bob   = "bobbbbbbbbbbbbbbbbbbbbbbbb"
)

// newStore is a workspace over the plugin API's own in-memory KV store,
// through the same adapter the plugin uses, with a clock the test moves.
func newStore(t *testing.T, limits Limits) (*Store, *time.Time) {
	t.Helper()
	s := New(mattermost.NewBytesKV(&pluginapi.MemoryStore{}), func() Limits { return limits })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	return s, &now
}

var roomy = Limits{QuotaBytes: 10 << 20, MaxFileBytes: 4 << 20}

func write(t *testing.T, s *Store, user, name string, data []byte) File {
	t.Helper()
	f, err := s.Write(context.Background(), user, name, bytes.NewReader(data), WriteOptions{})
	if err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	return f
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func TestNamesOutsideTheAllowlistAreRefused(t *testing.T) {
	bad := []string{"", ".", "..", ".env", "a/b", `a\b`, "../x", "a\x00b", "a\nb", "tab\there", "rlo\u202egnp.exe",
		"zero\u200bwidth", "nbsp\u00a0name", " lead", "trail ", strings.Repeat("a", MaxNameBytes+1), "bad\xffutf8", "\ufffd"}
	for _, name := range bad {
		if err := CheckName(name); err == nil {
			t.Errorf("%q was accepted", name)
		}
	}
	good := []string{"report.pdf", "Résumé 2026.docx", "图表.png", "a", "x.tar.gz", strings.Repeat("é", MaxNameBytes/2)}
	for _, name := range good {
		if err := CheckName(name); err != nil {
			t.Errorf("%q was refused: %v", name, err)
		}
	}
}

func TestARefusedNameSaysWhatAGoodNameLooksLike(t *testing.T) {
	err := CheckName("../etc/passwd")
	if err == nil || !strings.Contains(err.Error(), "such as report.pdf") {
		t.Fatalf("refusal does not name the next step: %v", err)
	}
}

func TestTheSpaceIsAHashOfTheUserIDNotTheIDItself(t *testing.T) {
	if sp := spaceOf(alice); strings.Contains(sp, alice) || sp == spaceOf(bob) || len(sp) != 32 {
		t.Fatalf("space %q", sp)
	}
}

func TestAWrittenFileIsListedReadBackByteIdenticalAndDescribed(t *testing.T) {
	s, _ := newStore(t, roomy)
	data := bytes.Repeat([]byte("0123456789abcdef"), ChunkSize/16*2+7) // spans three chunks
	f := write(t, s, alice, "notes.txt", data)
	if f.Size != int64(len(data)) || f.SHA256 != sha(data) || f.Chunks != 3 || !strings.Contains(f.Type, "text") {
		t.Fatalf("record %+v", f)
	}
	_, got, err := s.ReadAll(alice, "notes.txt", 1<<30)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, err %v", len(got), err)
	}
	files, _ := s.List(alice)
	if len(files) != 1 || files[0].Name != "notes.txt" {
		t.Fatalf("list %+v", files)
	}
}

func TestAnotherUsersFileIsNotFoundEverywhere(t *testing.T) {
	s, _ := newStore(t, roomy)
	write(t, s, alice, "secret.txt", []byte("alice only"))
	if files, _ := s.List(bob); len(files) != 0 {
		t.Fatalf("bob lists %+v", files)
	}
	if _, err := s.Stat(bob, "secret.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stat: %v", err)
	}
	if _, _, err := s.ReadAll(bob, "secret.txt", 1<<20); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read: %v", err)
	}
	if err := s.Delete(bob, "secret.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete: %v", err)
	}
	if _, err := s.PresignDownload(bob, "secret.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("presign: %v", err)
	}
	if _, err := s.Stat(alice, "secret.txt"); err != nil {
		t.Fatalf("alice lost her file: %v", err)
	}
}

func TestAFileOverTheLargestFileSettingIsRefusedAndNothingIsKept(t *testing.T) {
	s, _ := newStore(t, Limits{QuotaBytes: 10 << 20, MaxFileBytes: 1000})
	_, err := s.Write(context.Background(), alice, "big.bin", bytes.NewReader(make([]byte, 1001)), WriteOptions{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
	assertNoChunks(t, s)
}

func TestTheQuotaCountsEveryFileOfTheUserAndAReplacedFileOnlyOnce(t *testing.T) {
	s, _ := newStore(t, Limits{QuotaBytes: 3000, MaxFileBytes: 2000})
	write(t, s, alice, "a.bin", make([]byte, 1500))
	write(t, s, alice, "b.bin", make([]byte, 1500))
	if _, err := s.Write(context.Background(), alice, "c.bin", bytes.NewReader([]byte("x")), WriteOptions{}); !errors.Is(err, ErrQuota) {
		t.Fatalf("over quota: %v", err)
	}
	write(t, s, alice, "a.bin", make([]byte, 1500)) // replaces: still 3000
	write(t, s, bob, "c.bin", make([]byte, 1500))   // bob's quota is his own
	if used, _ := s.Usage(alice); used != 3000 {
		t.Fatalf("usage %d", used)
	}
}

func TestAPinnedWriteWhoseBytesDifferIsRefused(t *testing.T) {
	s, _ := newStore(t, roomy)
	_, err := s.Write(context.Background(), alice, "p.bin", strings.NewReader("actual"), WriteOptions{SHA256: sha([]byte("expected"))})
	if !errors.Is(err, ErrPinMismatch) {
		t.Fatalf("got %v", err)
	}
	assertNoChunks(t, s)
}

func assertNoChunks(t *testing.T, s *Store) {
	t.Helper()
	keys, _, _ := s.kv.ListKeys(prefixChunk, 0, 1000)
	if len(keys) != 0 {
		t.Fatalf("chunks left behind: %v", keys)
	}
}

func TestTheSweepRemovesFilesOlderThanTheRetentionAndKeepsNewerOnes(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "old.txt", []byte("old"))
	write(t, s, bob, "old.txt", []byte("old"))
	*now = now.Add(20 * time.Hour)
	write(t, s, alice, "new.txt", []byte("new"))
	// Reading does not extend a file's life.
	if _, _, err := s.ReadAll(alice, "old.txt", 100); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(4 * time.Hour) // old: exactly 24 h; new: 4 h
	removed, err := s.Sweep(*now)
	if err != nil || removed != 2 {
		t.Fatalf("removed %d, err %v", removed, err)
	}
	files, _ := s.List(alice)
	if len(files) != 1 || files[0].Name != "new.txt" {
		t.Fatalf("alice keeps %+v", files)
	}
	if keys, _, _ := s.kv.ListKeys(prefixIndex, 0, 100); len(keys) != 1 {
		t.Fatalf("indexes left: %v (bob's empty one should be gone)", keys)
	}
	if keys, _, _ := s.kv.ListKeys(prefixChunk, 0, 100); len(keys) != 1 {
		t.Fatalf("chunks left: %v", keys)
	}
}

func TestAnExpiredFileIsGoneBeforeTheSweepRuns(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "x.txt", []byte("x"))
	*now = now.Add(Retention)
	if _, err := s.Stat(alice, "x.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestADownloadTokenWorksRepeatedlyUntilItExpires(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "d.txt", []byte("d"))
	p, err := s.PresignDownload(alice, "d.txt")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if user, f, err := s.Download(p.Token); err != nil || user != alice || f.Name != "d.txt" {
			t.Fatalf("download: %v %v %v", user, f, err)
		}
	}
	*now = now.Add(DownloadLifetime)
	if _, _, err := s.Download(p.Token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after expiry: %v", err)
	}
}

func TestAnUploadTokenIsSpentExactlyOnceAndCannotDownload(t *testing.T) {
	s, _ := newStore(t, roomy)
	p, err := s.PresignUpload(alice, "u.bin", UploadTerms{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Download(p.Token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an upload token downloads: %v", err)
	}
	f, err := s.WriteUpload(context.Background(), p.Token, strings.NewReader("one"), nil)
	if err != nil || f.Name != "u.bin" {
		t.Fatalf("first upload: %+v %v", f, err)
	}
	if _, err := s.WriteUpload(context.Background(), p.Token, strings.NewReader("two"), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second upload: %v", err)
	}
	if _, data, _ := s.ReadAll(alice, "u.bin", 10); string(data) != "one" {
		t.Fatalf("u.bin holds %q", data)
	}
}

func TestTokensAreStoredOnlyAsHashes(t *testing.T) {
	s, _ := newStore(t, roomy)
	p, _ := s.PresignUpload(alice, "u.bin", UploadTerms{})
	keys, _, _ := s.kv.ListKeys("", 0, 100)
	for _, k := range keys {
		if strings.Contains(k, p.Token) {
			t.Fatalf("key %q holds the token", k)
		}
	}
}

func upload(t *testing.T, s *Store, user, name string, data []byte, pin string) Upload {
	t.Helper()
	up, err := s.RequestUpload(user, name, int64(len(data)), pin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteUpload(context.Background(), up.Token, bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
	return up
}

func redeem(s *Store, user, handle string) (RedeemedFile, error) {
	var got RedeemedFile
	err := s.RedeemStream(context.Background(), user, handle, func(f RedeemedFile, r io.Reader) error {
		got = f
		var err error
		got.Bytes, err = io.ReadAll(r)
		return err
	})
	return got, err
}

func TestARedeemedHandleGivesTheBytesThatWereUploaded(t *testing.T) {
	s, _ := newStore(t, roomy)
	data := []byte("\x89PNG\r\n\x1a\n binary \x00\xff")
	up := upload(t, s, alice, "chart.png", data, sha(data))
	f, err := redeem(s, alice, up.Handle)
	if err != nil || !bytes.Equal(f.Bytes, data) || f.SHA256 != sha(data) || f.Name != "chart.png" {
		t.Fatalf("redeemed %+v, %v", f, err)
	}
}

func TestHandlesThatMustNotRedeemAreRefused(t *testing.T) {
	s, now := newStore(t, roomy)
	data := []byte("payload")
	up := upload(t, s, alice, "h.bin", data, "")
	tampered := []byte(up.Handle)
	tampered[len(handlePrefix)+3] ^= 1
	secret, _ := s.secret.Bytes()
	wrongType, _ := SignHandle(secret, Claims{Type: "access_token", UserID: alice, Name: "h.bin", MaxSize: 10, Expires: now.Add(time.Hour).Unix()})
	otherSecret, _ := SignHandle(bytes.Repeat([]byte{7}, 32), Claims{Type: handleType, UserID: alice, Name: "h.bin", MaxSize: 10, Expires: now.Add(time.Hour).Unix()})
	cases := []struct {
		name, user, handle string
		want               error
	}{
		{"tampered", alice, string(tampered), ErrInvalidHandle},
		{"a Mattermost session token", alice, "9xuqwrwgstrb3mzrxb83nb357a", ErrInvalidHandle},
		{"signed but of another type", alice, wrongType, ErrInvalidHandle},
		{"signed with another secret", alice, otherSecret, ErrInvalidHandle},
		{"another user's", bob, up.Handle, ErrNotFound},
		{"empty", alice, "", ErrInvalidHandle},
	}
	for _, tc := range cases {
		if _, err := redeem(s, tc.user, tc.handle); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	*now = now.Add(HandleLifetime)
	if _, err := redeem(s, alice, up.Handle); !errors.Is(err, ErrExpiredHandle) {
		t.Errorf("expired: got %v", err)
	}
}

func TestRedeemRechecksTheSizeCapAndThePinOnTheStoredBytes(t *testing.T) {
	s, _ := newStore(t, roomy)
	up := upload(t, s, alice, "r.bin", []byte("12345"), sha([]byte("12345")))
	// The file is replaced in the workspace after the upload (files_write or
	// the REST API): the handle must not redeem other bytes.
	write(t, s, alice, "r.bin", []byte("1234"))
	if _, err := redeem(s, alice, up.Handle); !errors.Is(err, ErrPinMismatch) {
		t.Fatalf("changed bytes: %v", err)
	}
	write(t, s, alice, "r.bin", []byte("123456"))
	if _, err := redeem(s, alice, up.Handle); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("larger bytes: %v", err)
	}
	if err := s.Delete(alice, "r.bin"); err != nil {
		t.Fatal(err)
	}
	if _, err := redeem(s, alice, up.Handle); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted file: %v", err)
	}
}

func TestRedemptionsBeyondTheSlotsWait(t *testing.T) {
	s, _ := newStore(t, roomy)
	up := upload(t, s, alice, "w.bin", []byte("w"), "")
	release := make(chan struct{})
	inside := make(chan struct{}, 2*RedeemSlots)
	for range 2 * RedeemSlots {
		go func() {
			_ = s.RedeemStream(context.Background(), alice, up.Handle, func(RedeemedFile, io.Reader) error {
				inside <- struct{}{}
				<-release
				return nil
			})
		}()
	}
	deadline := time.After(2 * time.Second)
	for range RedeemSlots {
		select {
		case <-inside:
		case <-deadline:
			t.Fatal("slots did not fill")
		}
	}
	select {
	case <-inside:
		t.Fatalf("more than %d redemptions ran at once", RedeemSlots)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
}

func TestTwoNodesAgreeOnTheSigningSecret(t *testing.T) {
	kv := mattermost.NewBytesKV(&pluginapi.MemoryStore{})
	a := New(kv, func() Limits { return roomy })
	b := New(kv, func() Limits { return roomy })
	sa, err1 := a.secret.Bytes()
	sb, err2 := b.secret.Bytes()
	if err1 != nil || err2 != nil || !bytes.Equal(sa, sb) {
		t.Fatalf("secrets differ: %v %v", err1, err2)
	}
}

func TestEveryByteServingResponseIsAnInertDownload(t *testing.T) {
	s, _ := newStore(t, roomy)
	write(t, s, alice, "page.html", []byte("<script>alert(1)</script>"))
	routes := &Routes{Store: s, Log: nopLog{}, Authenticate: func(http.ResponseWriter, *http.Request) (string, bool) { return alice, true }}
	p, _ := s.PresignDownload(alice, "page.html")
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, path := range []string{DownloadPath + p.Token, APIPath + "/page.html"} {
			rec := serve(routes, method, path, nil)
			h := rec.Header()
			if rec.Code != 200 || h.Get("Content-Type") != "application/octet-stream" || h.Get("X-Content-Type-Options") != "nosniff" ||
				h.Get("Content-Security-Policy") != "sandbox" || h.Get("Cache-Control") != "no-store" ||
				!strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") {
				t.Errorf("%s %s: %d %v", method, path, rec.Code, h)
			}
		}
	}
}

func TestTheDownloadNameIsEncodedSafely(t *testing.T) {
	got := ContentDisposition(`Ré"sumé; x.html`)
	// The ASCII fallback has one underscore per character it cannot carry;
	// the extended value carries the exact UTF-8.
	want := `attachment; filename="R__sum__ x.html"; filename*=UTF-8''R%C3%A9%22sum%C3%A9%3B%20x.html`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestAPresignedUploadOverItsCapIsRefusedAndTheURLStillTakesTheRightFile(t *testing.T) {
	s, _ := newStore(t, roomy)
	routes := &Routes{Store: s, Log: nopLog{}}
	up, _ := s.RequestUpload(alice, "cap.bin", 4, "")
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("12345")); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("over cap: %d %s", rec.Code, rec.Body)
	}
	if _, err := s.Stat(alice, "cap.bin"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stored: %v", err)
	}
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("1234")); rec.Code != http.StatusCreated {
		t.Fatalf("second PUT: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("1234")); rec.Code != http.StatusNotFound {
		t.Fatalf("a third PUT after the file was stored: %d", rec.Code)
	}
}

type nopLog struct{}

func (nopLog) Info(string, ...any)  {}
func (nopLog) Error(string, ...any) {}

func serve(routes *Routes, method, path string, body []byte) *httptest.ResponseRecorder {
	r := muxOf(routes)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec
}

func TestASha256ThatIsNotOneIsRefusedBeforeAnySlotIsMade(t *testing.T) {
	s, _ := newStore(t, roomy)
	if _, err := s.RequestUpload(alice, "x.bin", 3, "not-a-sha"); !errors.Is(err, ErrBadPin) {
		t.Fatalf("got %v", err)
	}
	if keys, _, _ := s.kv.ListKeys(prefixToken, 0, 100); len(keys) != 0 {
		t.Fatalf("a token was issued: %v", keys)
	}
}

func TestRequestUploadRefusesAnExpectedSizeOverTheLimitOrTheQuota(t *testing.T) {
	s, _ := newStore(t, Limits{QuotaBytes: 100, MaxFileBytes: 60})
	if _, err := s.RequestUpload(alice, "a.bin", 61, ""); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the file limit: %v", err)
	}
	write(t, s, alice, "b.bin", make([]byte, 50))
	if _, err := s.RequestUpload(alice, "a.bin", 51, ""); !errors.Is(err, ErrQuota) {
		t.Fatalf("over the quota: %v", err)
	}
	if _, err := s.RequestUpload(alice, "b.bin", 60, ""); err != nil {
		t.Fatalf("replacing b.bin fits: %v", err)
	}
}

func TestADownloadURLStandsForTheBytesItWasMadeFor(t *testing.T) {
	s, _ := newStore(t, roomy)
	write(t, s, alice, "v.txt", []byte("version 1"))
	p, _ := s.PresignDownload(alice, "v.txt")
	write(t, s, alice, "v.txt", []byte("version 2"))
	if _, _, err := s.Download(p.Token); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the URL serves the replacement: %v", err)
	}
}
