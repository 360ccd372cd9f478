package mattermost

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// ChannelPosts is up to n posts of a channel the caller can read, newest
// first, older than the post before (or the newest when before is empty).
// A before post that is not in that channel is not found.
func (c *Caller) ChannelPosts(channelID, before string, n int) ([]*model.Post, error) {
	if _, err := c.Channel(channelID); err != nil {
		return nil, err
	}
	var list *model.PostList
	var err error
	if before == "" {
		list, err = c.g.api.Post.GetPostsForChannel(channelID, 0, n)
	} else {
		anchor, aerr := c.Post(before)
		if aerr != nil {
			return nil, aerr
		}
		if anchor.ChannelId != channelID {
			return nil, ErrNotFound
		}
		list, err = c.g.api.Post.GetPostsBefore(channelID, before, 0, n)
	}
	if err != nil {
		return nil, notFoundOr(err, "read channel posts")
	}
	return ordered(list), nil
}

// PostsSince are the posts of a channel the caller can read created at or
// after since (Unix milliseconds), oldest first, deleted ones left out.
// Mattermost reads them by change time, at most 1,000 a call, so since
// should be recent (wait_for_reply reads the last minutes).
func (c *Caller) PostsSince(channelID string, since int64) ([]*model.Post, error) {
	if _, err := c.Channel(channelID); err != nil {
		return nil, err
	}
	// Mattermost reads posts changed after its time: one millisecond
	// earlier keeps a post made at since itself.
	list, err := c.g.api.Post.GetPostsSince(channelID, since-1)
	if err != nil {
		return nil, notFoundOr(err, "read channel posts since")
	}
	var out []*model.Post
	for _, p := range ordered(list) {
		if p.ChannelId == channelID && p.CreateAt >= since {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreateAt != out[j].CreateAt {
			return out[i].CreateAt < out[j].CreateAt
		}
		return out[i].Id < out[j].Id
	})
	return out, nil
}

// Thread is the thread a post the caller can read belongs to: the root
// first, then the replies oldest first.
func (c *Caller) Thread(postID string) ([]*model.Post, error) {
	p, err := c.Post(postID)
	if err != nil {
		return nil, err
	}
	rootID := p.Id
	if p.RootId != "" {
		rootID = p.RootId
	}
	list, err := c.g.api.Post.GetPostThread(rootID)
	if err != nil {
		return nil, notFoundOr(err, "read thread")
	}
	var out []*model.Post
	for _, q := range list.Posts {
		if q.DeleteAt == 0 && q.ChannelId == p.ChannelId && (q.Id == rootID || q.RootId == rootID) {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Id == rootID) != (out[j].Id == rootID) {
			return out[i].Id == rootID
		}
		if out[i].CreateAt != out[j].CreateAt {
			return out[i].CreateAt < out[j].CreateAt
		}
		return out[i].Id < out[j].Id
	})
	return out, nil
}

// SearchPosts runs Mattermost's post search (its own syntax: from:, in:,
// before:, after:, on:, quotes, -exclusions) as the caller in one of their
// teams, dates in UTC. Each hit is checked again: only posts the caller can
// read come back, newest first.
func (c *Caller) SearchPosts(teamID, terms string, page, perPage int) ([]*model.Post, error) {
	return c.search(teamID, terms, false, page, perPage)
}

// SearchPostsAnyTerm is SearchPosts matching posts that hold any one of
// the terms rather than all of them.
func (c *Caller) SearchPostsAnyTerm(teamID, terms string, perPage int) ([]*model.Post, error) {
	return c.search(teamID, terms, true, 0, perPage)
}

// search is SearchPosts, matching any of the terms when anyTerm is set.
func (c *Caller) search(teamID, terms string, anyTerm bool, page, perPage int) ([]*model.Post, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	utc := 0
	// Archived channels are searched as the webapp searches them: when the
	// server lets people view archived channels.
	archived := c.policy().viewArchived
	res, appErr := c.g.raw.SearchPostsInTeamForUser(teamID, c.userID, model.SearchParameter{
		Terms: &terms, IsOrSearch: &anyTerm, TimeZoneOffset: &utc, Page: &page, PerPage: &perPage, IncludeDeletedChannels: &archived,
	})
	if appErr != nil {
		return nil, fmt.Errorf("search posts: %w", appErr)
	}
	if res == nil || res.PostList == nil {
		return nil, nil
	}
	canRead := c.readCheck()
	var out []*model.Post
	for _, p := range ordered(res.PostList) {
		if canRead(p.ChannelId) {
			out = append(out, p)
		}
	}
	return out, nil
}

