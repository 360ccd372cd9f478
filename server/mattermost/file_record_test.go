package mattermost

import (
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"
)

// tableDriver is the plugin API's database driver answering every query
// with rows (or failing it with err), and remembering the queries.
type tableDriver struct {
	mu      sync.Mutex
	rows    [][]driver.Value
	err     error
	queries []string
	next    map[string]int
}

func (d *tableDriver) Conn(bool) (string, error) { return "conn", nil }
func (d *tableDriver) ConnPing(string) error     { return nil }
func (d *tableDriver) ConnClose(string) error    { return nil }
func (d *tableDriver) ConnQuery(_, q string, _ []driver.NamedValue) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queries = append(d.queries, q)
	if d.err != nil {
		return "", d.err
	}
	if d.next == nil {
		d.next = map[string]int{}
	}
	id := model.NewId()
	d.next[id] = 0
	return id, nil
}
func (d *tableDriver) ConnExec(string, string, []driver.NamedValue) (plugin.ResultContainer, error) {
	return plugin.ResultContainer{}, errors.New("no writes")
}
func (d *tableDriver) Tx(string, driver.TxOptions) (string, error) {
	return "", errors.New("no transactions")
}
func (d *tableDriver) TxCommit(string) error               { return nil }
func (d *tableDriver) TxRollback(string) error             { return nil }
func (d *tableDriver) Stmt(string, string) (string, error) { return "", errors.New("no statements") }
func (d *tableDriver) StmtClose(string) error              { return nil }
func (d *tableDriver) StmtNumInput(string) int             { return -1 }
func (d *tableDriver) StmtQuery(string, []driver.NamedValue) (string, error) {
	return "", errors.New("no statements")
}
func (d *tableDriver) StmtExec(string, []driver.NamedValue) (plugin.ResultContainer, error) {
	return plugin.ResultContainer{}, errors.New("no statements")
}
func (d *tableDriver) RowsColumns(string) []string { return nil }
func (d *tableDriver) RowsClose(string) error      { return nil }
func (d *tableDriver) RowsNext(id string, dest []driver.Value) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.next[id]
	if n == len(d.rows) {
		return io.EOF
	}
	copy(dest, d.rows[n])
	d.next[id] = n + 1
	return nil
}
func (d *tableDriver) RowsHasNextResultSet(string) bool                  { return false }
func (d *tableDriver) RowsNextResultSet(string) error                    { return io.EOF }
func (d *tableDriver) RowsColumnTypeDatabaseTypeName(string, int) string { return "" }
func (d *tableDriver) RowsColumnTypePrecisionScale(string, int) (int64, int64, bool) {
	return 0, 0, false
}

// tableAPI is accessAPI on PostgreSQL without read replicas.
func tableAPI(t *testing.T) *plugintest.API {
	api := accessAPI(t)
	cfg := &model.Config{}
	cfg.SetDefaults()
	api.On("GetConfig").Return(cfg).Maybe()
	api.On("GetUnsanitizedConfig").Return(cfg).Maybe()
	return api
}

// livePost is a live post of privateID that lists files.
func livePost(api *plugintest.API, postID string, files ...string) {
	api.On("GetPost", postID).Return(&model.Post{Id: postID, ChannelId: privateID, FileIds: files}, nil)
}

// fileRow is a file's row as fileRecordSelect reads it; with text, its
// extracted text is as long as the file.
func fileRow(id, postID string, size int64, text bool) []driver.Value {
	used := int64(0)
	if text {
		used = size
	}
	return []driver.Value{id, aliceID, postID, privateID, int64(1), int64(2), int64(0),
		"data/a.docx", "", "", "a.docx", "docx", size, "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		int64(0), int64(0), false, nil, "", false, used}
}

func TestAFilesRecordIsReadFromItsTableWithoutTheExtractedTextItDoesNotNeed(t *testing.T) {
	api := tableAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	d := &tableDriver{rows: [][]driver.Value{fileRow(fileID, postID, 5<<20, false)}}
	livePost(api, postID, fileID)
	f, err := NewGateway(api, d).As(aliceID).File(fileID)
	if err != nil {
		t.Fatal(err)
	}
	if info := f.Info(); info.Name != "a.docx" || info.Size != 5<<20 || info.PostId != postID || info.ChannelId != privateID ||
		info.Content != "" || info.MiniPreview != nil || info.RemoteId == nil || f.ChannelID() != privateID {
		t.Fatalf("record %+v", info)
	}
	api.AssertNotCalled(t, "GetFileInfo", mock.Anything)
	if len(d.queries) != 1 || !strings.Contains(d.queries[0], "COALESCE(OCTET_LENGTH(f.Content), 0)") || !strings.Contains(d.queries[0], "$1") ||
		strings.Contains(d.queries[0], ", f.Content") {
		t.Fatalf("queries %q: want one, asking the text's length without reading it", d.queries)
	}
}

func TestAFilesExtractedTextIsReadThroughThePluginAPIOnlyWhenItIsAsked(t *testing.T) {
	api := tableAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	d := &tableDriver{rows: [][]driver.Value{fileRow(fileID, postID, 6, true)}}
	livePost(api, postID, fileID)
	c := NewGateway(api, d).As(aliceID)
	f, err := c.File(fileID)
	if err != nil || f.Info().Content != "" {
		t.Fatalf("%+v, %v: want the record without its text", f.Info(), err)
	}
	api.AssertNotCalled(t, "GetFileInfo", mock.Anything)
	api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID, Name: "a.pdf", Extension: "pdf",
		Size: 6, Content: "hello\n"}, nil).Once()
	if text, err := c.ExtractedText(f); err != nil || text != "hello\n" {
		t.Fatalf("ExtractedText = %q, %v; want the text Mattermost extracted", text, err)
	}
}

