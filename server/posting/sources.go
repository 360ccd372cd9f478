// Package posting is the write pipeline, independent of MCP: it stages the
// files of a post (reading each once to name its size, type and sha256),
// checks everything Mattermost would refuse before anyone is asked, and
// executes an accepted plan: re-read every file, refuse any that changed,
// upload, post.
package posting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// MaxWrittenBytes bounds one file the model writes itself: its text travels
// in the tool call and is kept in the pending record until the person
// answers.
const MaxWrittenBytes = 1 << 20

// Entry is one file of a post, as the model names it: exactly one of
// content (with name), file_id, workspace_file or handle.
type Entry struct {
	Name          string `json:"name,omitempty" jsonschema:"With content: its file name, e.g. notes.md."`
	Content       string `json:"content,omitempty" jsonschema:"Text you wrote (at most 1 MiB), posted as a file."`
	FileID        string `json:"file_id,omitempty" jsonschema:"An attachment you can read, posted as a copy."`
	WorkspaceFile string `json:"workspace_file,omitempty" jsonschema:"A file name in the person's workspace."`
	Handle        string `json:"handle,omitempty" jsonschema:"A handle from request_upload, once its bytes are uploaded."`
}

// Kinds of entries; each is served by one Source of the Registry.
const (
	KindWritten    = "written"
	KindAttachment = "attachment"
	KindWorkspace  = "workspace"
	KindHandle     = "handle"
)

// Kind says which source an entry names, refusing entries that name none
// or several.
func (e Entry) Kind() (string, error) {
	var kinds []string
	if e.Content != "" {
		kinds = append(kinds, KindWritten)
	}
	if e.FileID != "" {
		kinds = append(kinds, KindAttachment)
	}
	if e.WorkspaceFile != "" {
		kinds = append(kinds, KindWorkspace)
	}
	if e.Handle != "" {
		kinds = append(kinds, KindHandle)
	}
	if len(kinds) != 1 {
		return "", refusal.Newf("Each file needs exactly one of content (with name), file_id, workspace_file or handle; this one has %d (%s). Split it into separate files.", len(kinds), strings.Join(kinds, ", "))
	}
	if kinds[0] == KindWritten && strings.TrimSpace(e.Name) == "" {
		return "", refusal.New("A file with content needs a name, e.g. \"notes.md\".", "")
	}
	return kinds[0], nil
}

// Staged is one file as the person is shown it. It is plain data, so a
// pending post can be stored and executed on another node; the bytes are
// read again from the source (Registry.Check, Registry.Send) when the post
// is accepted.
type Staged struct {
	Kind string `json:"kind"`
	// Ref is what the source reads again: a file id, a workspace name or a
	// handle. Content holds the model's own text for KindWritten.
	Ref      string `json:"ref,omitempty"`
	Content  string `json:"content,omitempty"`
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	Detected string `json:"detected"`
	Mismatch string `json:"mismatch,omitempty"`
	// Origin says where the file comes from, for the person.
	Origin string `json:"origin"`
	// Preview is the first lines of a text file, and Thumbnail (of type
	// ThumbnailType) a small upright copy of an image: made when the file is
	// staged, so any node can show the question without reading the source
	// again (an upload handle can be read only for staging and posting).
	Preview       string `json:"preview,omitempty"`
	Thumbnail     []byte `json:"thumbnail,omitempty"`
	ThumbnailType string `json:"thumbnail_type,omitempty"`
}

// Stream is one file as a source reads it, valid only inside the function
// it is handed to.
type Stream struct {
	Name   string
	Origin string
	// Size is the byte count the source has on record (a workspace file's
	// record, an attachment's file info); the bytes are counted anyway.
	Size int64
	// SHA256 is the sha256 (hex) the source keeps on record for these
	// bytes, or "" when it keeps none. A source that keeps one checks its
	// bytes against it as they stream (the read that would end the stream
	// fails otherwise), so a record that matches what the person was shown
	// vouches for the bytes before they are read.
	SHA256 string
	// Body is the bytes.
	Body io.Reader
	// Whole is all of the bytes when the source can only read a file whole
	// (Body then reads from it), so describing it needs no second copy.
	Whole []byte
	// Ends, when the source keeps its bytes in pieces and a SHA256 on
	// record, reads the first head and last tail bytes without the rest:
	// staging a file too large to describe whole needs only its ends, and
	// posting reads it all again against the same SHA256.
	Ends func(head, tail int) ([]byte, []byte, error)
}

// Read is a source's read of one file as the caller its registry was built
// for: it hands use the file as a Stream. Anything the caller cannot read is
// a Refusal, mattermost.ErrNotFound or the workspace's not-found error.
type Read func(ctx context.Context, ref string, use func(Stream) error) error

// Source stages one kind of entry and reads its bytes again later. A
// registry's sources are built for one caller and read only as them.
type Source interface {
	Stage(ctx context.Context, e Entry) (Staged, error)
	// Open reads a staged file again, as it is now.
	Open(ctx context.Context, s Staged, use func(Stream) error) error
}

// Forwarder is a source whose files Mattermost already holds under ids
// whose bytes never change (attachments): it tells whether a file is still
// the one shown without reading it, and puts it in a post as a copy made
// by Mattermost, without its bytes passing through the plugin.
type Forwarder interface {
	// Unchanged refuses a file that is no longer the one the person was
	// shown (gone, no longer readable, another size).
	Unchanged(ctx context.Context, s Staged) error
	// Forward makes the post's copy of the file, for a post in channelID,
	// and returns its id; ok is false (and nothing is made) when
	// Mattermost's copy would not be what the person was shown, e.g. under
	// another name, and the file is then uploaded from its bytes instead.
	Forward(ctx context.Context, s Staged, channelID string) (fileID string, ok bool, err error)
}

