package mattermost

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// Files going into a post. Each file reaches Mattermost in one of two ways,
// neither of which holds the file in the plugin's memory:
//
//   - Bytes the plugin reads (a workspace file, an upload handle, the text
//     the model wrote) go through an upload session: CreateUploadSession,
//     then UploadData with a reader, which the plugin RPC serves to
//     Mattermost in reads of at most 32 KiB. (UploadFile takes the whole
//     file as []byte and the RPC encodes another copy of it.)
//   - An attachment is copied by record: CopyFileInfos makes a new file
//     record for the caller that shares the original's stored bytes, and
//     CreatePost attaches it (giving it the post and the channel). A
//     Mattermost file's bytes never change under its id, so the copy holds
//     exactly the bytes the person was shown. Sharing is Mattermost's own
//     design for this call, with its one consequence: deleting either post
//     permanently (an admin's permanent delete, content flagging, a user
//     deleted permanently) removes the stored bytes both records name.
//
// The plugin API has no call to delete a file record, an upload session or
// stored bytes. What an upload leaves when the post is then not made is
// cleaned up through Mattermost's own database handle (DiscardUploads,
// abandonUpload), touching only records this caller's upload just made.

// Database drivers Mattermost runs on: PostgreSQL, and MySQL up to
// Mattermost 10 (the plugin's minimum server version is 8.0.0).
const (
	driverPostgres = "postgres"
	driverMySQL    = "mysql"
)

// errIncomplete is an upload session that ended before its last byte.
var errIncomplete = errors.New("the upload ended before its last byte")

// Upload stores size bytes read from r as an attachment of a channel the
// caller may upload to, to be attached by CreatePost. It cannot be undone
// through the plugin API; DiscardUploads deletes it when the post is not
// made. An upload that fails or ends early (r failed, or gave fewer bytes
// than size) leaves no upload session behind.
func (c *Caller) Upload(r io.Reader, size int64, channelID, name string) (*model.FileInfo, error) {
	_, upload, err := c.MayPost(channelID)
	if err != nil {
		return nil, err
	}
	if !upload {
		return nil, ErrNotFound
	}
	if size == 0 {
		// An upload session cannot be empty; nothing is held either way.
		info, appErr := c.g.raw.UploadFile([]byte{}, channelID, name)
		if appErr != nil {
			return nil, fmt.Errorf("upload %s: %w", name, appErr)
		}
		return info, nil
	}
	us, err := c.g.raw.CreateUploadSession(&model.UploadSession{
		Id: model.NewId(), Type: model.UploadTypeAttachment, UserId: c.userID,
		ChannelId: channelID, Filename: name, FileSize: size,
	})
	if err != nil {
		return nil, fmt.Errorf("upload %s: %w", name, err)
	}
	info, err := c.g.raw.UploadData(us, r)
	if err == nil && info == nil {
		// Mattermost keeps an unfinished session for the rest to follow.
		err = errIncomplete
	}
	if err != nil {
		if aerr := c.abandonUpload(us.Id); aerr != nil {
			return nil, fmt.Errorf("upload %s: %w (its upload session could not be removed: %v)", name, err, aerr)
		}
		return nil, fmt.Errorf("upload %s: %w", name, err)
	}
	return info, nil
}

// CopyAttachment makes a new file record for the caller that shares the
// stored bytes of an attachment File cleared for them, to be attached by
// CreatePost in a channel they may upload to (checked now, as Upload checks
// it). It is not attached to anything until then, so DiscardUploads deletes
// it like an upload when the post is not made.
func (c *Caller) CopyAttachment(f Readable, channelID string) (string, error) {
	if f.info == nil {
		// The zero Readable cleared nothing.
		return "", ErrNotFound
	}
	_, upload, err := c.MayPost(channelID)
	if err != nil {
		return "", err
	}
	if !upload {
		return "", ErrNotFound
	}
	ids, appErr := c.g.raw.CopyFileInfos(c.userID, []string{f.info.Id})
	if appErr != nil {
		return "", notFoundOr(appErr, "copy "+f.info.Name)
	}
	if len(ids) != 1 {
		return "", fmt.Errorf("copy %s: Mattermost made %d copies", f.info.Name, len(ids))
	}
	return ids[0], nil
}

