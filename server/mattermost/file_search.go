package mattermost

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mattermost/mattermost/server/public/model"
)

// File search runs in Mattermost's database, as Mattermost's own file
// search does when no search engine is configured: one statement that
// matches names and extracted text with the full-text indexes Mattermost
// keeps on FileInfo, restricted to the caller's channels and to files of
// posts that are not deleted, newest first, a page at a time. What crosses
// the plugin API is the page's records without their text (fileRecordSelect),
// never the text of the files looked at: the plugin API's GetFileInfos hands
// each record over with up to 1 MiB of text (see issue 54).
//
// The indexes, on Mattermost 9.11 to 11.4 alike:
//   - PostgreSQL: idx_fileinfo_name_txt on to_tsvector('english', Name),
//     idx_fileinfo_name_splitted on the same of the name with '.', ',' and
//     '-' read as spaces, idx_fileinfo_content_txt on to_tsvector('english',
//     Content). The statement names the 'english' configuration as the
//     indexes do, so the planner can use them whatever the database's
//     default_text_search_config.
//   - MySQL (Mattermost up to 10.x): FULLTEXT idx_fileinfo_name_txt (Name)
//     and idx_fileinfo_content_txt (Content), in boolean mode.

const (
	// SearchesPerNode bounds the file searches a node runs at once: each
	// is a statement PostgreSQL runs on its own core, and more at once
	// on a small server only queue there while holding their requests.
	SearchesPerNode = 4
	// SearchesPerPerson bounds one person's share of them: a research
	// host sends eight at once, which then take turns, and one person's
	// burst leaves the others room.
	SearchesPerPerson = 2
	// SearchWait is how long a search waits for its turn: one takes tens
	// of milliseconds, so a queue of dozens drains well within it.
	SearchWait = 10 * time.Second
	// maxSearchTerms bounds the terms of one text search: each is a look-up
	// in each index.
	maxSearchTerms = 16
	// maxTermRunes cuts a longer term to its start, which it then matches
	// as the start of a word: no word of a document is longer, and
	// PostgreSQL refuses a query word over 2 KB.
	maxTermRunes = 64
	// snippetScanChars is how much of a file's text is looked through for a
	// snippet: PostgreSQL decompresses this much of it, not the whole text
	// (up to 1 MiB), for each file of a page.
	snippetScanChars = 64 << 10
	// snippetChars is the length of a snippet: a few lines around the
	// match.
	snippetChars = 320
	// snippetLead is how much of a snippet comes before the match.
	snippetLead = 100
)

// FilePosition is where a listing of files, newest first, goes on from:
// the files created before CreateAt, or at it with a lower id. The zero
// position is the start.
type FilePosition struct {
	CreateAt int64
	ID       string
}

// IsStart reports whether p is the start of a listing (or its end, as a
// next position).
func (p FilePosition) IsStart() bool { return p.ID == "" }

// String writes p for a cursor.
func (p FilePosition) String() string {
	if p.IsStart() {
		return ""
	}
	return strconv.FormatInt(p.CreateAt, 10) + ":" + p.ID
}

// ParseFilePosition reads what String wrote.
func ParseFilePosition(s string) (FilePosition, error) {
	at, id, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || n < 0 || !model.IsValidId(id) {
		return FilePosition{}, fmt.Errorf("not a file position: %q", s)
	}
	return FilePosition{CreateAt: n, ID: id}, nil
}

// FileQuery narrows a search of the caller's files.
type FileQuery struct {
	NameContains string // case-insensitive substring of the file name
	Extension    string // without the dot, case-insensitive
	ChannelID    string // one channel the caller can read; empty for all of theirs
	Since        int64  // created at or after, Unix ms; 0 for any
	Before       int64  // created before, Unix ms; 0 for any
	// Words, when set, keeps files whose name or text (as Mattermost
	// extracted it, FileSettings.ExtractContent) holds every one of them
	// (any one, with AnyWord), as Mattermost's search matches a word: the
	// word or a word it begins, stemmed in English.
	Words   []string
	AnyWord bool
	// From continues a listing: only files after it, newest first.
	From  FilePosition
	Limit int
}