// Registry maps each kind to its source. A kind without a source is refused
// with a message, so a slice can ship before every kind is built.
type Registry struct {
	sources map[string]Source
	// slots is shared by every post of this plugin process: a file is read
	// only while a slot is held, so all posts together read at most
	// len(slots) files at once, each through a bounded buffer (see
	// MaxWholeBytes), whatever the number of callers.
	slots chan struct{}
}

// NewRegistry builds a registry over one process-wide set of slots (make it
// once, at activation).
func NewRegistry(slots chan struct{}, sources map[string]Source) Registry {
	return Registry{sources: sources, slots: slots}
}

// NewSlots makes the process-wide slots of a registry.
func NewSlots(n int) chan struct{} { return make(chan struct{}, n) }

func (r Registry) source(kind string) (Source, error) {
	src, ok := r.sources[kind]
	if !ok {
		return nil, refusal.Newf("Files of kind %s cannot be posted by this server yet.", kind)
	}
	return src, nil
}

type slotWaitKey struct{}

// WaitForSlotsUntil bounds how long the calls under ctx wait for one of the
// process's slots: a call that must answer by then (one that waits for the
// person) is refused as busy rather than held past it.
func WaitForSlotsUntil(ctx context.Context, until time.Time) context.Context {
	return context.WithValue(ctx, slotWaitKey{}, until)
}

// ErrSlotsBusy refuses a file the process could not start reading in the
// time the call has: the files of other posts take every slot.
var ErrSlotsBusy = refusal.New("The server is busy reading the files of other posts; nothing was stored or sent.",
	"Call the tool again in a moment.")

// hold runs fn while holding one of the process's slots.
func (r Registry) hold(ctx context.Context, fn func() error) error {
	if err := r.take(ctx); err != nil {
		return err
	}
	defer func() { <-r.slots }()
	return fn()
}

// take waits for a slot, a free one first even when the wait is over.
func (r Registry) take(ctx context.Context) error {
	select {
	case r.slots <- struct{}{}:
		return nil
	default:
	}
	var busy <-chan time.Time
	if until, ok := ctx.Value(slotWaitKey{}).(time.Time); ok {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		busy = t.C
	}
	select {
	case r.slots <- struct{}{}:
		return nil
	case <-busy:
		return ErrSlotsBusy
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stage reads an entry through its source.
func (r Registry) Stage(ctx context.Context, e Entry) (Staged, error) {
	kind, err := e.Kind()
	if err != nil {
		return Staged{}, err
	}
	src, err := r.source(kind)
	if err != nil {
		return Staged{}, err
	}
	var s Staged
	err = r.hold(ctx, func() error {
		s, err = src.Stage(ctx, e)
		return err
	})
	if err != nil {
		return Staged{}, err
	}
	s.Kind = kind
	return s, nil
}

// Check refuses a staged file that is no longer the one shown, reading as
// little as its source allows: nothing for an attachment (its bytes never
// change under its id) or a file whose source keeps a sha256 on record;
// otherwise its bytes, streamed through a hash.
func (r Registry) Check(ctx context.Context, s Staged) error {
	src, err := r.source(s.Kind)
	if err != nil {
		return err
	}
	if fw, ok := src.(Forwarder); ok {
		return fw.Unchanged(ctx, s)
	}
	return r.hold(ctx, func() error {
		return src.Open(ctx, s, func(st Stream) error {
			if st.SHA256 != "" {
				return unchanged(s, st.SHA256)
			}
			h := sha256.New()
			if _, err := io.Copy(h, st.Body); err != nil {
				return err
			}
			return unchanged(s, hex.EncodeToString(h.Sum(nil)))
		})
	})
}

// Written is the model's own text.
type Written struct{}

// Stage keeps the text in the record.
func (Written) Stage(ctx context.Context, e Entry) (Staged, error) {
	if len(e.Content) > MaxWrittenBytes {
		return Staged{}, refusal.Newf("The content of %q is %d bytes; text you write is at most %d bytes (1 MiB). Write it to the workspace and pass workspace_file, or split it.", e.Name, len(e.Content), MaxWrittenBytes)
	}
	// The model names the file the person will read in the question: the
	// same allowlist as workspace names, so no control, bidi or invisible
	// character can make it read as something else.
	name := strings.TrimSpace(e.Name)
	if err := names.CheckFile(name); err != nil {
		return Staged{}, refusal.New(err.Error(), "")
	}
	return describe(ctx, Staged{Content: e.Content, Name: name, Origin: "written by the model"}, []byte(e.Content)), nil
}

// Open streams the kept text (at most MaxWrittenBytes, in the record).
func (Written) Open(_ context.Context, s Staged, use func(Stream) error) error {
	return use(Stream{Name: s.Name, Origin: s.Origin, Size: int64(len(s.Content)), Body: strings.NewReader(s.Content)})
}

// Reader is a source whose bytes live elsewhere (an attachment, a workspace
// file, an upload handle): it reads them once to stage and again to post,
// as a stream each time.
type Reader struct {
	// Ref picks the entry's reference for this source.
	Ref  func(Entry) string
	Read Read
}

// Stage reads the file and describes it, streaming (see describeStream).
func (r Reader) Stage(ctx context.Context, e Entry) (Staged, error) {
	ref := r.Ref(e)
	var s Staged
	err := r.Read(ctx, ref, func(st Stream) error {
		var err error
		s, err = describeStream(ctx, Staged{Ref: ref, Name: st.Name, Origin: st.Origin}, st)
		return err
	})
	if err != nil {
		return Staged{}, err
	}
	return s, nil
}

// Open reads a staged file again.
func (r Reader) Open(ctx context.Context, s Staged, use func(Stream) error) error {
	return r.Read(ctx, s.Ref, use)
}
