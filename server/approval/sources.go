package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// sources are the kinds of files a post takes, each read as c and only as
// c: the registry is built for one caller.
func (a *Approvals) sources(c *mattermost.Caller) posting.Registry {
	return posting.NewRegistry(a.opts.Slots, map[string]posting.Source{
		posting.KindWritten: posting.Written{},
		posting.KindAttachment: posting.Reader{
			Ref:  func(e posting.Entry) string { return strings.TrimSpace(e.FileID) },
			Read: func(_ context.Context, ref string) (string, []byte, string, error) { return readAttachment(c, ref) },
		},
		posting.KindWorkspace: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.WorkspaceFile) },
			Read: func(_ context.Context, ref string) (string, []byte, string, error) {
				f, data, err := a.opts.Workspace.ReadAll(c.UserID(), ref, c.ServerMaxFileSize())
				if err != nil {
					return "", nil, "", sourceRefusal(err, ref)
				}
				return f.Name, data, "your workspace file " + present.Clean(f.Name), nil
			},
		},
		posting.KindHandle: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.Handle) },
			Read: func(ctx context.Context, ref string) (string, []byte, string, error) {
				var name string
				var data []byte
				err := a.opts.Workspace.Redeem(ctx, c.UserID(), ref, func(f workspace.RedeemedFile) error {
					name, data = f.Name, f.Bytes
					return nil
				})
				if err != nil {
					return "", nil, "", sourceRefusal(err, "the upload handle")
				}
				return name, data, "upload handle for " + present.Clean(name), nil
			},
		},
	})
}

// readAttachment reads an attachment c can read, for forwarding.
func readAttachment(c *mattermost.Caller, ref string) (string, []byte, string, error) {
	f, err := c.File(ref)
	if err != nil {
		return "", nil, "", notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found. Take file_id from the attachments listed beside posts or from search_files.", ref))
	}
	info := f.Info()
	if info.Size > c.ServerMaxFileSize() {
		return "", nil, "", posting.Refusal(fmt.Sprintf("The attachment %s is %s, more than this Mattermost takes in a post.", info.Name, present.Size(info.Size)))
	}
	data, err := c.FileBytes(f)
	if err != nil {
		return "", nil, "", notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found.", ref))
	}
	origin := "attachment " + present.Clean(info.Name)
	if f.PostID() != "" {
		if place, err := c.PlaceOf(f); err == nil {
			origin += " from " + present.Permalink(c.SiteURL(), place.TeamName, f.PostID())
		}
	}
	return info.Name, data, origin, nil
}

func notFoundRefusal(err error, msg string) error {
	if errors.Is(err, mattermost.ErrNotFound) {
		return posting.Refusal(msg)
	}
	return err
}

func sourceRefusal(err error, what string) error {
	switch {
	case errors.Is(err, workspace.ErrNotFound):
		return posting.Refusal(fmt.Sprintf("%s was not found in the person's workspace (or the upload has not arrived). Call files_list to see it.", what))
	case errors.Is(err, workspace.ErrTooLarge):
		return posting.Refusal(fmt.Sprintf("%s is larger than this Mattermost takes in a post.", what))
	case errors.Is(err, workspace.ErrExpiredHandle), errors.Is(err, workspace.ErrInvalidHandle), errors.Is(err, workspace.ErrPinMismatch):
		return posting.Refusal(fmt.Sprintf("%s cannot be used: %v. Call request_upload for a new one.", what, err))
	}
	return err
}
