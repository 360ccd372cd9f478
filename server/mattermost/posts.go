package mattermost

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

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
		info, err := c.g.api.File.GetInfo(id)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("read file info: %w", err)
		}
		if info.DeleteAt != 0 || info.PostId != p.Id {
			continue
		}
		out = append(out, info)
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
// this Caller, by id, as Mattermost shows them to the caller. Unknown ids,
// and people a restricted caller may not see, are left out.
func (c *Caller) Authors(ids []string) (map[string]*model.User, error) {
	out := make(map[string]*model.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	users, err := c.g.api.User.ListByUserIDs(ids)
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
// reply): Mattermost deletes them with their root.
func (c *Caller) Replies(p *model.Post) (int, error) {
	if p.RootId != "" {
		return 0, nil
	}
	thread, err := c.Thread(p.Id)
	if err != nil {
		return 0, err
	}
	return len(thread) - 1, nil
}

// DeleteOwnPost deletes one of the caller's own posts (with its replies and
// files, as Mattermost does), if their role lets them delete their posts
// in its channel.
func (c *Caller) DeleteOwnPost(postID string) error {
	p, err := c.Post(postID)
	if err != nil {
		return err
	}
	if p.UserId != c.userID || !c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionDeletePost) {
		return ErrNotYours
	}
	if err := c.notArchived(p.ChannelId); err != nil {
		return err
	}
	if appErr := c.g.raw.DeletePost(p.Id); appErr != nil {
		return notFoundOr(appErr, "delete post")
	}
	return nil
}

// SetPinned pins (or unpins) a post in a channel the caller can read and
// that is not archived, as Mattermost's own pin does: for everyone in it.
func (c *Caller) SetPinned(postID string, pinned bool) error {
	p, err := c.Post(postID)
	if err != nil {
		return err
	}
	if err := c.notArchived(p.ChannelId); err != nil {
		return err
	}
	if p.IsPinned == pinned {
		return nil
	}
	changed := p.Clone()
	changed.IsPinned = pinned
	if _, appErr := c.g.raw.UpdatePost(changed); appErr != nil {
		return fmt.Errorf("pin post: %w", appErr)
	}
	return nil
}

// notArchived answers ErrArchived for an archived channel: Mattermost
// changes nothing in one.
func (c *Caller) notArchived(channelID string) error {
	ch, err := c.Channel(channelID)
	if err != nil {
		return err
	}
	if ch.DeleteAt != 0 {
		return ErrArchived
	}
	return nil
}

// MayDeleteOwnPost reports whether the caller's role lets them delete their
// own post p.
func (c *Caller) MayDeleteOwnPost(p *model.Post) bool {
	return p.UserId == c.userID && c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionDeletePost)
}

// ErrNotYours refuses an edit of someone else's post.
var ErrNotYours = errors.New("not the caller's own post")

// MayPost reports whether the caller may post, and upload files, in a
// channel they can read.
func (c *Caller) MayPost(channelID string) (post, upload bool, err error) {
	if _, err := c.Channel(channelID); err != nil {
		return false, false, err
	}
	post = c.g.api.User.HasPermissionToChannel(c.userID, channelID, model.PermissionCreatePost)
	upload = c.g.api.User.HasPermissionToChannel(c.userID, channelID, model.PermissionUploadFile)
	return post, upload, nil
}

// ServerMaxFileSize is Mattermost's FileSettings.MaxFileSize in bytes.
func (c *Caller) ServerMaxFileSize() int64 {
	cfg := c.g.config()
	if cfg == nil || cfg.FileSettings.MaxFileSize == nil {
		return 100 << 20
	}
	return *cfg.FileSettings.MaxFileSize
}

// AttachmentsEnabled is Mattermost's FileSettings.EnableFileAttachments.
func (c *Caller) AttachmentsEnabled() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.FileSettings.EnableFileAttachments })
}

// MemberCount is how many people a channel the caller can read reaches.
func (c *Caller) MemberCount(channelID string) (int64, error) {
	if _, err := c.Channel(channelID); err != nil {
		return 0, err
	}
	stats, appErr := c.g.raw.GetChannelStats(channelID)
	if appErr != nil {
		return 0, fmt.Errorf("read channel stats: %w", appErr)
	}
	return stats.MemberCount, nil
}

// ErrCannotStartConversation refuses a direct or group message that does
// not exist yet to a caller whose role lacks create_direct_channel or
// create_group_channel: Mattermost's API checks these before it opens one.
// A conversation that exists already is only written in, which
// create_post in it decides.
var ErrCannotStartConversation = errors.New("the caller may not start this direct or group message")

// MayMessage reports, as ErrCannotStartConversation, whether the caller may
// write to others (people they can see) in a direct message (one other) or
// a group message (more): the conversation exists, or the caller's role
// lets them start it. Nothing is created.
func (c *Caller) MayMessage(otherIDs []string) error {
	_, err := c.conversation(otherIDs)
	return err
}

