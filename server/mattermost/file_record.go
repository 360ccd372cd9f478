package mattermost

import (
	"github.com/mattermost/mattermost/server/public/model"
)

// The plugin API's GetFileInfo hands over a file's record with the text
// Mattermost extracted from it, up to 1 MiB, which PostgreSQL decompresses
// and the plugin RPC copies, on every listing that names the file. Only
// reading a PDF needs that text (tools/pdf.go, through ExtractedText), so a
// record is read from Mattermost's FileInfo table without it, with the
// text's length in bytes (known without decompressing it). Where the table
// does not answer as expected (another schema), the record comes through
// the plugin API as before, text and all.

// fileRecordSelect is the columns of model.FileInfo that Mattermost's own
// store selects but the extracted text, of the table as f, and the length
// of that text in bytes.
const fileRecordSelect = `f.Id, f.CreatorId, f.PostId, COALESCE(f.ChannelId, ''), f.CreateAt, f.UpdateAt, f.DeleteAt,
	f.Path, f.ThumbnailPath, f.PreviewPath, f.Name, f.Extension, f.Size, f.MimeType, f.Width, f.Height, f.HasPreviewImage,
	f.MiniPreview, COALESCE(f.RemoteId, ''), f.Archived, COALESCE(OCTET_LENGTH(f.Content), 0)`

// fileRecordQuery selects the records of files by id.
const fileRecordQuery = `SELECT ` + fileRecordSelect + ` FROM FileInfo f WHERE f.Id IN (%s)`

// fileRecordColumns is how many columns fileRecordSelect selects.
const fileRecordColumns = 21

// fileRecord is a file's record, as GetFileInfo gives it but for the
// extracted text.
func (g *Gateway) fileRecord(fileID string) (record, error) {
	if g.hasDB {
		found, err := g.fileRecordsFromTable([]any{fileID})
		r, ok := found[fileID]
		switch {
		case err == nil && !ok:
			return record{}, ErrNotFound
		case err == nil:
			return r, nil
		}
	}
	return g.fileRecordThroughAPI(fileID)
}

func (g *Gateway) fileRecordThroughAPI(fileID string) (record, error) {
	info, appErr := g.api.File.GetInfo(fileID)
	if appErr != nil {
		return record{}, notFoundOr(appErr, "read file info")
	}
	return record{info: info, textBytes: int64(len(info.Content))}, nil
}

// KnowFilesOf reads, in one query, the records of the files of posts that
// this node does not keep yet, and keeps them (file_facts.go): PostFiles
// then finds each one kept, and a page of posts with attachments asks the
// table once rather than once per file. Where the table does not answer,
// PostFiles reads each file as before.
func (c *Caller) KnowFilesOf(posts []*model.Post) {
	if !c.g.hasDB {
		return
	}
	var ids []any
	for _, p := range posts {
		for _, id := range p.FileIds {
			if _, kept := c.g.keptFile(id); !kept && model.IsValidId(id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	found, err := c.g.fileRecordsFromTable(ids)
	if err != nil {
		return
	}
	for _, r := range found {
		c.g.keepFile(r) // without its text, which no listing reads
	}
}

// record is a file's record, read from the table without its extracted
// text (or through the plugin API with it), and that text's length in
// bytes: 0 also before Mattermost has extracted it, a moment after upload.
type record struct {
	info      *model.FileInfo
	textBytes int64
}

// fileRecordsFromTable reads the records of ids, by id; an id without a
// row is left out. The first failure is logged: then the plugin API
// answers instead.
func (g *Gateway) fileRecordsFromTable(ids []any) (map[string]record, error) {
	found, err := g.readFileTable(ids)
	if err != nil {
		g.fileTableFailed.Do(func() { // the rest fall back quietly
			g.Log().Warn("Could not read a file's record from Mattermost's FileInfo table; reading records through the plugin API instead, which carries each file's extracted text", "error", err.Error())
		})
	}
	return found, err
}

func (g *Gateway) readFileTable(ids []any) (map[string]record, error) {
	q, err := inQuery(g.driverName(), fileRecordQuery, len(ids))
	if err != nil {
		return nil, err
	}
	db, err := g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, err
	}
	found := make(map[string]record, len(ids))
	err = queryRows(db, q, ids, fileRecordColumns, func(scan func(...any) error) error {
		r, err := scanFileRecord(scan)
		if err != nil {
			return err
		}
		found[r.info.Id] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// scanFileRecord reads a row of fileRecordSelect's columns.
func scanFileRecord(scan func(...any) error) (record, error) {
	var f model.FileInfo
	var mini []byte
	var remote string
	var textBytes int64
	if err := scan(&f.Id, &f.CreatorId, &f.PostId, &f.ChannelId, &f.CreateAt, &f.UpdateAt, &f.DeleteAt,
		&f.Path, &f.ThumbnailPath, &f.PreviewPath, &f.Name, &f.Extension, &f.Size, &f.MimeType, &f.Width, &f.Height, &f.HasPreviewImage,
		&mini, &remote, &f.Archived, &textBytes); err != nil {
		return record{}, err
	}
	if mini != nil {
		f.MiniPreview = &mini
	}
	f.RemoteId = &remote
	return record{info: &f, textBytes: textBytes}, nil
}
