package harness

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lib/pq" // PostgreSQL driver for reading back what Mattermost stored
)

// FileInfoStates counts the file records whose name contains part that are
// live (DeleteAt 0) and that were deleted, straight from the database.
func (s *Server) FileInfoStates(ctx context.Context, part string) (live, deleted int, err error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	err = db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE deleteat = 0), count(*) FILTER (WHERE deleteat <> 0) FROM fileinfo WHERE name LIKE '%' || $1 || '%'`, part).Scan(&live, &deleted)
	if err != nil {
		return 0, 0, fmt.Errorf("count file infos: %w", err)
	}
	return live, deleted, nil
}

// FileInfoCount counts the file records Mattermost keeps whose name contains
// part, deleted or not, straight from the database: a test that nothing was
// uploaded does not trust any API's filtering.
func (s *Server) FileInfoCount(ctx context.Context, part string) (int, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM fileinfo WHERE name LIKE '%' || $1 || '%'`, part).Scan(&n); err != nil {
		return 0, fmt.Errorf("count file infos: %w", err)
	}
	return n, nil
}

// ExpireKV makes one of the plugin's KV records expire now, as if its time
// to live had run out: Mattermost's store no longer returns it.
func (s *Server) ExpireKV(ctx context.Context, key string) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE pluginkeyvaluestore SET expireat = 1 WHERE pluginid = $1 AND pkey = $2`, PluginID, key)
	if err != nil {
		return fmt.Errorf("expire KV record: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("expire KV record: %d rows match", n)
	}
	return nil
}

// KVRows counts the plugin's live KV records whose key starts with
// keyPrefix and whose value contains valueContains ("" for any), and the
// bytes their values take, straight from the database: what the plugin
// keeps is measured where it is kept.
func (s *Server) KVRows(ctx context.Context, keyPrefix, valueContains string) (rows int, bytes int64, err error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	err = db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(octet_length(pvalue)), 0) FROM pluginkeyvaluestore
		WHERE pluginid = $1 AND starts_with(pkey, $2) AND (expireat = 0 OR expireat > $3)
		AND ($4 = '' OR position(convert_to($4, 'UTF8') in pvalue) > 0)`,
		PluginID, keyPrefix, time.Now().UnixMilli(), valueContains).Scan(&rows, &bytes)
	if err != nil {
		return 0, 0, fmt.Errorf("count KV records: %w", err)
	}
	return rows, bytes, nil
}

// RemoveStoredFile deletes the stored bytes of an uploaded file from the
// file store (Mattermost keeps them in a folder named by the file's id), as
// a store that lost them would: a read that needs them fails from now on.
func (s *Server) RemoveStoredFile(fileID string) error {
	var dir string
	err := filepath.WalkDir(s.filesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == fileID {
			dir = path
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return err
	}
	if dir == "" {
		return fmt.Errorf("no stored bytes of file %s under %s", fileID, s.filesDir)
	}
	return os.RemoveAll(dir)
}

// StoreAcknowledgements records, straight in the database, what a licensed
// Mattermost stores when a post with a priority requests acknowledgement
// and people acknowledge it: Team Edition refuses both through its API,
// yet reads and returns them.
func (s *Server) StoreAcknowledgements(ctx context.Context, postID, channelID string, userIDs []string, at int64) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE postspriority SET requestedack = true WHERE postid = $1`, postID)
	if err != nil {
		return fmt.Errorf("request acknowledgement: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("request acknowledgement: the post has no priority row")
	}
	// Mattermost 9.11's table has no ChannelId (later versions added it).
	var withChannel bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_name = 'postacknowledgements' AND column_name = 'channelid')`).Scan(&withChannel); err != nil {
		return fmt.Errorf("read the acknowledgements table: %w", err)
	}
	for i, u := range userIDs {
		var err error
		if withChannel {
			_, err = db.ExecContext(ctx, `INSERT INTO postacknowledgements (postid, userid, acknowledgedat, channelid) VALUES ($1, $2, $3, $4)`,
				postID, u, at+int64(i), channelID)
		} else {
			_, err = db.ExecContext(ctx, `INSERT INTO postacknowledgements (postid, userid, acknowledgedat) VALUES ($1, $2, $3)`,
				postID, u, at+int64(i))
		}
		if err != nil {
			return fmt.Errorf("store acknowledgement: %w", err)
		}
	}
	return nil
}

// MarkPostDeleted marks a post deleted straight in the database, as a job
// or another plugin may, and leaves its files' records as they are (live):
// Mattermost's own deletion marks them too.
func (s *Server) MarkPostDeleted(ctx context.Context, postID string) error {
	return s.changePost(ctx, `UPDATE posts SET deleteat = $2, updateat = $2 WHERE id = $1`, postID, time.Now().UnixMilli())
}

// SetPostFileIDs sets the files a post lists straight in the database (as
// Mattermost writes them: a JSON list of ids), as an edit or a move can
// leave a post, and leaves the files' records as they are (still naming
// the post).
func (s *Server) SetPostFileIDs(ctx context.Context, postID string, fileIDs []string) error {
	if fileIDs == nil {
		fileIDs = []string{}
	}
	list, err := json.Marshal(fileIDs)
	if err != nil {
		return err
	}
	return s.changePost(ctx, `UPDATE posts SET fileids = $2 WHERE id = $1`, postID, string(list))
}

// changePost runs an update of one post's row.
func (s *Server) changePost(ctx context.Context, stmt, postID string, value any) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, stmt, postID, value)
	if err != nil {
		return fmt.Errorf("change post %s: %w", postID, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("change post %s: %d rows match", postID, n)
	}
	return nil
}

// ExtractedFiles counts the files of ids whose text Mattermost has
// extracted (it does so a moment after each upload), straight from the
// database.
func (s *Server) ExtractedFiles(ctx context.Context, ids []string) (int, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM fileinfo WHERE id = ANY($1) AND content <> ''`, pq.Array(ids)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count extracted files: %w", err)
	}
	return n, nil
}

// Analyze has PostgreSQL vacuum Mattermost's tables and gather their
// statistics now, as its autovacuum does some time after many rows were
// added or changed: plans then are those of a server in use, not of one
// just filled.
func (s *Server) Analyze(ctx context.Context) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// FileIndexes are the indexes on Mattermost's FileInfo table, by name, each
// with its definition and how many scans have used it so far, straight
// from the database.
func (s *Server) FileIndexes(ctx context.Context) (map[string]FileIndex, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT i.indexname, i.indexdef, COALESCE(u.idx_scan, 0)
		FROM pg_indexes i LEFT JOIN pg_stat_user_indexes u ON u.indexrelname = i.indexname AND u.relname = i.tablename
		WHERE i.tablename = 'fileinfo'`)
	if err != nil {
		return nil, fmt.Errorf("list file indexes: %w", err)
	}
	defer rows.Close()
	out := map[string]FileIndex{}
	for rows.Next() {
		var name string
		var ix FileIndex
		if err := rows.Scan(&name, &ix.Definition, &ix.Scans); err != nil {
			return nil, err
		}
		out[name] = ix
	}
	return out, rows.Err()
}

// FileIndex is one index of FileIndexes.
type FileIndex struct {
	Definition string
	Scans      int64
}