func TestAFileMissingFromItsTableIsNotFound(t *testing.T) {
	api := tableAPI(t)
	if _, err := NewGateway(api, &tableDriver{}).As(aliceID).File(model.NewId()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%v, want not found", err)
	}
	api.AssertNotCalled(t, "GetFileInfo", mock.Anything)
}

func TestAFileTableThatDoesNotAnswerLeavesTheRecordToThePluginAPI(t *testing.T) {
	api := tableAPI(t)
	fileID, postID := model.NewId(), model.NewId()
	api.On("GetFileInfo", fileID).Return(&model.FileInfo{Id: fileID, PostId: postID, ChannelId: privateID, Name: "a.txt", Size: 3}, nil).Once()
	api.On("LogWarn", mock.Anything, mock.Anything, mock.Anything).Once()
	d := &tableDriver{err: errors.New(`column "archived" does not exist`)}
	livePost(api, postID, fileID)
	f, err := NewGateway(api, d).As(aliceID).File(fileID)
	if err != nil || f.Info().Name != "a.txt" {
		t.Fatalf("%+v, %v", f, err)
	}
}

func TestAPageOfPostsReadsItsAttachmentsRecordsInOneQuery(t *testing.T) {
	api := tableAPI(t)
	var posts []*model.Post
	var rows [][]driver.Value
	for range 3 {
		p := &model.Post{Id: model.NewId(), ChannelId: privateID}
		for range 2 {
			id := model.NewId()
			p.FileIds = append(p.FileIds, id)
			rows = append(rows, fileRow(id, p.Id, 100, false))
		}
		posts = append(posts, p)
	}
	d := &tableDriver{rows: rows}
	c := NewGateway(api, d).As(aliceID)
	c.KnowFilesOf(posts)
	for _, p := range posts {
		files, err := c.PostFiles(p)
		if err != nil || len(files) != 2 || files[0].Id != p.FileIds[0] || files[1].Id != p.FileIds[1] {
			t.Fatalf("post %s: %v, %v", p.Id, files, err)
		}
	}
	if len(d.queries) != 1 || strings.Count(d.queries[0], "$") != 6 {
		t.Fatalf("queries %q: want one for the six files", d.queries)
	}
	api.AssertNotCalled(t, "GetFileInfo", mock.Anything)
}

func TestAFilesTextIsAskedForInPlaceOfItsBytesOnlyWhereItMayBeTheFile(t *testing.T) {
	for _, tc := range []struct {
		name      string
		info      model.FileInfo
		textBytes int64
		want      bool
	}{
		{"text as long as the file", model.FileInfo{Size: 6, Extension: "txt", MimeType: "text/plain"}, 6, true},
		{"text of another length", model.FileInfo{Size: 6, Extension: "txt", MimeType: "text/plain"}, 4, false},
		{"small text not extracted yet", model.FileInfo{Size: 6, Extension: "csv", MimeType: "text/csv"}, 0, true},
		{"text over what Mattermost keeps", model.FileInfo{Size: 2 << 20, Extension: "txt", MimeType: "text/plain"}, 0, false},
		{"audio", model.FileInfo{Size: 6, Extension: "mp3", MimeType: "audio/mpeg"}, 0, false},
		{"video", model.FileInfo{Size: 6, Extension: "mp4", MimeType: "video/mp4"}, 0, false},
		{"an image", model.FileInfo{Size: 6, Extension: "png", MimeType: "image/png"}, 6, false},
		{"a PDF, whose text is converted", model.FileInfo{Size: 6, Extension: "pdf", MimeType: "application/pdf"}, 6, false},
		{"text that came with the record", model.FileInfo{Size: 6, Extension: "txt", Content: "hello\n"}, 6, false},
	} {
		info := tc.info
		if got := textMayBeTheFile(Readable{info: &info, textBytes: tc.textBytes}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
