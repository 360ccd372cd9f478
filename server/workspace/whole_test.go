package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestABodyOfAnotherSizeThanDeclaredKeepsNothingAndTheExactOneIsKept(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), ChunkSize/8) // two chunks
	cases := []struct {
		name     string
		body     []byte
		size     int64
		pin      string
		want     error
		received int64
	}{
		{"a body cut short", big[:len(big)/2], int64(len(big)), "", ErrSizeMismatch, int64(len(big) / 2)},
		{"a body cut short inside the first chunk", []byte("half"), 8, "", ErrSizeMismatch, 4},
		{"a body that runs past the size", append(bytes.Clone(big), 'x'), int64(len(big)), "", ErrSizeMismatch, int64(len(big)) + 1},
		{"a body much longer than the size", big, 10, "", ErrSizeMismatch, 11},
		{"the exact body", big, int64(len(big)), "", nil, 0},
		{"an empty file of size 0", nil, 0, "", nil, 0},
		{"a body of the right size whose sha256 differs", []byte("actual"), 6, sha([]byte("expect")), ErrPinMismatch, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newStore(t, roomy)
			f, err := s.Write(context.Background(), alice, "w.bin", bytes.NewReader(c.body), WriteOptions{Size: Exactly(c.size), SHA256: c.pin})
			if c.want == nil {
				if err != nil || f.Size != c.size {
					t.Fatalf("got %+v, %v", f, err)
				}
				if _, data, err := s.ReadAll(alice, "w.bin", int64(len(big))); err != nil || !bytes.Equal(data, c.body) {
					t.Fatalf("read back %d bytes, %v", len(data), err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			var sizeErr *SizeError
			if errors.As(err, &sizeErr) && (sizeErr.Received != c.received || sizeErr.Declared != c.size) {
				t.Fatalf("the error says %d of %d bytes, want %d of %d", sizeErr.Received, sizeErr.Declared, c.received, c.size)
			}
			if _, err := s.Stat(alice, "w.bin"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("the file was kept: %v", err)
			}
			assertNoChunks(t, s)
		})
	}
}

// countingReader counts what a write read of it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestALongBodyIsReadOnlyOneBytePastItsSize(t *testing.T) {
	s, _ := newStore(t, roomy)
	body := &countingReader{r: bytes.NewReader(make([]byte, 3<<20))}
	if _, err := s.Write(context.Background(), alice, "l.bin", body, WriteOptions{Size: Exactly(100)}); !errors.Is(err, ErrSizeMismatch) {
		t.Fatalf("got %v", err)
	}
	if body.n != 101 {
		t.Fatalf("read %d bytes of a body declared as 100", body.n)
	}
}

func TestASizeOverTheLimitOrTheQuotaIsRefusedBeforeAByteIsRead(t *testing.T) {
	s, _ := newStore(t, Limits{QuotaBytes: 100, MaxFileBytes: 60})
	write(t, s, alice, "fill.bin", make([]byte, 50))
	for _, c := range []struct {
		size int64
		want error
	}{{61, ErrTooLarge}, {51, ErrQuota}} {
		body := &countingReader{r: bytes.NewReader(make([]byte, c.size))}
		if _, err := s.Write(context.Background(), alice, "n.bin", body, WriteOptions{Size: Exactly(c.size)}); !errors.Is(err, c.want) || body.n != 0 {
			t.Fatalf("size %d: %v after reading %d bytes", c.size, err, body.n)
		}
	}
}

func TestAHundredWritesOfOneNameThatClaimAFreeNameNeverReplaceOneAnother(t *testing.T) {
	s, _ := newStore(t, roomy)
	const writers, each = 10, 10
	names := make([][]string, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				f, err := s.Write(context.Background(), alice, "report.pdf", strings.NewReader(fmt.Sprintf("copy %d-%d", w, i)), WriteOptions{Claim: ClaimFree})
				if err != nil {
					t.Errorf("write %d-%d: %v", w, i, err)
					return
				}
				names[w] = append(names[w], f.Name)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for w := range writers {
		for i, name := range names[w] {
			if seen[name] {
				t.Fatalf("%q was claimed twice", name)
			}
			seen[name] = true
			if _, data, err := s.ReadAll(alice, name, 100); err != nil || string(data) != fmt.Sprintf("copy %d-%d", w, i) {
				t.Fatalf("%s holds %q, %v", name, data, err)
			}
		}
	}
	files, _ := s.List(alice)
	if len(files) != writers*each || !seen["report.pdf"] || !seen["report (100).pdf"] {
		t.Fatalf("%d files listed; report.pdf %v, report (100).pdf %v", len(files), seen["report.pdf"], seen["report (100).pdf"])
	}
}

func TestAFreeNameKeepsTheExtensionAndStaysWithinTheLengthOfAName(t *testing.T) {
	long := strings.Repeat("é", MaxNameBytes/2-4) + ".tar.gz"
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"notes.txt", 1, "notes.txt"},
		{"notes.txt", 2, "notes (2).txt"},
		{"backup.tar.gz", 3, "backup (3).tar.gz"},
		{"README", 12, "README (12)"},
	} {
		if got := numbered(c.name, c.n); got != c.want {
			t.Errorf("numbered(%q, %d) = %q, want %q", c.name, c.n, got, c.want)
		}
	}
	got := numbered(long, 250)
	if len(got) > MaxNameBytes || !strings.HasSuffix(got, " (250).tar.gz") || CheckName(got) != nil {
		t.Fatalf("numbered of a long name: %q (%d bytes)", got, len(got))
	}
}

