package posting

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Uploader stores a file of size bytes read from r as an attachment of a
// channel, to be attached by the post. It reads r as Mattermost asks for
// the bytes, so nothing holds the whole file (*mattermost.Caller uses an
// upload session).
type Uploader interface {
	Upload(r io.Reader, size int64, channelID, name string) (*model.FileInfo, error)
}

// Send puts a staged file in Mattermost for a post in channelID and returns
// the id of its file record. An attachment is forwarded as a copy
// Mattermost makes itself. Any other file streams from its source to
// Mattermost through a hash, one read at a time, holding a slot: what was
// sent must hash to what the person was shown. When that is known only
// after the upload, the id comes back with the refusal, so the caller
// deletes the file with the rest.
func (r Registry) Send(ctx context.Context, up Uploader, s Staged, channelID string) (fileID string, err error) {
	src, err := r.source(s.Kind)
	if err != nil {
		return "", err
	}
	if fw, ok := src.(Forwarder); ok {
		id, forwarded, err := fw.Forward(ctx, s, channelID)
		if err != nil || forwarded {
			return id, err
		}
	}
	err = r.hold(ctx, func() error {
		return src.Open(ctx, s, func(st Stream) error {
			if st.SHA256 != "" {
				// The source's record already says it changed: nothing is sent.
				if err := unchanged(s, st.SHA256); err != nil {
					return err
				}
			}
			sum := sha256.New()
			body := &sending{ctx: ctx, r: st.Body, sum: sum, seen: sum, size: s.Size}
			info, upErr := up.Upload(body, s.Size, channelID, s.Name)
			if info != nil {
				fileID = info.Id
			}
			return body.finish(s, upErr)
		})
	})
	return fileID, err
}

// sending is a file's bytes on their way to Mattermost: it hands over at
// most size bytes, showing each to seen (a hash, or what describes a file
// received), and stops being read once the upload returns (the plugin RPC
// reads on its own goroutine).
type sending struct {
	mu     sync.Mutex
	ctx    context.Context
	r      io.Reader
	sum    hash.Hash // what finish compares; nil for a file received
	seen   io.Writer
	size   int64
	n      int64
	short  bool  // the source ended before size bytes
	err    error // the source failed
	closed bool
}

var errSendingClosed = errors.New("read after the upload returned")

func (b *sending) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errSendingClosed
	}
	if b.n >= b.size {
		return 0, io.EOF
	}
	if err := b.ctx.Err(); err != nil {
		// The call was cancelled: the upload ends unfinished.
		b.err = err
		return 0, err
	}
	if left := b.size - b.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	_, _ = b.seen.Write(p[:n])
	b.n += int64(n)
	switch {
	case err == io.EOF && b.n < b.size:
		b.short = true
		return n, io.ErrUnexpectedEOF
	case err != nil && err != io.EOF:
		b.err = err
	}
	return n, err
}

// finish judges an upload once it returned: the source's failure first,
// then a file that ended early, then Mattermost's failure; then the rest of
// the source is read (it must be empty, and a source that checks its bytes
// against a record does so at its end) and the sha256 of everything
// compared with what the person was shown.
func (b *sending) finish(s Staged, upErr error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	switch {
	case b.err != nil:
		return b.err
	case b.short:
		return unchanged(s, hex.EncodeToString(b.sum.Sum(nil)))
	case upErr != nil:
		return uploadFailure{fmt.Errorf("uploading %s failed, so nothing was posted: %w", s.Name, upErr)}
	}
	if _, err := io.Copy(b.sum, b.r); err != nil {
		return err
	}
	return unchanged(s, hex.EncodeToString(b.sum.Sum(nil)))
}

// unchanged refuses bytes whose sha256 is not the one the person was shown.
func unchanged(f Staged, now string) error {
	if now != f.SHA256 {
		return refusal.Newf("%s changed since the person was asked (sha256 %s then, %s now); nothing was sent. Ask again with the file as it is now.", f.Name, short(f.SHA256), short(now))
	}
	return nil
}
