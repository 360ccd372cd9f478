package posting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// fakeMM records what the pipeline writes.
type fakeMM struct {
	uploads, posts, directs   int
	failUpload, noAttachments bool
	// failUploadAt fails the upload with this 1-based number; failPost
	// fails the post.
	failUploadAt int
	failPost     bool
	discarded    []string
	// sums are the sha256 of each uploaded file, by name.
	sums map[string]string
}

func (f *fakeMM) DiscardUploads(ids []string) error {
	f.discarded = append(f.discarded, ids...)
	return nil
}

func (f *fakeMM) UserID() string                     { return "alice" }
func (f *fakeMM) MayPost(string) (bool, bool, error) { return true, true, nil }
func (f *fakeMM) Post(string) (*model.Post, error)   { return nil, ErrNotFound }
func (f *fakeMM) ServerMaxFileSize() int64           { return 1 << 20 }
func (f *fakeMM) AttachmentsEnabled() bool           { return !f.noAttachments }
func (f *fakeMM) MemberCount(string) (int64, error)  { return 42, nil }

// Accounts of the fake: alice is the caller, bob is in channel "c", carol
// is in no channel.
func (f *fakeMM) UserIDByUsername(n string) (string, error) {
	switch n {
	case "alice":
		return "alice", nil
	case "bob", "carol":
		return "u-" + n, nil
	}
	return "", nil
}
func (f *fakeMM) IsChannelMember(ch, user string) (bool, error) {
	return ch == "c" && (user == "u-bob" || user == "alice"), nil
}
func (f *fakeMM) SearchUsers(string, int) ([]*model.User, error) {
	return []*model.User{{Username: "bob"}}, nil
}
func (f *fakeMM) DirectChannelWith(string) (*model.Channel, error) {
	f.directs++
	return &model.Channel{Id: "dm"}, nil
}
func (f *fakeMM) GroupChannelWith([]string) (*model.Channel, error) {
	return &model.Channel{Id: "gm"}, nil
}

// Upload reads what Mattermost would read through an upload session, in
// reads of the plugin RPC's size, keeping only their sha256.
func (f *fakeMM) Upload(r io.Reader, size int64, _, name string) (*model.FileInfo, error) {
	if f.failUpload || f.failUploadAt == f.uploads+1 {
		return nil, errors.New("disk full")
	}
	h := sha256.New()
	buf := make([]byte, 32<<10)
	n, err := io.CopyBuffer(h, io.LimitReader(r, size), buf)
	if err != nil || n != size {
		return nil, fmt.Errorf("the upload ended after %d of %d bytes: %v", n, size, err)
	}
	f.uploads++
	if f.sums == nil {
		f.sums = map[string]string{}
	}
	f.sums[name] = hex.EncodeToString(h.Sum(nil))
	return &model.FileInfo{Id: "f-" + name}, nil
}
func (f *fakeMM) CreatePost(p *model.Post) (*model.Post, error) {
	if f.failPost {
		return nil, errors.New("invalid root id")
	}
	f.posts++
	p.Id = "p1"
	return p, nil
}

// mutable is a source whose bytes can change between staging and sending.
type mutable struct{ data *string }

func (m mutable) Stage(ctx context.Context, e Entry) (Staged, error) {
	return describe(ctx, Staged{Ref: e.WorkspaceFile, Name: e.WorkspaceFile, Origin: "your workspace file"}, []byte(*m.data)), nil
}
func (m mutable) Open(_ context.Context, s Staged, use func(Stream) error) error {
	return use(Stream{Name: s.Name, Size: int64(len(*m.data)), Body: strings.NewReader(*m.data)})
}

func registry(data *string) Registry {
	return NewRegistry(NewSlots(2), map[string]Source{KindWritten: Written{}, KindWorkspace: mutable{data}})
}

func TestAFileChangedSinceTheQuestionIsRefusedAndNothingIsUploaded(t *testing.T) {
	data := "version 1"
	mm := &fakeMM{}
	reg := registry(&data)
	plan, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{WorkspaceFile: "r.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	data = "version 2"
	_, err = Execute(context.Background(), mm, reg, plan)
	if r, ok := refusal.As(err); !ok || !strings.Contains(r.Error(), "changed") {
		t.Fatalf("a changed file: %v", err)
	}
	if mm.uploads != 0 || mm.posts != 0 {
		t.Fatalf("%d uploads, %d posts after a refusal", mm.uploads, mm.posts)
	}
}

func TestAFailedUploadOrPostLeavesNoPostAndDeletesWhatWasUploaded(t *testing.T) {
	files := []Entry{{Name: "a.txt", Content: "a"}, {Name: "b.txt", Content: "b"}, {Name: "c.txt", Content: "c"}}
	cases := map[string]struct {
		mm            *fakeMM
		wantDiscarded []string
		wantSaid      string
	}{
		"the first upload fails": {&fakeMM{failUploadAt: 1}, nil, "uploading a.txt failed"},
		"the third upload fails": {&fakeMM{failUploadAt: 3}, []string{"f-a.txt", "f-b.txt"}, "the 2 file(s) already uploaded were deleted"},
		"the post fails":         {&fakeMM{failPost: true}, []string{"f-a.txt", "f-b.txt", "f-c.txt"}, "the 3 file(s) already uploaded were deleted"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			reg := registry(new(string))
			plan, err := Prepare(context.Background(), c.mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: files})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Execute(context.Background(), c.mm, reg, plan)
			if err == nil || c.mm.posts != 0 || !strings.Contains(err.Error(), c.wantSaid) {
				t.Fatalf("err %v, %d posts", err, c.mm.posts)
			}
			if !slices.Equal(c.mm.discarded, c.wantDiscarded) {
				t.Fatalf("deleted %v, want %v", c.mm.discarded, c.wantDiscarded)
			}
		})
	}
}