// conversation is the existing direct or group message of the caller and
// others (nil when there is none yet and the caller may start it).
func (c *Caller) conversation(otherIDs []string) (*model.Channel, error) {
	ids := []string{c.userID}
	for _, id := range otherIDs {
		if _, err := c.User(id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	name, perm := model.GetGroupNameFromUserIds(ids), model.PermissionCreateGroupChannel
	if len(otherIDs) == 1 {
		name, perm = model.GetDMNameFromIds(c.userID, otherIDs[0]), model.PermissionCreateDirectChannel
	}
	ch, err := c.g.api.Channel.GetByName("", name, false)
	if err == nil && ch != nil && (ch.Type == model.ChannelTypeDirect || ch.Type == model.ChannelTypeGroup) {
		return ch, nil
	}
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("find the conversation: %w", err)
	}
	if !c.g.api.User.HasPermissionTo(c.userID, perm) {
		return nil, ErrCannotStartConversation
	}
	return nil, nil
}

// DirectChannelWith opens (creating if needed and allowed) the caller's
// direct message with another person they can see.
func (c *Caller) DirectChannelWith(otherID string) (*model.Channel, error) {
	if ch, err := c.conversation([]string{otherID}); ch != nil || err != nil {
		return ch, err
	}
	ch, appErr := c.g.raw.GetDirectChannel(c.userID, otherID)
	if appErr != nil {
		return nil, fmt.Errorf("open direct message: %w", appErr)
	}
	return ch, nil
}

// GroupChannelWith opens (creating if needed and allowed) the group message
// of the caller and others they can see.
func (c *Caller) GroupChannelWith(otherIDs []string) (*model.Channel, error) {
	if ch, err := c.conversation(otherIDs); ch != nil || err != nil {
		return ch, err
	}
	ch, appErr := c.g.raw.GetGroupChannel(append([]string{c.userID}, otherIDs...))
	if appErr != nil {
		return nil, fmt.Errorf("open group message: %w", appErr)
	}
	return ch, nil
}

// CreatePost posts as the caller in a channel they may post in.
func (c *Caller) CreatePost(p *model.Post) (*model.Post, error) {
	post, _, err := c.MayPost(p.ChannelId)
	if err != nil {
		return nil, err
	}
	if !post {
		return nil, ErrNotFound
	}
	p.UserId = c.userID
	if err := c.g.api.Post.CreatePost(p); err != nil {
		return nil, fmt.Errorf("create post: %w", err)
	}
	return p, nil
}

// EditOwnPost changes the message of one of the caller's own posts.
func (c *Caller) EditOwnPost(postID, message string, props map[string]any) (*model.Post, error) {
	p, err := c.Post(postID)
	if err != nil {
		return nil, err
	}
	if p.UserId != c.userID {
		return nil, ErrNotYours
	}
	if !c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionEditPost) {
		return nil, ErrNotYours
	}
	edited := p.Clone()
	edited.Message = message
	for k, v := range props {
		edited.AddProp(k, v)
	}
	if err := c.g.api.Post.UpdatePost(edited); err != nil {
		return nil, fmt.Errorf("update post: %w", err)
	}
	return edited, nil
}

// React adds (or, with remove, takes back) the caller's reaction to a post
// they can read.
func (c *Caller) React(postID, emoji string, remove bool) error {
	p, err := c.Post(postID)
	if err != nil {
		return err
	}
	if !c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionAddReaction) {
		return ErrNotFound
	}
	r := &model.Reaction{UserId: c.userID, PostId: p.Id, EmojiName: emoji, ChannelId: p.ChannelId}
	if remove {
		if err := c.g.api.Post.RemoveReaction(r); err != nil {
			return fmt.Errorf("remove reaction: %w", err)
		}
		return nil
	}
	if err := c.g.api.Post.AddReaction(r); err != nil {
		return fmt.Errorf("add reaction: %w", err)
	}
	return nil
}

// Reactions are the reactions on a post the caller can read.
func (c *Caller) Reactions(postID string) ([]*model.Reaction, error) {
	if _, err := c.Post(postID); err != nil {
		return nil, err
	}
	rs, err := c.g.api.Post.GetReactions(postID)
	if err != nil {
		return nil, fmt.Errorf("read reactions: %w", err)
	}
	return rs, nil
}

// SavePost saves (flags) a post the caller can read, or takes it out of
// their saved posts.
func (v *OwnView) SavePost(postID string, save bool) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	pref := []model.Preference{{UserId: v.c.userID, Category: FlaggedPost, Name: p.Id, Value: "true"}}
	if save {
		if appErr := v.c.g.raw.UpdatePreferencesForUser(v.c.userID, pref); appErr != nil {
			return nil, fmt.Errorf("save post: %w", appErr)
		}
		return p, nil
	}
	if appErr := v.c.g.raw.DeletePreferencesForUser(v.c.userID, pref); appErr != nil && appErr.StatusCode != http.StatusNotFound {
		return nil, fmt.Errorf("unsave post: %w", appErr)
	}
	return p, nil
}

// SetPostReminder has Mattermost remind the caller of a post they can read
// at a time (its system bot sends them a message then). A later reminder
// for the same post replaces this one.
func (v *OwnView) SetPostReminder(ctx context.Context, postID string, at time.Time) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	resp, err := client.SetPostReminder(ctx, &model.PostReminder{UserId: v.c.userID, PostId: p.Id, TargetTime: at.Unix()})
	if err := restErr("set reminder at "+strconv.FormatInt(at.Unix(), 10), resp, err); err != nil {
		return nil, err
	}
	return p, nil
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
	rows, err := db.Query(query, append(append([]any{}, q.args...), before, same, id)...)
	if err != nil {
		return nil, err
	}
	defer closeRows(rows)
	var out []postRef
	for rows.Next() {
		var r postRef
		if err := rows.Scan(&r.id, &r.channelID, &r.at); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func closeRows(rows *sql.Rows) { _ = rows.Close() }