// ErrSearchBusy is a search that did not get its turn within SearchWait:
// the node runs SearchesPerNode at once, SearchesPerPerson of one person's.
var ErrSearchBusy = errors.New("file search busy")

// FoundFiles is a page of files.
type FoundFiles struct {
	Files []*model.FileInfo // without their text
	// Next is where the next page starts; the zero position when this
	// page is the last.
	Next FilePosition
}

// SearchFiles lists the caller's files that match q, newest first: the
// files of posts in channels they are a member of (or in q.ChannelID, a
// channel they can read), a page of at most q.Limit. Each one has passed
// File.
func (c *Caller) SearchFiles(q FileQuery) (FoundFiles, error) {
	if q.ChannelID != "" {
		if _, err := c.Channel(q.ChannelID); err != nil {
			return FoundFiles{}, err
		}
	}
	if q.Limit <= 0 {
		return FoundFiles{}, nil
	}
	release, ok := c.g.searches.Take(context.Background(), c.userID, SearchWait)
	if !ok {
		return FoundFiles{}, ErrSearchBusy
	}
	defer release()
	stmt, args, err := fileSearchQuery(c.g.driverName(), c.userID, q, c.policy().viewArchived)
	if err != nil {
		return FoundFiles{}, err
	}
	if stmt == "" { // nothing a search could match
		return FoundFiles{}, nil
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return FoundFiles{}, fmt.Errorf("database: %w", err)
	}
	var rows []record
	err = queryRowsPlanned(db, searchPlan(c.g.driverName(), q), stmt, args, fileRecordColumns, q.Limit+1, func(scan func(...any) error) error {
		r, err := scanFileRecord(scan)
		if err != nil {
			return err
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return FoundFiles{}, fmt.Errorf("search files: %w", err)
	}
	var out FoundFiles
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		last := rows[len(rows)-1].info
		out.Next = FilePosition{CreateAt: last.CreateAt, ID: last.Id}
	}
	for _, r := range rows {
		// The statement chose by Mattermost's tables; what the caller may
		// read is decided as everywhere else, one file at a time.
		c.g.keepFile(r)
		if _, err := c.File(r.info.Id); err != nil {
			continue
		}
		out.Files = append(out.Files, r.info)
	}
	return out, nil
}

// fileSearchQuery is the statement of a file search of userID's: the
// records of fileRecordSelect, newest first, at most q.Limit+1 of them (one
// more tells whether a next page follows). It is "" when the words hold no
// term to search for.
func fileSearchQuery(driver, userID string, q FileQuery, viewArchived bool) (string, []any, error) {
	if driver != driverPostgres && driver != driverMySQL {
		return "", nil, fmt.Errorf("database driver %q is not one this plugin searches (postgres, mysql)", driver)
	}
	b := &binder{driver: driver}
	var sql strings.Builder
	sql.WriteString("SELECT " + fileRecordSelect + "\nFROM ")
	if len(q.Words) > 0 {
		terms := searchTerms(q.Words)
		if len(terms) == 0 {
			return "", nil, nil
		}
		// The files whose name or text matches, alone in a subquery that
		// OFFSET 0 keeps apart: nothing else about the file can lead the
		// planner to look at each file of a channel and match its text
		// there (to_tsvector of up to 1 MiB a file, seconds for a few
		// hundred), rather than in the index.
		if driver == driverPostgres {
			query := b.bind(tsQuery(terms, q.AnyWord))
			sql.WriteString("(SELECT Id FROM FileInfo WHERE to_tsvector('english', Name) @@ to_tsquery('english', " + query + ")" +
				" OR to_tsvector('english', translate(Name, '.,-', '   ')) @@ to_tsquery('english', " + query + ")" +
				" OR to_tsvector('english', Content) @@ to_tsquery('english', " + query + ") OFFSET 0) m\n")
		} else {
			// Each MATCH alone can use its FULLTEXT index; MySQL cannot
			// merge two of them for an OR.
			query := booleanQuery(terms, q.AnyWord)
			sql.WriteString("(SELECT Id FROM FileInfo WHERE MATCH (Name) AGAINST (" + b.bind(query) + " IN BOOLEAN MODE)" +
				" UNION SELECT Id FROM FileInfo WHERE MATCH (Content) AGAINST (" + b.bind(query) + " IN BOOLEAN MODE)) m\n")
		}
		sql.WriteString("JOIN FileInfo f ON f.Id = m.Id\n")
	} else {
		sql.WriteString("FileInfo f\n")
	}
	sql.WriteString("JOIN Posts p ON p.Id = f.PostId\n")
	if q.ChannelID != "" {
		// A channel the caller can read (checked first), a member or not.
		sql.WriteString("WHERE f.ChannelId = " + b.bind(q.ChannelID))
	} else {
		sql.WriteString("JOIN ChannelMembers cm ON cm.ChannelId = f.ChannelId AND cm.UserId = " + b.bind(userID) + "\n")
		sql.WriteString("JOIN Channels c ON c.Id = f.ChannelId\nWHERE ")
		if viewArchived {
			sql.WriteString("1 = 1")
		} else {
			sql.WriteString("c.DeleteAt = 0")
		}
	}
	// Posted, and its post neither deleted, moved nor edited to leave the
	// file out.
	sql.WriteString("\nAND f.DeleteAt = 0 AND f.PostId <> '' AND p.DeleteAt = 0 AND p.ChannelId = f.ChannelId")
	if driver == driverPostgres {
		sql.WriteString(" AND p.FileIds LIKE '%' || f.Id || '%'")
	} else {
		sql.WriteString(" AND p.FileIds LIKE CONCAT('%', f.Id, '%')")
	}
	if ext := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(q.Extension), ".")); ext != "" {
		// Mattermost keeps extensions in lower case.
		sql.WriteString("\nAND f.Extension = " + b.bind(ext))
	}
	if name := strings.ToLower(q.NameContains); name != "" {
		sql.WriteString("\nAND LOWER(f.Name) LIKE " + b.bind("%"+likeEscaper.Replace(name)+"%"))
	}
	if q.Since > 0 {
		sql.WriteString("\nAND f.CreateAt >= " + b.bind(q.Since))
	}
	if q.Before > 0 {
		sql.WriteString("\nAND f.CreateAt < " + b.bind(q.Before))
	}
	if !q.From.IsStart() {
		at := b.bind(q.From.CreateAt)
		if driver == driverMySQL {
			sql.WriteString("\nAND (f.CreateAt < " + at + " OR f.CreateAt = " + b.bind(q.From.CreateAt) + " AND f.Id < " + b.bind(q.From.ID) + ")")
		} else {
			sql.WriteString("\nAND (f.CreateAt < " + at + " OR f.CreateAt = " + at + " AND f.Id < " + b.bind(q.From.ID) + ")")
		}
	}
	fmt.Fprintf(&sql, "\nORDER BY f.CreateAt DESC, f.Id DESC\nLIMIT %d", q.Limit+1)
	return sql.String(), b.args, nil
}