func TestTheDirectMessageIsOpenedOnlyWhenThePostIsExecuted(t *testing.T) {
	mm := &fakeMM{}
	reg := registry(new(string))
	plan, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{UserIDs: []string{"bob"}, Label: "dm"}, Message: "hi"})
	if err != nil || mm.directs != 0 {
		t.Fatalf("prepare: %v, %d direct channels opened", err, mm.directs)
	}
	res, err := Execute(context.Background(), mm, reg, plan)
	if err != nil || mm.directs != 1 || res.Post.ChannelId != "dm" || res.Post.GetProp(PropFromMCP) != true {
		t.Fatalf("execute: %v %+v", err, res.Post)
	}
}

func TestElevenFilesAndAMissingKindAreRefusedWithWhatToChange(t *testing.T) {
	mm := &fakeMM{}
	reg := registry(new(string))
	eleven := make([]Entry, 11)
	for i := range eleven {
		eleven[i] = Entry{Name: "a.txt", Content: "x"}
	}
	if _, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: eleven}); err == nil || !strings.Contains(err.Error(), "at most 10") {
		t.Fatalf("eleven files: %v", err)
	}
	if _, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{Name: "a", Content: "x", FileID: "y"}}}); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Fatalf("two kinds in one file: %v", err)
	}
	if _, err := Prepare(context.Background(), mm, reg, Request{Dest: Destination{ChannelID: "c"}, Files: []Entry{{Handle: "h"}}}); err == nil || !strings.Contains(err.Error(), "cannot be posted") {
		t.Fatalf("a kind without a source: %v", err)
	}
}

func TestMentionsSayWhomTheyReachAndSuggestTheClosestName(t *testing.T) {
	plan, err := Prepare(context.Background(), &fakeMM{}, registry(new(string)), Request{Dest: Destination{ChannelID: "c", Label: "~town (id c)", Place: "Town Square, Acme"}, Message: "@channel ping @bobb and @bob"})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan.Notes, " | ")
	for _, want := range []string{"@bob is notified by the mention.", "@channel notifies every member of Town Square, Acme: 42 people.", "@bobb matches nobody", "Closest: @bob"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the notes lack %q: %s", want, joined)
		}
	}
	if strings.Contains(joined, "@bob matches") || strings.Contains(joined, "(id c)") || strings.Contains(joined, "Nobody is notified") {
		t.Fatalf("notes: %s", joined)
	}
}

func notesOf(t *testing.T, dest Destination, message string) string {
	t.Helper()
	plan, err := Prepare(context.Background(), &fakeMM{}, registry(new(string)), Request{Dest: dest, Message: message})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan.Notes, " | ")
}

func TestAMentionOfSomeoneOutsideTheChannelSaysMattermostDoesNotNotifyThem(t *testing.T) {
	got := notesOf(t, Destination{ChannelID: "c", Place: "Harbour ops, CEO Team"}, "@carol and @bob, see this")
	want := "@bob is notified by the mention. | @carol is not in Harbour ops, CEO Team, so Mattermost does not notify them."
	if got != want {
		t.Fatalf("notes %q, want %q", got, want)
	}
}

func TestAMessageThatNotifiesNobodyByMentionSaysSoPlainly(t *testing.T) {
	for _, message := range []string{"no mentions here", "only me: @alice", "someone outside: @carol"} {
		got := notesOf(t, Destination{ChannelID: "c", Place: "Harbour ops, CEO Team"}, message)
		if !strings.Contains(got, "Nobody is notified by a mention. Members of Harbour ops, CEO Team who chose to be notified of every message still are.") {
			t.Errorf("%q: notes %q", message, got)
		}
	}
	if got := notesOf(t, Destination{ChannelID: "c", Place: "Harbour ops"}, "only me: @alice"); !strings.Contains(got, "@alice is you: your own mention notifies nobody.") {
		t.Errorf("a mention of oneself: %q", got)
	}
}

func TestADirectOrGroupMessageNamesItsRecipientsAsNotified(t *testing.T) {
	dm := notesOf(t, Destination{UserIDs: []string{"u-bob"}, Recipients: []string{"@bob"}, Place: "your direct message with @bob"}, "hi @bob, ask @carol")
	if dm != "@bob is notified: it is a direct message to them. | @carol is not in your direct message with @bob, so Mattermost does not notify them." {
		t.Fatalf("direct message notes %q", dm)
	}
	gm := notesOf(t, Destination{UserIDs: []string{"u-bob", "u-carol"}, Recipients: []string{"@bob", "@carol"}, Place: "your group message with @bob, @carol"}, "hi all")
	if gm != "@bob and @carol are notified: it is a group message with them." {
		t.Fatalf("group message notes %q", gm)
	}
}

func TestFilesAreRefusedBeforeAnyoneIsAskedWhenMattermostHasAttachmentsOff(t *testing.T) {
	data := "x"
	mm := &fakeMM{noAttachments: true}
	_, err := Prepare(context.Background(), mm, registry(&data), Request{Dest: Destination{ChannelID: "c"}, Message: "hi", Files: []Entry{{Name: "a.txt", Content: "a"}}})
	if r, ok := refusal.As(err); !ok || !strings.Contains(r.Error(), "turned off") {
		t.Fatalf("files with attachments off: %v", err)
	}
	if _, err := Prepare(context.Background(), mm, registry(&data), Request{Dest: Destination{ChannelID: "c"}, Message: "hi"}); err != nil {
		t.Fatalf("a message without files is refused too: %v", err)
	}
}
