package approval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// sources are the kinds of files a post takes, each read as c and only as
// c: the registry is built for one caller. Workspace files and upload
// handles stream one chunk at a time, checked against the sha256 the
// workspace recorded when they were written.
func (a *Approvals) sources(c *mattermost.Caller) posting.Registry {
	return posting.NewRegistry(a.opts.Slots, map[string]posting.Source{
		posting.KindWritten:    posting.Written{},
		posting.KindAttachment: attachments{c: c},
		posting.KindWorkspace: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.WorkspaceFile) },
			Read: func(_ context.Context, ref string, use func(posting.Stream) error) error {
				return readWorkspace(a.opts.Workspace, c, ref, use)
			},
		},
		posting.KindUploaded: posting.Uploaded{Find: c.PendingUpload},
		posting.KindHandle: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.Handle) },
			Read: func(ctx context.Context, ref string, use func(posting.Stream) error) error {
				return redeem(ctx, a.opts.Workspace, c, ref, use)
			},
		},
	})
}

// discardUploads discards the files received for a write that ends
// without its post; a failure is logged, since the write's end stands.
func (a *Approvals) discardUploads(userID string, ids []string) {
	if len(ids) == 0 || a.opts.MM == nil {
		return
	}
	if err := a.opts.MM.As(userID).DiscardUploads(ids); err != nil {
		a.opts.MM.Log().Warn("Files received for a write that was not carried out could not be discarded", "user_id", userID, "file_ids", ids, "err", err.Error())
	}
}

// readWorkspace streams one of c's workspace files.
func readWorkspace(ws *workspace.Store, c *mattermost.Caller, ref string, use func(posting.Stream) error) error {
	f, rc, err := ws.OpenVerified(c.UserID(), ref, c.ServerMaxFileSize())
	if err != nil {
		return sourceRefusal(err, ref)
	}
	defer rc.Close()
	return use(posting.Stream{Name: f.Name, Origin: "your workspace file " + present.Clean(f.Name),
		Size: f.Size, SHA256: f.SHA256, Body: rc, Ends: func(head, tail int) ([]byte, []byte, error) { return ws.Ends(f, head, tail) }})
}

// redeem streams the file an upload handle of c's stands for.
func redeem(ctx context.Context, ws *workspace.Store, c *mattermost.Caller, ref string, use func(posting.Stream) error) error {
	var used bool
	err := ws.RedeemStream(ctx, c.UserID(), ref, func(f workspace.RedeemedFile, r io.Reader) error {
		if f.Size > c.ServerMaxFileSize() {
			return workspace.ErrTooLarge
		}
		used = true
		return use(posting.Stream{Name: f.Name, Origin: "upload handle for " + present.Clean(f.Name),
			Size: f.Size, SHA256: f.SHA256, Body: r})
	})
	if err != nil && !used {
		return sourceRefusal(err, "the upload handle")
	}
	return err
}

// attachments are forwarded: staged from their bytes, and posted as a copy
// of the file record that Mattermost makes itself (CopyFileInfos), sharing
// the stored bytes, which never change under a file's id.
//
// The plugin API reads a file only whole (GetFile returns []byte; it has no
// streaming read of a file by id or path), so staging an attachment holds
// it whole, up to Mattermost's largest file size, plus the RPC's copy while
// it is decoded: the registry's slots bound how many are held at once. The
// post itself reads no bytes, except for an attachment whose name changed
// for the post (two files of one name), which is uploaded from GetFile's
// bytes under the same bound.
type attachments struct{ c *mattermost.Caller }

// Stage reads and describes the attachment.
func (s attachments) Stage(ctx context.Context, e posting.Entry) (posting.Staged, error) {
	return posting.Reader{Ref: func(e posting.Entry) string { return strings.TrimSpace(e.FileID) }, Read: s.read}.Stage(ctx, e)
}

// Open reads the attachment's bytes again (whole, see above).
func (s attachments) Open(ctx context.Context, st posting.Staged, use func(posting.Stream) error) error {
	return s.read(ctx, st.Ref, use)
}

// Unchanged checks, without reading bytes, that the attachment is still
// one the caller can read, of the size shown.
func (s attachments) Unchanged(_ context.Context, st posting.Staged) error {
	_, err := s.find(st)
	return err
}

// Forward makes the post's copy of the attachment, unless the person was
// shown it under another name than Mattermost's copy would carry.
func (s attachments) Forward(_ context.Context, st posting.Staged, channelID string) (string, bool, error) {
	f, err := s.find(st)
	if err != nil {
		return "", false, err
	}
	if f.Info().Name != st.Name {
		return "", false, nil
	}
	id, err := s.c.CopyAttachment(f, channelID)
	if err != nil {
		return "", false, notFoundRefusal(err, fmt.Sprintf("The attachment %s could not be forwarded: it is gone, or files can no longer be attached in this channel; nothing was sent.", st.Name))
	}
	return id, true, nil
}

// find is a staged attachment as it is now: still readable by the caller
// and of the size shown (its bytes cannot change under its id).
func (s attachments) find(st posting.Staged) (mattermost.Readable, error) {
	f, err := s.c.File(st.Ref)
	if err != nil {
		return mattermost.Readable{}, notFoundRefusal(err, fmt.Sprintf("The attachment %s is no longer there to forward; nothing was sent.", st.Name))
	}
	if f.Info().Size != st.Size {
		return mattermost.Readable{}, refusal.Newf("%s changed since the person was asked (%d bytes then, %d now); nothing was sent. Ask again with the file as it is now.", st.Name, st.Size, f.Info().Size)
	}
	return f, nil
}

// read reads an attachment c can read, whole.
func (s attachments) read(_ context.Context, ref string, use func(posting.Stream) error) error {
	c := s.c
	f, err := c.File(ref)
	if err != nil {
		return notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found. Take file_id from the attachments listed beside posts or from search_files.", ref))
	}
	info := f.Info()
	if info.Size > c.ServerMaxFileSize() {
		return refusal.Newf("The attachment %s is %s, more than this Mattermost takes in a post.", info.Name, present.Size(info.Size))
	}
	data, err := c.FileBytes(f)
	if err != nil {
		return notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found.", ref))
	}
	origin := "attachment " + present.Clean(info.Name)
	if f.PostID() != "" {
		if place, err := c.PlaceOf(f); err == nil {
			origin += " from " + present.Permalink(c.SiteURL(), place.TeamName, f.PostID())
		}
	}
	return use(posting.Stream{Name: info.Name, Origin: origin, Size: int64(len(data)), Body: bytes.NewReader(data), Whole: data})
}

func notFoundRefusal(err error, msg string) error {
	if errors.Is(err, mattermost.ErrNotFound) {
		return refusal.New(msg, "")
	}
	return err
}

func sourceRefusal(err error, what string) error {
	switch {
	case errors.Is(err, workspace.ErrNotFound):
		return refusal.Newf("%s was not found in the person's workspace (or the upload has not arrived). Call files_list to see it.", what)
	case errors.Is(err, workspace.ErrTooLarge):
		return refusal.Newf("%s is larger than this Mattermost takes in a post.", what)
	case errors.Is(err, workspace.ErrExpiredHandle), errors.Is(err, workspace.ErrInvalidHandle), errors.Is(err, workspace.ErrPinMismatch):
		return refusal.Newf("%s cannot be used: %v. Call request_upload for a new one.", what, err)
	}
	return err
}