// searchPlan is what a search's statement is planned under. PostgreSQL
// knows nothing of what matching a file's text costs (its heap row is small,
// the text kept apart), so on a table of few rows, or just after many were
// added (before it is analysed again), it may read every row and match
// each text rather than look in the index: tens of seconds for a few
// hundred large documents, as measured. With sequential scans off, the
// matching subquery has only the indexes left. The joins are taken in the
// order written (the matching files, then each one's post, membership and
// channel by key), which is the plan anyway: weighing the other orders
// was half of planning (1.1 ms against 0.55 ms a search, measured). Both
// are set in one statement, one round trip.
func searchPlan(driver string, q FileQuery) []string {
	if driver != driverPostgres || len(q.Words) == 0 {
		return nil
	}
	return []string{searchSettings}
}

// searchSettings sets, for the transaction of a text search, what
// searchPlan says.
const searchSettings = "SELECT set_config('enable_seqscan', 'off', true), set_config('join_collapse_limit', '1', true)"

// binder collects a statement's arguments and writes their placeholders:
// $1, $2... for PostgreSQL (an argument bound once may stand many times),
// ? for MySQL (bound once per use).
type binder struct {
	driver string
	args   []any
}

func (b *binder) bind(v any) string {
	b.args = append(b.args, v)
	if b.driver == driverPostgres {
		return "$" + strconv.Itoa(len(b.args))
	}
	return "?"
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// searchTerms are the terms of words, as Mattermost's search takes them:
// the runs of letters and digits (a word of other characters too, as
// "q3-report", is its runs), lower case, each once, at most maxSearchTerms,
// each at most maxTermRunes.
func searchTerms(words []string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words {
		for _, t := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if r := []rune(t); len(r) > maxTermRunes {
				t = string(r[:maxTermRunes])
			}
			if seen[t] || len(terms) == maxSearchTerms {
				continue
			}
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return terms
}

// tsQuery is PostgreSQL's query of terms: each a word or the start of one
// (as Mattermost's own search reads every term), all of them or any one.
func tsQuery(terms []string, any bool) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = t + ":*"
	}
	if any {
		return strings.Join(parts, " | ")
	}
	return strings.Join(parts, " & ")
}