func TestAnExactClaimRefusesALiveNameAndTakesAnExpiredOne(t *testing.T) {
	s, now := newStore(t, roomy)
	write(t, s, alice, "x.txt", []byte("first"))
	if _, err := s.Write(context.Background(), alice, "x.txt", strings.NewReader("second"), WriteOptions{Claim: ClaimExact}); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v", err)
	}
	if _, data, _ := s.ReadAll(alice, "x.txt", 10); string(data) != "first" {
		t.Fatalf("x.txt holds %q", data)
	}
	assertChunks(t, s, 1)
	*now = now.Add(Retention + 1)
	if f, err := s.Write(context.Background(), alice, "x.txt", strings.NewReader("second"), WriteOptions{Claim: ClaimExact}); err != nil || f.Name != "x.txt" {
		t.Fatalf("over an expired file: %+v %v", f, err)
	}
	assertChunks(t, s, 1)
}

func assertChunks(t *testing.T, s *Store, want int) {
	t.Helper()
	if keys, _, _ := s.kv.ListKeys(prefixChunk, 0, 1000); len(keys) != want {
		t.Fatalf("%d chunks stored, want %d: %v", len(keys), want, keys)
	}
}

// putDeclaring sends body to the upload URL of token declaring length
// bytes in its Content-Length header, with ContentLength 0 as
// Mattermost's plugin bridge passes it.
func putDeclaring(routes *Routes, token string, length int64, body io.Reader) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPut, UploadPath+token, body)
	req.ContentLength = 0
	req.Header.Set("Content-Length", fmt.Sprint(length))
	rec := httptest.NewRecorder()
	muxOf(routes).ServeHTTP(rec, req)
	return rec
}

func TestAPresignedPutCutShortKeepsNothingAndLeavesTheURLForTheRetry(t *testing.T) {
	s, _ := newStore(t, roomy)
	routes := &Routes{Store: s, Log: nopLog{}}
	whole := bytes.Repeat([]byte{7}, 819_200)
	up, err := s.PresignUpload(alice, "scan.pdf", UploadTerms{})
	if err != nil {
		t.Fatal(err)
	}
	rec := putDeclaring(routes, up.Token, int64(len(whole)), bytes.NewReader(whole[:409_600]))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "stopped after 409,600 of 819,200 bytes; nothing was kept") {
		t.Fatalf("a body cut short: %d %s", rec.Code, rec.Body)
	}
	if files, _ := s.List(alice); len(files) != 0 {
		t.Fatalf("kept %+v", files)
	}
	assertNoChunks(t, s)
	if rec := putDeclaring(routes, up.Token, int64(len(whole)), bytes.NewReader(whole)); rec.Code != http.StatusCreated {
		t.Fatalf("the retry: %d %s", rec.Code, rec.Body)
	}
	if _, data, err := s.ReadAll(alice, "scan.pdf", 1<<20); err != nil || !bytes.Equal(data, whole) {
		t.Fatalf("read back %d bytes, %v", len(data), err)
	}
}

func TestAPresignedPutOfAnotherLengthThanTheUploadWasGrantedIsRefusedBeforeItIsRead(t *testing.T) {
	s, _ := newStore(t, roomy)
	routes := &Routes{Store: s, Log: nopLog{}}
	up, _ := s.PresignUpload(alice, "exact.bin", UploadTerms{Size: Exactly(10)})
	body := &countingReader{r: strings.NewReader("0123456789a")}
	if rec := putDeclaring(routes, up.Token, 11, body); rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "takes exactly 10") || body.n != 0 {
		t.Fatalf("another length: %d %s after %d bytes", rec.Code, rec.Body, body.n)
	}
	// Without a Content-Length, the granted size still holds the body.
	if rec := serve(routes, http.MethodPut, UploadPath+up.Token, []byte("012345678")); rec.Code != http.StatusBadRequest {
		t.Fatalf("a short body without Content-Length: %d %s", rec.Code, rec.Body)
	}
	if rec := putDeclaring(routes, up.Token, 10, strings.NewReader("0123456789")); rec.Code != http.StatusCreated {
		t.Fatalf("the right file: %d %s", rec.Code, rec.Body)
	}
}

