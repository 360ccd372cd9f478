package posting

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// workspaceLike is a source that keeps a sha256 on record, like the
// workspace: data is what it streams, recorded what its record says.
func workspaceLike(data, recorded *string) Reader {
	return Reader{Ref: func(e Entry) string { return e.WorkspaceFile }, Read: func(_ context.Context, ref string, use func(Stream) error) error {
		return use(Stream{Name: ref, Origin: "your workspace file", Size: int64(len(*data)), SHA256: *recorded, Body: strings.NewReader(*data)})
	}}
}

func TestAFileThatDiffersWhileItStreamsIsDeletedWithWhatWasUploadedAndNothingIsPosted(t *testing.T) {
	cases := []struct {
		name, now     string
		wantDiscarded []string
	}{
		{"other bytes of the same size", "version 2", []string{"f-a.txt", "f-r.txt"}},
		{"more bytes", "version 1 and more", []string{"f-a.txt", "f-r.txt"}},
		// The upload of the shorter file never completes: only a.txt exists.
		{"fewer bytes", "v1", []string{"f-a.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, recorded := "version 1", ""
			reg := NewRegistry(NewSlots(2), map[string]Source{KindWritten: Written{}, KindWorkspace: workspaceLike(&data, &recorded)})
			mm := &fakeMM{}
			plan, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"},
				Files: []Entry{{Name: "a.txt", Content: "a"}, {WorkspaceFile: "r.txt"}}})
			if err != nil {
				t.Fatal(err)
			}
			// The record still vouches for the bytes shown, so the check
			// before the uploads passes; the bytes that stream are others.
			recorded, data = plan.Files[1].SHA256, c.now
			_, err = Execute(context.Background(), mm, reg, plan)
			if _, ok := refusal.As(err); !ok || !strings.Contains(err.Error(), "r.txt changed since the person was asked") || !strings.Contains(err.Error(), "were deleted") {
				t.Fatalf("refusal: %v", err)
			}
			if mm.posts != 0 {
				t.Fatalf("%d posts", mm.posts)
			}
			if !slices.Equal(mm.discarded, c.wantDiscarded) {
				t.Fatalf("deleted %v, want %v", mm.discarded, c.wantDiscarded)
			}
		})
	}
}