// booleanQuery is MySQL's boolean-mode query of terms: each a word or the
// start of one, all of them (+) or any one.
func booleanQuery(terms []string, any bool) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		if any {
			parts[i] = t + "*"
		} else {
			parts[i] = "+" + t + "*"
		}
	}
	return strings.Join(parts, " ")
}

// FileSnippets are a few lines of each file's text around the first of
// words it holds, by file id, for files found by SearchFiles (the caller
// cleared each). Only the first snippetScanChars of a text are looked
// through; a file without a match there has none.
func (c *Caller) FileSnippets(ids []string, words []string) (map[string]string, error) {
	terms := searchTerms(words)
	if len(ids) == 0 || len(terms) == 0 {
		return nil, nil
	}
	release, ok := c.g.searches.Take(context.Background(), c.userID, SearchWait)
	if !ok {
		return nil, ErrSearchBusy
	}
	defer release()
	stmt, args, err := snippetQuery(c.g.driverName(), ids, terms)
	if err != nil {
		return nil, err
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	out := map[string]string{}
	err = queryRows(db, stmt, args, 2, func(scan func(...any) error) error {
		var id, text string
		if err := scan(&id, &text); err != nil {
			return err
		}
		out[id] = text
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read snippets: %w", err)
	}
	return out, nil
}

// snippetQuery reads, for each of ids, snippetChars of the first
// snippetScanChars of its text around the first of terms found there.
func snippetQuery(driver string, ids, terms []string) (string, []any, error) {
	b := &binder{driver: driver}
	find := "STRPOS(LOWER(t), %s)"
	if driver == driverMySQL {
		find = "LOCATE(%s, LOWER(t))"
	} else if driver != driverPostgres {
		return "", nil, fmt.Errorf("database driver %q is not one this plugin searches (postgres, mysql)", driver)
	}
	var at []string
	for _, t := range terms {
		at = append(at, "NULLIF("+fmt.Sprintf(find, b.bind(t))+", 0)")
	}
	in := make([]string, len(ids))
	for i, id := range ids {
		in[i] = b.bind(id)
	}
	stmt := fmt.Sprintf(`SELECT Id, SUBSTRING(t, GREATEST(1, pos - %d), %d) FROM (
	SELECT Id, t, COALESCE(%s) AS pos FROM (SELECT Id, LEFT(Content, %d) AS t FROM FileInfo WHERE Id IN (%s)) texts
) found WHERE pos IS NOT NULL`, snippetLead, snippetChars, strings.Join(at, ", "), snippetScanChars, strings.Join(in, ", "))
	return stmt, b.args, nil
}
