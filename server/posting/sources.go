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
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// MaxWrittenBytes bounds one file the model writes itself: its text travels
// in the tool call and is kept in the pending record until the person
// answers.
const MaxWrittenBytes = 1 << 20

// Entry is one file of a post, as the model names it: exactly one of
// content (with name), file_id, workspace_file or handle.
type Entry struct {
	Name          string `json:"name,omitempty" jsonschema:"With content: the file name to give the text, e.g. notes.md."`
	Content       string `json:"content,omitempty" jsonschema:"Text you wrote, posted as a file named name (at most 1 MiB)."`
	FileID        string `json:"file_id,omitempty" jsonschema:"An existing attachment you can read, forwarded as a copy (the original stays where it is)."`
	WorkspaceFile string `json:"workspace_file,omitempty" jsonschema:"The name of a file in the person's workspace."`
	Handle        string `json:"handle,omitempty" jsonschema:"An upload handle from request_upload, once its bytes were uploaded."`
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
		return "", Refusal(fmt.Sprintf("Each file needs exactly one of content (with name), file_id, workspace_file or handle; this one has %d (%s). Split it into separate files.", len(kinds), strings.Join(kinds, ", ")))
	}
	if kinds[0] == KindWritten && strings.TrimSpace(e.Name) == "" {
		return "", Refusal("A file with content needs a name, e.g. \"notes.md\".")
	}
	return kinds[0], nil
}

// Staged is one file as the person is shown it. It is plain data, so a
// pending post can be stored and executed on another node; the bytes are
// read again from the source (Registry.Bytes) when the post is accepted.
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

// Read is a source's read of one file as the caller its registry was built
// for: its name, bytes, and origin. Anything the caller cannot read is
// mattermost.ErrNotFound or the workspace's not-found error.
type Read func(ctx context.Context, ref string) (name string, data []byte, origin string, err error)

// Source stages one kind of entry and reads its bytes again later. A
// registry's sources are built for one caller and read only as them.
type Source interface {
	Stage(ctx context.Context, e Entry) (Staged, error)
	Bytes(ctx context.Context, s Staged) ([]byte, error)
}

// Registry maps each kind to its source. A kind without a source is refused
// with a message, so a slice can ship before every kind is built.
type Registry struct {
	sources map[string]Source
	// slots is shared by every post of this plugin process: a file's bytes
	// are held only while a slot is, so all posts together hold at most
	// len(slots) files in memory, whatever the number of callers.
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
		return nil, Refusal(fmt.Sprintf("Files of kind %s cannot be posted by this server yet.", kind))
	}
	return src, nil
}

// hold runs fn while holding one of the process's slots.
func (r Registry) hold(ctx context.Context, fn func() error) error {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
		return fn()
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

// With reads a staged file again and hands its bytes to use, holding a slot
// until use returns: the bytes must not outlive it.
func (r Registry) With(ctx context.Context, s Staged, use func([]byte) error) error {
	src, err := r.source(s.Kind)
	if err != nil {
		return err
	}
	return r.hold(ctx, func() error {
		data, err := src.Bytes(ctx, s)
		if err != nil {
			return err
		}
		return use(data)
	})
}

// describe fills size, sha256 and type from the bytes, and the preview or
// thumbnail the person is shown.
func describe(ctx context.Context, s Staged, data []byte) Staged {
	sum := sha256.Sum256(data)
	s.Size = int64(len(data))
	s.SHA256 = hex.EncodeToString(sum[:])
	_, s.Detected, s.Mismatch = fileview.Sniff(data, s.Name)
	addPreview(ctx, &s, data)
	return s
}

// Written is the model's own text.
type Written struct{}

// Stage keeps the text in the record.
func (Written) Stage(ctx context.Context, e Entry) (Staged, error) {
	if len(e.Content) > MaxWrittenBytes {
		return Staged{}, Refusal(fmt.Sprintf("The content of %q is %d bytes; text you write is at most %d bytes (1 MiB). Write it to the workspace and pass workspace_file, or split it.", e.Name, len(e.Content), MaxWrittenBytes))
	}
	// The model names the file the person will read in the question: the
	// same allowlist as workspace names, so no control, bidi or invisible
	// character can make it read as something else.
	name := strings.TrimSpace(e.Name)
	if err := names.CheckFile(name); err != nil {
		return Staged{}, Refusal(err.Error())
	}
	return describe(ctx, Staged{Content: e.Content, Name: name, Origin: "written by the model"}, []byte(e.Content)), nil
}

// Bytes is the kept text.
func (Written) Bytes(_ context.Context, s Staged) ([]byte, error) {
	return []byte(s.Content), nil
}

// Reader is a source whose bytes live elsewhere (an attachment, a workspace
// file, an upload handle): it reads them once to stage and again to post.
type Reader struct {
	// Ref picks the entry's reference for this source.
	Ref  func(Entry) string
	Read Read
}

// Stage reads the file and describes it.
func (r Reader) Stage(ctx context.Context, e Entry) (Staged, error) {
	ref := r.Ref(e)
	name, data, origin, err := r.Read(ctx, ref)
	if err != nil {
		return Staged{}, err
	}
	return describe(ctx, Staged{Ref: ref, Name: name, Origin: origin}, data), nil
}

// Bytes reads the file again.
func (r Reader) Bytes(ctx context.Context, s Staged) ([]byte, error) {
	_, data, _, err := r.Read(ctx, s.Ref)
	return data, err
}