// PendingUpload is a file the caller uploaded (Upload) that no post holds
// yet and that is not discarded: a file received for a post the person has
// still to answer. channelID, when set, must be its channel. Anything else
// is ErrNotFound.
func (c *Caller) PendingUpload(fileID, channelID string) (*model.FileInfo, error) {
	info, appErr := c.g.raw.GetFileInfo(fileID)
	if appErr != nil {
		return nil, notFoundOr(appErr, "read upload "+fileID)
	}
	if info.CreatorId != c.userID || info.PostId != "" || info.DeleteAt != 0 || (channelID != "" && uploadChannel(info) != channelID) {
		return nil, ErrNotFound
	}
	return info, nil
}

// uploadChannel is the channel an upload was made for: its record's, or,
// where Mattermost leaves that empty until a post holds the file (9.11's
// upload sessions), the one its stored path names
// (<date>/teams/noteam/channels/<channel>/users/<user>/...).
func uploadChannel(info *model.FileInfo) string {
	if info.ChannelId != "" {
		return info.ChannelId
	}
	parts := strings.Split(info.Path, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "channels" && model.IsValidId(parts[i+1]) {
			return parts[i+1]
		}
	}
	return ""
}

// DiscardUploads deletes files the caller uploaded (or copied) for a post
// that was then not made, the way Mattermost deletes a deleted post's files
// (DeleteAt set; the stored bytes stay, as they do for those). It touches
// only the given files of this caller (or "nouser", the creator of
// UploadFile's files) that belong to no post.
func (c *Caller) DiscardUploads(fileIDs []string) error {
	if len(fileIDs) == 0 {
		return nil
	}
	query, err := discardQuery(c.g.driverName(), len(fileIDs))
	if err != nil {
		return err
	}
	db, err := c.g.api.Store.GetMasterDB()
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	now := model.GetMillis()
	args := []any{now, now, c.userID}
	for _, id := range fileIDs {
		args = append(args, id)
	}
	res, err := db.Exec(query, args...)
	if err != nil {
		return fmt.Errorf("delete uploaded files: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n != int64(len(fileIDs)) {
		return fmt.Errorf("deleted %d of %d uploaded files", n, len(fileIDs))
	}
	return nil
}

// abandonUpload removes the record of an upload session of the caller's
// that did not finish, so it cannot be resumed into a file. Mattermost
// removes a first part under 5 MB itself; larger partial bytes stay in the
// file store, like a discarded file's.
func (c *Caller) abandonUpload(uploadID string) error {
	query, err := abandonQuery(c.g.driverName())
	if err != nil {
		return err
	}
	db, err := c.g.api.Store.GetMasterDB()
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	if _, err := db.Exec(query, uploadID, c.userID); err != nil {
		return fmt.Errorf("remove upload session: %w", err)
	}
	return nil
}

// driverName is SqlSettings.DriverName: which database Mattermost runs on.
func (g *Gateway) driverName() string {
	cfg := g.config()
	if cfg == nil || cfg.SqlSettings.DriverName == nil {
		return ""
	}
	return *cfg.SqlSettings.DriverName
}

// discardQuery marks n files deleted. Its arguments, in order: the time
// twice (DeleteAt, UpdateAt), the caller's id, then the n file ids.
func discardQuery(driver string, n int) (string, error) {
	p, err := placeholders(driver, 3+n)
	if err != nil {
		return "", err
	}
	return "UPDATE FileInfo SET DeleteAt = " + p[0] + ", UpdateAt = " + p[1] +
		" WHERE CreatorId IN (" + p[2] + ", 'nouser') AND PostId = '' AND DeleteAt = 0 AND Id IN (" +
		strings.Join(p[3:], ", ") + ")", nil
}

// abandonQuery removes one unfinished attachment upload session. Its
// arguments: the session's id, the caller's id.
func abandonQuery(driver string) (string, error) {
	p, err := placeholders(driver, 2)
	if err != nil {
		return "", err
	}
	return "DELETE FROM UploadSessions WHERE Id = " + p[0] + " AND UserId = " + p[1] + " AND Type = 'attachment'", nil
}

// placeholders are n bind parameters in the driver's syntax: $1, $2... for
// PostgreSQL, ? for MySQL. Each argument is bound once, in order, so the
// same arguments serve both.
func placeholders(driver string, n int) ([]string, error) {
	out := make([]string, n)
	for i := range out {
		switch driver {
		case driverPostgres:
			out[i] = fmt.Sprintf("$%d", i+1)
		case driverMySQL:
			out[i] = "?"
		default:
			return nil, fmt.Errorf("database driver %q is not one this plugin writes to (postgres, mysql)", driver)
		}
	}
	return out, nil
}