// PostFiles are the attachments of a post the caller has already read
// through this Caller, in the post's order. Deleted ones are left out.
func (c *Caller) PostFiles(p *model.Post) ([]*model.FileInfo, error) {
	var out []*model.FileInfo
	for _, id := range p.FileIds {
		if info, ok := c.postFile(p, id); ok {
			out = append(out, info)
			continue
		}
		r, err := c.g.fileRecord(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if r.info.DeleteAt != 0 || r.info.PostId != p.Id {
			continue
		}
		c.g.keepFile(r)
		out = append(out, r.info)
	}
	return out, nil
}

// ordered is a post list in its own order, without deleted posts.
func ordered(list *model.PostList) []*model.Post {
	if list == nil {
		return nil
	}
	out := make([]*model.Post, 0, len(list.Order))
	for _, id := range list.Order {
		if p, ok := list.Posts[id]; ok && p.DeleteAt == 0 {
			out = append(out, p)
		}
	}
	return out
}

// Authors are the accounts of people whose posts the caller has read through
// this Caller, by id, as Mattermost shows them to the caller: the accounts
// as this node read them within accountFor, whom the caller may see asked
// now. Unknown ids, and people a restricted caller may not see, are left
// out.
func (c *Caller) Authors(ids []string) (map[string]*model.User, error) {
	out := make(map[string]*model.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	users, err := c.g.keptAccounts(ids)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("read post authors: %w", err)
	}
	for _, u := range users {
		out[u.Id] = u
	}
	if err := c.visibleOnly(out); err != nil {
		return nil, err
	}
	for id, u := range out {
		out[id] = c.shown(u)
	}
	return out, nil
}

// Replies counts the live replies of a post the caller can read (0 for a
// reply): Mattermost deletes them with their root. The count comes from
// Mattermost's Posts table: the plugin API would hand over the whole
// thread, every reply with its message, only to be counted.
func (c *Caller) Replies(p *model.Post) (int, error) {
	if p.RootId != "" {
		return 0, nil
	}
	if c.g.hasDB {
		if n, err := c.g.countReplies(p); err == nil {
			return n, nil
		}
	}
	thread, err := c.Thread(p.Id)
	if err != nil {
		return 0, err
	}
	return len(thread) - 1, nil
}

// countReplies counts a root's live replies in its channel.
func (g *Gateway) countReplies(root *model.Post) (int, error) {
	p, err := placeholders(g.driverName(), 2)
	if err != nil {
		return 0, err
	}
	db, err := g.api.Store.GetReplicaDB()
	if err != nil {
		return 0, err
	}
	var n int
	err = queryOneRow(db, "SELECT COUNT(*) FROM Posts WHERE RootId = "+p[0]+" AND ChannelId = "+p[1]+" AND DeleteAt = 0",
		[]any{root.Id, root.ChannelId}, 1, func(scan func(...any) error) error { return scan(&n) })
	return n, err
}

// The plugin API has no call for a channel's pinned posts nor for a
// person's saved (flagged) posts, so both are read from Mattermost's own
// tables, the way its store reads them, one page of ids at a time; every
// post then comes through the plugin API and is checked like any other.

// PostKey is where a newest-first listing of posts continues: after the
// post created at At with id ID. The zero key is the newest end.
type PostKey struct {
	At int64
	ID string
}

// String is the key as a cursor position.
func (k PostKey) String() string {
	if k.ID == "" {
		return ""
	}
	return strconv.FormatInt(k.At, 10) + "_" + k.ID
}

// ParsePostKey reads a position String made ("" is the newest end).
func ParsePostKey(s string) (PostKey, bool) {
	if s == "" {
		return PostKey{}, true
	}
	at, id, ok := strings.Cut(s, "_")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || !model.IsValidId(id) {
		return PostKey{}, false
	}
	return PostKey{At: n, ID: id}, true
}

// olderThan are the bind values of "(CreateAt, Id) before the key".
func (k PostKey) olderThan() (int64, int64, string) {
	if k.ID == "" {
		return math.MaxInt64, math.MaxInt64, ""
	}
	return k.At, k.At, k.ID
}

// postRef is a row of a post listing query.
type postRef struct {
	id, channelID string
	at            int64
}

// PostPage is one page of a post listing and where the next one starts
// (the zero key when nothing follows).
type PostPage struct {
	Posts []*model.Post
	Next  PostKey
}

// savedBatch is how many saved posts are read per query while skipping
// those the caller can no longer read.
const savedBatch = 200

// PinnedPosts are up to n pinned posts of a channel the caller can read,
// newest first, older than after.
func (c *Caller) PinnedPosts(channelID string, after PostKey, n int) (PostPage, error) {
	if _, err := c.Channel(channelID); err != nil {
		return PostPage{}, err
	}
	q := postQuery{
		sql:  "SELECT Id, ChannelId, CreateAt FROM Posts WHERE ChannelId = %s AND IsPinned = true AND DeleteAt = 0",
		args: []any{channelID}, batch: n + 1,
	}
	page, err := c.listPosts(q, after, n, func(string) bool { return true })
	if err != nil {
		return PostPage{}, fmt.Errorf("list pinned posts: %w", err)
	}
	return page, nil
}

// SavedPosts are up to n of the posts the caller saved (Mattermost's
// flagged posts) that they can still read, newest first, older than after.
func (c *Caller) SavedPosts(after PostKey, n int) (PostPage, error) {
	canRead := c.readCheck()
	q := postQuery{
		sql: "SELECT p.Id, p.ChannelId, p.CreateAt FROM Preferences pr JOIN Posts p ON p.Id = pr.Name" +
			" WHERE pr.UserId = %s AND pr.Category = '" + model.PreferenceCategoryFlaggedPost + "' AND p.DeleteAt = 0",
		args: []any{c.userID}, table: "p.", batch: savedBatch,
	}
	page, err := c.listPosts(q, after, n, canRead)
	if err != nil {
		return PostPage{}, fmt.Errorf("list saved posts: %w", err)
	}
	return page, nil
}

// postQuery selects posts (id, channel id, create time) by its own
// conditions, one %s per bind value in args; table qualifies the Posts
// columns ("p." when the query names Posts p).
type postQuery struct {
	sql   string
	args  []any
	table string
	batch int
}

// listPosts reads up to n posts the query finds, newest first and older
// than after, skipping those whose channel keep refuses, through the plugin
// API. Next is set only when a post follows the page.
func (c *Caller) listPosts(q postQuery, after PostKey, n int, keep func(channelID string) bool) (PostPage, error) {
	var page PostPage
	for {
		refs, err := c.g.postRefs(q, after)
		if err != nil {
			return PostPage{}, err
		}
		for _, r := range refs {
			if len(page.Posts) == n {
				page.Next = after
				return page, nil
			}
			after = PostKey{At: r.at, ID: r.id}
			if !keep(r.channelID) {
				continue
			}
			p, err := c.g.api.Post.GetPost(r.id)
			if err != nil && !isNotFound(err) {
				return PostPage{}, fmt.Errorf("read post: %w", err)
			}
			if err == nil && p.DeleteAt == 0 {
				page.Posts = append(page.Posts, p)
			}
		}
		if len(refs) < q.batch {
			return page, nil
		}
	}
}

// postRefs runs a post query for one batch older than after.
func (g *Gateway) postRefs(q postQuery, after PostKey) ([]postRef, error) {
	p, err := placeholders(g.driverName(), len(q.args)+3)
	if err != nil {
		return nil, err
	}
	own := make([]any, len(q.args))
	for i := range q.args {
		own[i] = p[i]
	}
	k, t := len(q.args), q.table
	query := fmt.Sprintf(q.sql, own...) + fmt.Sprintf(
		" AND (%sCreateAt < %s OR (%sCreateAt = %s AND %sId < %s)) ORDER BY %sCreateAt DESC, %sId DESC LIMIT %d",
		t, p[k], t, p[k+1], t, p[k+2], t, t, q.batch)
	before, same, id := after.olderThan()
	db, err := g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	var out []postRef
	err = queryRows(db, query, append(append([]any{}, q.args...), before, same, id), 3, func(scan func(...any) error) error {
		var r postRef
		if err := scan(&r.id, &r.channelID, &r.at); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

func closeRows(rows *sql.Rows) { _ = rows.Close() }
