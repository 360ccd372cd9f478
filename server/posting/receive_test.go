package posting

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// pending is the fake's record of uploads no post holds yet.
type pending map[string]*model.FileInfo

func (p pending) find(id, channelID string) (*model.FileInfo, error) {
	info, ok := p[id]
	if !ok || (channelID != "" && info.ChannelId != channelID) {
		return nil, ErrNotFound
	}
	return info, nil
}

func receivingRegistry(p pending) Registry {
	return NewRegistry(NewSlots(2), map[string]Source{KindWritten: Written{}, KindUploaded: Uploaded{Find: p.find}})
}

// always grants the memory to hold a file whole; never grants none.
func always(int64) (func(), bool) { return func() {}, true }
func never(int64) (func(), bool)  { return nil, false }

// failingAfter gives its bytes, then fails.
type failingAfter struct {
	r   io.Reader
	err error
}

func (f *failingAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestAReceivedFileIsDescribedFromTheBytesThatPassedAndKeptAsTheUpload(t *testing.T) {
	for _, size := range []int{5 << 10, MaxWholeBytes + 3<<20} {
		data := bytes.Repeat([]byte("%PDF-1.7 plan "), size/14+1)[:size]
		mm := &fakeMM{}
		s, err := Receive(context.Background(), mm, bytes.NewReader(data), int64(size), "c", "plan.pdf", "the chat", always)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if s.Kind != KindUploaded || s.Ref != "f-plan.pdf" || s.Size != int64(size) || s.SHA256 != hex.EncodeToString(sum[:]) || s.Origin != "the chat" {
			t.Fatalf("%d bytes staged as %+v", size, s)
		}
		if !strings.Contains(s.Detected, "PDF") {
			t.Fatalf("%d bytes detected as %q", size, s.Detected)
		}
		if mm.sums["plan.pdf"] != s.SHA256 || len(mm.discarded) != 0 {
			t.Fatalf("uploaded %v, discarded %v", mm.sums, mm.discarded)
		}
	}
}

func TestABodyShorterOrLongerThanDeclaredOrFailingKeepsNothing(t *testing.T) {
	data := []byte(strings.Repeat("report line\n", 1000))
	broken := errors.New("connection reset")
	cases := []struct {
		name          string
		body          io.Reader
		declared      int64
		want          error
		wantDiscarded []string
	}{
		// The upload never completes, so there is nothing to discard.
		{"shorter", bytes.NewReader(data[:len(data)/2]), int64(len(data)), ErrLengthMismatch, nil},
		// The upload completed with the declared bytes; the rest shows it
		// was not the file, and the upload is discarded.
		{"longer", bytes.NewReader(append(data, "more"...)), int64(len(data)), ErrLengthMismatch, []string{"f-report.txt"}},
		{"failing", &failingAfter{r: bytes.NewReader(data[:100]), err: broken}, int64(len(data)), broken, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mm := &fakeMM{}
			_, err := Receive(context.Background(), mm, c.body, c.declared, "c", "report.txt", "the chat", always)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if !slices.Equal(mm.discarded, c.wantDiscarded) {
				t.Fatalf("discarded %v, want %v", mm.discarded, c.wantDiscarded)
			}
		})
	}
}

func TestAReceivedFileIsAttachedAsItIsAndDiscardedWhenThePostFails(t *testing.T) {
	received := Staged{Kind: KindUploaded, Ref: "up1", Name: "plan.pdf", Size: 10, SHA256: "abc"}
	up := pending{"up1": {Id: "up1", ChannelId: "c", Size: 10}}
	req := Request{Dest: Destination{ChannelID: "c"}, Message: "the plan", Files: []Entry{{Name: "plan.pdf", Content: "notes"}}, Uploaded: []Staged{received}}

	mm := &fakeMM{}
	plan, err := Prepare(context.Background(), mm, receivingRegistry(up), req)
	if err != nil {
		t.Fatal(err)
	}
	// The received file keeps its name (its upload's); the entry is renamed.
	if len(plan.Files) != 2 || plan.Files[0].Name != "1-plan.pdf" || plan.Files[1].Name != "plan.pdf" || !slices.Equal(plan.Uploads(), []string{"up1"}) {
		t.Fatalf("plan files %+v", plan.Files)
	}
	done, err := Execute(context.Background(), mm, receivingRegistry(up), plan)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done.FileIDs, []string{"f-1-plan.pdf", "up1"}) || mm.uploads != 1 || len(mm.discarded) != 0 {
		t.Fatalf("posted %v after %d uploads, discarded %v", done.FileIDs, mm.uploads, mm.discarded)
	}

	mm = &fakeMM{failPost: true}
	if _, err := Execute(context.Background(), mm, receivingRegistry(up), plan); err == nil {
		t.Fatal("a refused post succeeded")
	}
	if !slices.Equal(mm.discarded, []string{"f-1-plan.pdf", "up1"}) {
		t.Fatalf("discarded %v", mm.discarded)
	}

	// Gone before the post (another tab posted or discarded it): refused,
	// and what remains of it is discarded with the rest.
	mm = &fakeMM{}
	_, err = Execute(context.Background(), mm, receivingRegistry(pending{}), plan)
	if _, ok := refusal.As(err); !ok || !strings.Contains(err.Error(), "no longer waiting") || mm.uploads != 0 || mm.posts != 0 {
		t.Fatalf("got %v after %d uploads, %d posts", err, mm.uploads, mm.posts)
	}
	if !slices.Equal(mm.discarded, []string{"up1"}) {
		t.Fatalf("discarded %v", mm.discarded)
	}
}

func TestAReceivedFileIsNeverNamedByAnEntryNorReadAgain(t *testing.T) {
	src := Uploaded{Find: pending{}.find}
	if _, err := src.Stage(context.Background(), Entry{WorkspaceFile: "x"}); err == nil {
		t.Fatal("an entry staged a received file")
	}
	if err := src.Open(context.Background(), Staged{Kind: KindUploaded, Ref: "up1"}, func(Stream) error { return nil }); err == nil {
		t.Fatal("a received file was read again")
	}
}

func TestAReceivedFileIsHeldWholeOnlyWithinTheMemoryGrantedAndIsDescribedByItsEndsOtherwise(t *testing.T) {
	data := []byte(strings.Repeat("quarterly report, line after line\n", 3000))
	var granted, released int64
	grant := func(n int64) (func(), bool) { granted += n; return func() { released += n }, true }
	whole, err := Receive(context.Background(), &fakeMM{}, bytes.NewReader(data), int64(len(data)), "c", "report.txt", "the chat", grant)
	if err != nil || granted != int64(len(data)) || released != granted {
		t.Fatalf("granted %d, released %d (%v)", granted, released, err)
	}
	ends, err := Receive(context.Background(), &fakeMM{}, bytes.NewReader(data), int64(len(data)), "c", "report.txt", "the chat", never)
	if err != nil {
		t.Fatal(err)
	}
	// Told apart by nothing the person is shown: the same size, sum, type
	// and preview either way.
	if whole.SHA256 != ends.SHA256 || whole.Size != ends.Size || whole.Detected != ends.Detected || whole.Preview != ends.Preview || whole.Preview == "" {
		t.Fatalf("held whole %+v, by its ends %+v", whole, ends)
	}
}