func TestASecondPutWhileTheFirstStreamsIsToldToWaitAndOnlyOneIsStored(t *testing.T) {
	s, _ := newStore(t, roomy)
	routes := &Routes{Store: s, Log: nopLog{}}
	up, _ := s.PresignUpload(alice, "race.bin", UploadTerms{})
	pr, pw := io.Pipe()
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- putDeclaring(routes, up.Token, 6, pr) }()
	if _, err := pw.Write([]byte("fir")); err != nil { // the first PUT holds the URL once it reads
		t.Fatal(err)
	}
	if rec := putDeclaring(routes, up.Token, 6, strings.NewReader("second")); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "under way") {
		t.Fatalf("the second PUT while the first streams: %d %s", rec.Code, rec.Body)
	}
	_, _ = pw.Write([]byte("st!"))
	pw.Close()
	if rec := <-first; rec.Code != http.StatusCreated {
		t.Fatalf("the first PUT: %d %s", rec.Code, rec.Body)
	}
	if rec := putDeclaring(routes, up.Token, 6, strings.NewReader("second")); rec.Code != http.StatusNotFound {
		t.Fatalf("a PUT after the file was stored: %d %s", rec.Code, rec.Body)
	}
	if _, data, _ := s.ReadAll(alice, "race.bin", 10); string(data) != "first!" {
		t.Fatalf("race.bin holds %q", data)
	}
}

func TestOfManyPutsRacingWithOneURLExactlyOneStoresItsFile(t *testing.T) {
	s, _ := newStore(t, roomy)
	routes := &Routes{Store: s, Log: nopLog{}}
	up, _ := s.PresignUpload(alice, "one.bin", UploadTerms{Claim: ClaimFree})
	const racers = 8
	codes := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			codes[i] = putDeclaring(routes, up.Token, 8, strings.NewReader(fmt.Sprintf("racer %02d", i))).Code
		})
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		if c == http.StatusCreated {
			created++
		} else if c != http.StatusConflict && c != http.StatusNotFound {
			t.Errorf("a racer was answered %d", c)
		}
	}
	if files, _ := s.List(alice); created != 1 || len(files) != 1 {
		t.Fatalf("%d PUTs stored a file, %d files kept: %v", created, len(files), codes)
	}
}

func TestTheDeclaredLengthIsReadFromTheHeaderWhereTheBridgeGivesNone(t *testing.T) {
	for _, c := range []struct {
		name          string
		contentLength int64
		header        []string
		want          int64 // -1: none declared
		bad           bool
	}{
		{"Go's own field", 12, nil, 12, false},
		{"the header behind a bridge that passes 0", 0, []string{"819200"}, 819200, false},
		{"an empty body declared", 0, []string{"0"}, 0, false},
		{"nothing declared", 0, nil, -1, false},
		{"a chunked body", -1, nil, -1, false},
		{"not a number", 0, []string{"12x"}, 0, true},
		{"negative", 0, []string{"-5"}, 0, true},
		{"two that differ", 0, []string{"5", "6"}, 0, true},
		{"two that agree", 0, []string{"5", "5"}, 5, false},
	} {
		r := httptest.NewRequest(http.MethodPut, "/", nil)
		r.ContentLength = c.contentLength
		for _, v := range c.header {
			r.Header.Add("Content-Length", v)
		}
		got, err := DeclaredLength(r)
		switch {
		case c.bad:
			if err == nil {
				t.Errorf("%s: accepted as %v", c.name, *got)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want < 0 && got != nil, c.want >= 0 && (got == nil || *got != c.want):
			t.Errorf("%s: got %v, want %d", c.name, got, c.want)
		}
	}
}

func FuzzDeclaredLengthIsNeverNegative(f *testing.F) {
	f.Add("819200")
	f.Add("-1")
	f.Add(" 7 ")
	f.Add("99999999999999999999")
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest(http.MethodPut, "/", nil)
		r.ContentLength = 0
		r.Header.Set("Content-Length", header)
		if got, err := DeclaredLength(r); err == nil && got != nil && *got < 0 {
			t.Fatalf("%q declared %d", header, *got)
		}
	})
}

func TestACountOfBytesIsGroupedInThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 409_600: "409,600", 52_428_800: "52,428,800", -1234: "-1,234"} {
		if got := Grouped(n); got != want {
			t.Errorf("Grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
