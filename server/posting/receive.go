package posting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// A file that arrives for a post from outside (a host hands it over by
// link) goes straight into Mattermost as the post's own upload, in the
// post's channel, the way Mattermost's own apps upload a file the moment
// the person attaches it, before they press send: nobody else sees an
// upload no post holds. It is described as it passes (size, sha256, type,
// preview or thumbnail), and the post attaches that same record once the
// person says yes. Every other end of the write (declined, withdrawn,
// expired, failed) discards it (Plan.Uploads), as Mattermost discards a
// deleted post's files.

// KindUploaded is a file already in Mattermost as the caller's upload for
// this post (Ref is its file id). No entry names it: Receive makes it.
const KindUploaded = "uploaded"

// Receiver is what Receive needs of Mattermost: the upload, and its undoing
// when the bytes turn out not to be the file.
type Receiver interface {
	Uploader
	DiscardUploads(fileIDs []string) error
}

// ErrLengthMismatch is a body that ended before the length it declared, or
// went on past it: not the whole file. Nothing of it is kept.
var ErrLengthMismatch = errors.New("the body's length is not the one declared")

// Receive streams exactly size bytes of body into an upload of up's in
// channelID named name, describing them as they pass, and answers the file
// as staged, from origin. It takes none of the process's slots: a body
// comes at its host's pace (minutes, for a slow one), and holding a slot
// that long would stop every other post's files; what bounds how many run
// at once is the caller's. A file of at most MaxWholeBytes is held whole
// while it passes (told from all its bytes, an image given a thumbnail)
// when keepWhole grants that much memory; otherwise only its head and
// tail are kept. A body that fails, ends early or holds more than size
// bytes keeps nothing: the upload is abandoned or discarded and the error
// says why (the body's own error first; ErrLengthMismatch when it only
// ended early or late).
func Receive(ctx context.Context, up Receiver, body io.Reader, size int64, channelID, name, origin string, keepWhole func(bytes int64) (release func(), ok bool)) (Staged, error) {
	if size <= 0 {
		return Staged{}, fmt.Errorf("receive %s: a file of %d bytes is not received this way", name, size)
	}
	c := &collector{sum: sha256.New()}
	if size <= MaxWholeBytes && keepWhole != nil {
		if release, ok := keepWhole(size); ok {
			defer release()
			// One allocation of the declared size (see describeStream).
			c.whole = make([]byte, 0, size)
			c.keepWhole = true
		}
	}
	in := &sending{ctx: ctx, r: body, seen: c, size: size}
	info, upErr := up.Upload(in, size, channelID, name)
	fileID := ""
	if info != nil {
		fileID = info.Id
	}
	if err := finishReceiving(in, upErr); err != nil {
		if fileID != "" {
			if derr := up.DiscardUploads([]string{fileID}); derr != nil {
				return Staged{}, fmt.Errorf("%w (the upload could not be deleted: %v)", err, derr)
			}
		}
		return Staged{}, err
	}
	s := Staged{Name: name, Origin: origin}
	if c.keepWhole {
		s = describe(ctx, s, c.whole)
	} else {
		s.Size, s.SHA256 = c.n, hex.EncodeToString(c.sum.Sum(nil))
		s = described(s, c.head, c.tail.bytes(), c.n)
	}
	s.Kind, s.Ref = KindUploaded, fileID
	return s, nil
}

// finishReceiving judges an upload of a received body once it returned:
// the body's failure first, then a body that ended early, then
// Mattermost's failure; then a body that holds more than size bytes.
func finishReceiving(b *sending, upErr error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	switch {
	case b.err != nil:
		return b.err
	case b.short, upErr == nil && b.n < b.size:
		return ErrLengthMismatch
	case upErr != nil:
		return uploadFailure{fmt.Errorf("uploading the file failed, so nothing was kept: %w", upErr)}
	}
	var one [1]byte
	n, err := b.r.Read(one[:])
	for n == 0 && err == nil {
		n, err = b.r.Read(one[:])
	}
	switch {
	case n > 0:
		return ErrLengthMismatch
	case err != io.EOF:
		return err
	}
	return nil
}

// Uploads are the ids of the plan's files already in Mattermost as the
// caller's uploads (KindUploaded): discarded on every end of the write but
// the post.
func (p Plan) Uploads() []string {
	var ids []string
	for _, f := range p.Files {
		if f.Kind == KindUploaded && f.Ref != "" {
			ids = append(ids, f.Ref)
		}
	}
	return ids
}

// Uploaded is the source of received files: they are never read again,
// only checked to be still the caller's pending upload and attached as
// they are.
type Uploaded struct {
	// Find is the caller's upload of this id that no post holds yet, in
	// channelID when it is set (mattermost.Caller.PendingUpload).
	Find func(fileID, channelID string) (*model.FileInfo, error)
}

// errNotAnEntry refuses a kind that entries never name.
var errNotAnEntry = refusal.New("That file cannot be named in files[].", "")

// Stage refuses: received files are staged by Receive.
func (Uploaded) Stage(context.Context, Entry) (Staged, error) { return Staged{}, errNotAnEntry }

// Open refuses: a received file is attached, never read again (the plugin
// API reads a file only whole).
func (Uploaded) Open(context.Context, Staged, func(Stream) error) error { return errNotAnEntry }

// Unchanged checks that the upload is still pending, the caller's, of the
// size shown (its bytes never change under its id).
func (u Uploaded) Unchanged(_ context.Context, s Staged) error {
	_, err := u.find(s, "")
	return err
}

// Forward answers the upload itself: the post attaches it.
func (u Uploaded) Forward(_ context.Context, s Staged, channelID string) (string, bool, error) {
	info, err := u.find(s, channelID)
	if err != nil {
		return "", false, err
	}
	return info.Id, true, nil
}

func (u Uploaded) find(s Staged, channelID string) (*model.FileInfo, error) {
	info, err := u.Find(s.Ref, channelID)
	if err != nil || info.Size != s.Size {
		return nil, refusal.Newf("%s, received for this post, is no longer waiting for it; nothing was sent. Ask again with the file.", s.Name)
	}
	return info, nil
}
