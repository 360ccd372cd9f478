package posting

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
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
}

func (f *fakeMM) DiscardUploads(ids []string) error {
	f.discarded = append(f.discarded, ids...)
	return nil
}

func (f *fakeMM) UserID() string                        { return "alice" }
func (f *fakeMM) MayPost(string) (bool, bool, error)    { return true, true, nil }
func (f *fakeMM) Post(string) (*model.Post, error)      { return nil, ErrNotFound }
func (f *fakeMM) ServerMaxFileSize() int64              { return 1 << 20 }
func (f *fakeMM) AttachmentsEnabled() bool              { return !f.noAttachments }
func (f *fakeMM) MemberCount(string) (int64, error)     { return 42, nil }
func (f *fakeMM) UsernameExists(n string) (bool, error) { return n == "bob", nil }
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
func (f *fakeMM) UploadFile(_ []byte, _, name string) (*model.FileInfo, error) {
	if f.failUpload || f.failUploadAt == f.uploads+1 {
		return nil, errors.New("disk full")
	}
	f.uploads++
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

func (m mutable) Stage(_ context.Context, e Entry) (Staged, error) {
	return describe(context.Background(), Staged{Ref: e.WorkspaceFile, Name: e.WorkspaceFile, Origin: "your workspace file"}, []byte(*m.data)), nil
}
func (m mutable) Bytes(context.Context, Staged) ([]byte, error) { return []byte(*m.data), nil }

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
	var r Refusal
	if !errors.As(err, &r) || !strings.Contains(string(r), "changed") {
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
		"the third upload fails": {&fakeMM{failUploadAt: 3}, []string{"f-a.txt", "f-b.txt"}, "the 2 file(s) uploaded before it were deleted"},
		"the post fails":         {&fakeMM{failPost: true}, []string{"f-a.txt", "f-b.txt", "f-c.txt"}, "the 3 file(s) uploaded before it were deleted"},
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
	plan, err := Prepare(context.Background(), &fakeMM{}, registry(new(string)), Request{Dest: Destination{ChannelID: "c", Label: "~town"}, Message: "@channel ping @bobb and @bob"})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan.Notes, " | ")
	if !strings.Contains(joined, "42 people") || !strings.Contains(joined, "@bobb matches nobody") || !strings.Contains(joined, "Closest: @bob") || strings.Contains(joined, "@bob matches") {
		t.Fatalf("notes: %s", joined)
	}
}

func TestFilesAreRefusedBeforeAnyoneIsAskedWhenMattermostHasAttachmentsOff(t *testing.T) {
	data := "x"
	mm := &fakeMM{noAttachments: true}
	_, err := Prepare(context.Background(), mm, registry(&data), Request{Dest: Destination{ChannelID: "c"}, Message: "hi", Files: []Entry{{Name: "a.txt", Content: "a"}}})
	var r Refusal
	if !errors.As(err, &r) || !strings.Contains(string(r), "turned off") {
		t.Fatalf("files with attachments off: %v", err)
	}
	if _, err := Prepare(context.Background(), mm, registry(&data), Request{Dest: Destination{ChannelID: "c"}, Message: "hi"}); err != nil {
		t.Fatalf("a message without files is refused too: %v", err)
	}
}