func TestARecordThatNoLongerMatchesRefusesTheFileBeforeAnythingIsUploaded(t *testing.T) {
	data, recorded := "version 1", ""
	reg := NewRegistry(NewSlots(2), map[string]Source{KindWritten: Written{}, KindWorkspace: workspaceLike(&data, &recorded)})
	mm := &fakeMM{}
	plan, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"},
		Files: []Entry{{Name: "a.txt", Content: "a"}, {WorkspaceFile: "r.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	data, recorded = "version 2", hexSHA("version 2")
	if _, err := Execute(context.Background(), mm, reg, plan); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("refusal: %v", err)
	}
	if mm.uploads != 0 || mm.posts != 0 || len(mm.discarded) != 0 {
		t.Fatalf("%d uploads, %d posts, %v deleted", mm.uploads, mm.posts, mm.discarded)
	}
}

func hexSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// largestRead remembers the largest read an upload was handed.
type largestRead struct {
	fakeMM
	largest  int
	received int64
	sum      string
}

func (l *largestRead) ServerMaxFileSize() int64 { return 100 << 20 }

func (l *largestRead) Upload(r io.Reader, size int64, _, name string) (*model.FileInfo, error) {
	h := sha256.New()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		l.largest = max(l.largest, n)
		l.received += int64(n)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	l.sum = hex.EncodeToString(h.Sum(nil))
	return &model.FileInfo{Id: "f-" + name}, nil
}

// bigSource streams size pseudo-random bytes that exist nowhere whole.
func bigSource(size int64) Reader {
	return Reader{Ref: func(e Entry) string { return e.WorkspaceFile }, Read: func(_ context.Context, ref string, use func(Stream) error) error {
		return use(Stream{Name: ref, Size: size, Body: io.LimitReader(rand.NewChaCha8([32]byte{9}), size)})
	}}
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSixtyFourMiBArePostedThroughSmallReadsWithoutEverBeingHeldWhole(t *testing.T) {
	const size = 64 << 20
	want := sha256.New()
	if _, err := io.Copy(want, io.LimitReader(rand.NewChaCha8([32]byte{9}), size)); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry(NewSlots(2), map[string]Source{KindWorkspace: bigSource(size)})
	mm := &largestRead{}
	var plan Plan
	var err error
	staging := allocated(func() {
		plan, err = Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{WorkspaceFile: "big.bin"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Files[0].Size != size || plan.Files[0].SHA256 != hex.EncodeToString(want.Sum(nil)) {
		t.Fatalf("staged %d bytes, sha256 %s", plan.Files[0].Size, plan.Files[0].SHA256)
	}
	posting := allocated(func() { _, err = Execute(context.Background(), mm, reg, plan) })
	if err != nil {
		t.Fatal(err)
	}
	if mm.received != size || mm.sum != plan.Files[0].SHA256 {
		t.Fatalf("uploaded %d bytes, sha256 %s", mm.received, mm.sum)
	}
	// The file never exists whole: staging keeps its head and tail (about
	// 1 MiB), posting a read buffer; the rest is garbage of small reads.
	t.Logf("64 MiB: staging allocated %d KiB, posting %d KiB, largest read %d KiB", staging>>10, posting>>10, mm.largest>>10)
	if staging > 4<<20 || posting > 4<<20 {
		t.Fatalf("allocated %d MiB to stage and %d MiB to post a 64 MiB file", staging>>20, posting>>20)
	}
	if mm.largest > 32<<10 {
		t.Fatalf("the upload was handed %d bytes at once", mm.largest)
	}
}

// forwarding is an attachment-like source: it counts what was read.
type forwarding struct {
	Reader
	opened, forwarded int
	rename            bool
}

func (f *forwarding) Open(ctx context.Context, s Staged, use func(Stream) error) error {
	f.opened++
	return f.Reader.Open(ctx, s, use)
}
func (f *forwarding) Unchanged(context.Context, Staged) error { return nil }
func (f *forwarding) Forward(_ context.Context, s Staged, _ string) (string, bool, error) {
	if f.rename {
		return "", false, nil
	}
	f.forwarded++
	return "copy-of-" + s.Ref, true, nil
}

func TestAnAttachmentIsForwardedWithoutReadingItAgainAndUploadedWhenMattermostsCopyWouldDiffer(t *testing.T) {
	data, recorded := "attached bytes", ""
	src := &forwarding{Reader: workspaceLike(&data, &recorded)}
	reg := NewRegistry(NewSlots(2), map[string]Source{KindAttachment: src})
	mm := &fakeMM{}
	plan, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{FileID: "f1"}}})
	if err != nil {
		t.Fatal(err)
	}
	plan.Files[0].Ref = "f1"
	res, err := Execute(context.Background(), mm, reg, plan)
	if err != nil || src.opened != 0 || src.forwarded != 1 || !slices.Equal(res.FileIDs, []string{"copy-of-f1"}) || mm.uploads != 0 {
		t.Fatalf("forwarded: %v, %d reads, %d copies, %v, %d uploads", err, src.opened, src.forwarded, res.FileIDs, mm.uploads)
	}
	src.rename = true
	res, err = Execute(context.Background(), mm, reg, plan)
	if err != nil || src.opened != 1 || mm.uploads != 1 || mm.sums[plan.Files[0].Name] != hexSHA(data) {
		t.Fatalf("uploaded: %v, %d reads, %d uploads, %v", err, src.opened, mm.uploads, res.FileIDs)
	}
}

// wordDocument is a zip that names the parts of a Word document, padded
// with size bytes of stored random media.
func wordDocument(t *testing.T, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "word/document.xml"} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("<x/>"))
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "word/media/image1.bin", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, io.LimitReader(rand.NewChaCha8([32]byte{1}), int64(size))); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAFileTooLargeToHoldIsStagedFromAStreamAsItWouldBeWhole(t *testing.T) {
	text := "x" + strings.Repeat("é", 10<<20) // the head ends inside an é
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"report.docx", wordDocument(t, MaxWholeBytes+1), "Word document"},
		{"notes.txt", []byte(text), "UTF-8 text"},
	}
	for _, c := range cases {
		whole := describe(context.Background(), Staged{Name: c.name}, c.data)
		var got Staged
		var err error
		held := allocated(func() {
			got, err = describeStream(context.Background(), Staged{Name: c.name}, Stream{Name: c.name, Size: int64(len(c.data)), Body: bytes.NewReader(c.data)})
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.Size != whole.Size || got.SHA256 != whole.SHA256 || got.Detected != whole.Detected || got.Mismatch != "" || !strings.Contains(got.Detected, c.want) {
			t.Errorf("%s: streamed %d %s %q %q, whole %d %s %q", c.name, got.Size, got.SHA256, got.Detected, got.Mismatch, whole.Size, whole.SHA256, whole.Detected)
		}
		if held > 4<<20 {
			t.Errorf("%s: staging %d MiB allocated %d MiB", c.name, len(c.data)>>20, held>>20)
		}
		if c.name == "notes.txt" && !strings.HasPrefix(got.Preview, "xéé") {
			t.Errorf("preview %q", got.Preview[:20])
		}
	}
}

// cancelling cancels the call once the upload has read its first bytes.
type cancelling struct {
	fakeMM
	cancel context.CancelFunc
}

func (c *cancelling) ServerMaxFileSize() int64 { return 100 << 20 }

func (c *cancelling) Upload(r io.Reader, size int64, _, _ string) (*model.FileInfo, error) {
	buf := make([]byte, 32<<10)
	_, err := io.ReadFull(r, buf)
	c.cancel()
	for err == nil {
		_, err = r.Read(buf)
	}
	return nil, errors.New("the upload ended unfinished")
}

func TestACallCancelledWhileAFileStreamsEndsTheUploadUnfinishedAndPostsNothing(t *testing.T) {
	reg := NewRegistry(NewSlots(2), map[string]Source{KindWorkspace: bigSource(8 << 20)})
	ctx, cancel := context.WithCancel(context.Background())
	mm := &cancelling{cancel: cancel}
	plan, err := Prepare(ctx, mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{WorkspaceFile: "big.bin"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Execute(ctx, mm, reg, plan); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("execute: %v", err)
	}
	if mm.posts != 0 {
		t.Fatalf("%d posts", mm.posts)
	}
}
