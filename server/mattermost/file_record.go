package mattermost

import (
	"errors"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

// The plugin API's GetFileInfo hands over a file's record with the text
// Mattermost extracted from it, up to 1 MiB, which PostgreSQL decompresses
// and the plugin RPC copies on every first read of a document or a long
// text file. The plugin reads that text only where it is the file itself
// (copyOfFile) or a PDF's text (tools/pdf.go), so the record is read from
// Mattermost's FileInfo table without it, and through GetFileInfo only when
// the table says the text is used (a large value is slower through the
// database driver, a row per round trip, than through GetFileInfo: about 4
// ms more for a megabyte). Where the table does not answer as expected
// (another schema), the record comes through the plugin API as before.

// fileRecordQuery selects the columns of model.FileInfo that Mattermost's
// own store selects but the extracted text, and whether that text is used:
// it is not empty and its length in bytes (known without decompressing it)
// equals the file's, or the file is a PDF.
const fileRecordQuery = `SELECT Id, CreatorId, PostId, COALESCE(ChannelId, ''), CreateAt, UpdateAt, DeleteAt,
	Path, ThumbnailPath, PreviewPath, Name, Extension, Size, MimeType, Width, Height, HasPreviewImage,
	MiniPreview, COALESCE(RemoteId, ''), Archived,
	CASE WHEN OCTET_LENGTH(Content) > 0 AND (OCTET_LENGTH(Content) = Size OR LOWER(Extension) = 'pdf' OR MimeType = 'application/pdf')
		THEN 1 ELSE 0 END
	FROM FileInfo WHERE Id = %s`

// fileRecordColumns is how many columns fileRecordQuery selects.
const fileRecordColumns = 21

// fileRecord is a file's record, as GetFileInfo gives it but for the
// extracted text where nothing here reads it.
func (g *Gateway) fileRecord(fileID string) (*model.FileInfo, error) {
	if g.hasDB {
		info, textUsed, err := g.fileRecordFromTable(fileID)
		if (err == nil && !textUsed) || errors.Is(err, ErrNotFound) {
			return info, err
		}
		if err == nil {
			return g.fileRecordThroughAPI(fileID)
		}
		g.fileTableFailed.Do(func() { // the rest fall back quietly
			g.Log().Warn("Could not read a file's record from Mattermost's FileInfo table; reading records through the plugin API instead, which carries each file's extracted text", "error", err.Error())
		})
	}
	return g.fileRecordThroughAPI(fileID)
}

func (g *Gateway) fileRecordThroughAPI(fileID string) (*model.FileInfo, error) {
	info, appErr := g.api.File.GetInfo(fileID)
	if appErr != nil {
		return nil, notFoundOr(appErr, "read file info")
	}
	return info, nil
}

// fileRecordFromTable is the record without its text, and whether the
// text is used.
func (g *Gateway) fileRecordFromTable(fileID string) (_ *model.FileInfo, textUsed bool, _ error) {
	p, err := placeholders(g.driverName(), 1)
	if err != nil {
		return nil, false, err
	}
	db, err := g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, false, err
	}
	var found *model.FileInfo
	err = queryRows(db, fmt.Sprintf(fileRecordQuery, p[0]), []any{fileID}, fileRecordColumns, func(scan func(...any) error) error {
		var f model.FileInfo
		var mini []byte
		var remote string
		if err := scan(&f.Id, &f.CreatorId, &f.PostId, &f.ChannelId, &f.CreateAt, &f.UpdateAt, &f.DeleteAt,
			&f.Path, &f.ThumbnailPath, &f.PreviewPath, &f.Name, &f.Extension, &f.Size, &f.MimeType, &f.Width, &f.Height, &f.HasPreviewImage,
			&mini, &remote, &f.Archived, &textUsed); err != nil {
			return err
		}
		if mini != nil {
			f.MiniPreview = &mini
		}
		f.RemoteId = &remote
		found = &f
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if found == nil {
		return nil, false, ErrNotFound
	}
	return found, textUsed, nil
}
