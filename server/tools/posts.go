package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/postcontent"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// Bounds of the post tools.
const (
	// maxMessageRunes cuts one message: 4,000 characters is about 1k tokens,
	// so a full page of long messages stays a readable answer.
	maxMessageRunes = 4000
	defaultPosts    = 30
	maxPosts        = 100
	defaultThread   = 50
	maxThread       = 200
	defaultHits     = 20
	maxHits         = 100
	// maxHitDepth is how deep search_posts pages: past it, the search
	// should be narrowed rather than paged.
	maxHitDepth = 500
	// fetchBatch is how many posts read_channel asks Mattermost for at once.
	fetchBatch = 100
	// maxScanBatches bounds how far read_channel walks back past posts
	// newer than its before date in one call.
	maxScanBatches = 20
)

// PostView is a post in structured answers.
type PostView struct {
	ID          string            `json:"id"`
	ChannelID   string            `json:"channel_id"`
	ChannelName string            `json:"channel_name"`
	Author      string            `json:"author"`
	AuthorID    string            `json:"author_id"`
	Time        string            `json:"time"`
	Message     string            `json:"message"`
	MessageCut  bool              `json:"message_cut,omitempty"`
	RootID      string            `json:"root_id,omitempty"`
	ReplyCount  int64             `json:"reply_count,omitempty"`
	Type        string            `json:"type,omitempty"`
	Attachments []present.FileRef `json:"attachments"`
	Permalink   string            `json:"permalink"`
	// Hidden says what the message carried that Mattermost does not
	// display, now shown in it; empty when nothing was hidden.
	Hidden string `json:"hidden_characters,omitempty"`
	// Content is what the post holds besides its message (post_content.go).
	postcontent.Content
	// PostContext is what Mattermost shows around it (post_context.go).
	PostContext
}

// PostPage is the structured answer of the post tools.
type PostPage struct {
	Channel    *ChannelInfo `json:"channel,omitempty"`
	Posts      []PostView   `json:"posts"`
	NextCursor string       `json:"next_cursor,omitempty"`
	// Complete is true when nothing is left to page through.
	Complete bool `json:"complete"`
}

// postWriter turns posts the caller has read into PostViews and lines of
// text, looking up authors, attachments and teams once each.
type postWriter struct {
	c       *mattermost.Caller
	site    string
	authors map[string]*model.User
	teams   map[string]string // channel id -> team name ("" for DMs)
	chans   map[string]string // channel id -> ~name or display name
	content contentFacts
	ctx     pageContext
}

func newPostWriter(c *mattermost.Caller, posts []*model.Post) (*postWriter, error) {
	ids := map[string]bool{}
	var list []string
	for _, p := range posts {
		if !ids[p.UserId] {
			ids[p.UserId] = true
			list = append(list, p.UserId)
		}
	}
	authors, err := c.Authors(list)
	if err != nil {
		return nil, err
	}
	c.KnowFilesOf(posts) // one query for the page's attachments
	w := &postWriter{c: c, site: c.SiteURL(), authors: authors, teams: map[string]string{}, chans: map[string]string{}}
	if err := w.lookContent(posts); err != nil {
		return nil, err
	}
	return w, w.loadContext(posts)
}

func (w *postWriter) teamName(channelID string) (string, error) {
	if name, ok := w.teams[channelID]; ok {
		return name, nil
	}
	name := ""
	ch, err := w.c.Channel(channelID)
	if err != nil {
		return "", err
	}
	w.chans[channelID] = present.Name(ch.DisplayName)
	if ch.Type == model.ChannelTypeOpen || ch.Type == model.ChannelTypePrivate {
		w.chans[channelID] = "~" + ch.Name
	}
	if ch.TeamId != "" {
		t, err := w.c.Team(ch.TeamId)
		if err != nil && !errors.Is(err, mattermost.ErrNotFound) {
			return "", err
		}
		if t != nil {
			name = t.Name
		}
	}
	w.teams[channelID] = name
	return name, nil
}

func (w *postWriter) view(p *model.Post) (PostView, error) {
	team, err := w.teamName(p.ChannelId)
	if err != nil {
		return PostView{}, err
	}
	files, err := w.c.PostFiles(p)
	if err != nil {
		return PostView{}, err
	}
	author := "unknown user"
	if u, ok := w.authors[p.UserId]; ok {
		author = "@" + u.Username
	}
	v := PostView{
		ID: p.Id, ChannelID: p.ChannelId, ChannelName: w.chans[p.ChannelId], Author: author, AuthorID: p.UserId, Time: rfc3339(p.CreateAt),
		RootID: p.RootId, ReplyCount: w.replyCount(p), Type: p.Type, Attachments: []present.FileRef{},
		Permalink: present.Permalink(w.site, team, p.Id),
	}
	v.Message, v.MessageCut, v.Hidden = messageOf(p.Message)
	w.addContent(&v, p)
	v.PostContext = w.contextOf(p)
	for _, f := range files {
		v.Attachments = append(v.Attachments, present.RefOf(f))
	}
	return v, nil
}

// messageOf is a post's message as the model reads it: cut at
// maxMessageRunes (before revealing, so a marker is never cut in half and
// the reveal stays bounded), what it hides shown, and the note that says so.
func messageOf(msg string) (text string, cut bool, note string) {
	msg, cut = present.Cut(msg, maxMessageRunes)
	text, found := present.Text(msg)
	return text, cut, found.Note("This post")
}

// text is a post as the model reads it.
func postText(b *strings.Builder, v PostView) {
	fmt.Fprintf(b, "\n[%s] %s in %s (post %s", v.Time, present.Name(v.Author), present.Name(v.ChannelName), v.ID)
	if v.RootID != "" {
		fmt.Fprintf(b, ", reply in thread %s", v.RootID)
	}
	b.WriteString(contextHeader(v))
	b.WriteString(postKind(v) + "):\n")
	if v.Message != "" {
		for _, line := range strings.Split(v.Message, "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	if v.Hidden != "" {
		fmt.Fprintf(b, "  [%s]\n", v.Hidden)
	}
	if v.MessageCut {
		fmt.Fprintf(b, "  [message cut at %d characters; the whole post is at %s]\n", maxMessageRunes, v.Permalink)
	}
	for _, line := range v.Content.Lines() {
		b.WriteString("  " + line + "\n")
	}
	for _, f := range v.Attachments {
		b.WriteString("  " + present.FileLine(f) + "\n")
	}
	contextLines(b, v.PostContext)
	fmt.Fprintf(b, "  link: %s\n", v.Permalink)
}

// parseDate reads an RFC 3339 time or a YYYY-MM-DD date (midnight UTC).
func parseDate(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// ---- read_channel

type readChannelArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Since   string `json:"since,omitempty" jsonschema:"Only posts at or after: RFC 3339 or a date (midnight UTC)."`
	Before  string `json:"before,omitempty" jsonschema:"Only posts before: RFC 3339 or a date (midnight UTC)."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	Replies string `json:"replies,omitempty" jsonschema:"collapsed: thread roots with reply counts; inline: every post. Default: your setting."`
	paged
}

func readChannel(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "read_channel",
		Title:       "Read a Mattermost channel",
		Description: "Reads a channel's posts, newest first, paged, optionally since or before a time; each attachment carries the file_id read_file takes.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
		View: resources.ThreadView,
	}, d.readChannel)
}

func (d Deps) readChannel(ctx context.Context, args readChannelArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	since, ok1 := parseDate(args.Since)
	before, ok2 := parseDate(args.Before)
	if !ok1 || !ok2 {
		return res, refusal.New("since and before take an RFC 3339 time (2024-05-01T09:00:00Z) or a date (2024-05-01).", "Call again with one of those forms.")
	}
	if since != 0 && before != 0 && since >= before {
		return res, refusal.New("since must be earlier than before.", "Call again with since before before.")
	}
	pc, from, err := openPage("read_channel", args)
	if err != nil {
		return res, err
	}
	c, view, err := d.channelOf(ctx, args.Channel, args.Team)
	if err != nil {
		return res, err
	}
	collapsed, chosen, err := repliesMode(c, args.Replies)
	if err != nil {
		return res, err
	}
	walk, err := walkChannel(c, view.ch.Id, from, since, before, limit, collapsed)
	if err != nil {
		return res, err
	}
	page, _, err := pc.channelPage(c, view, walk)
	if err != nil {
		return res, err
	}

	return readChannelAnswer(channelPosts{cursor: pc, view: view, page: page, firstPage: from == "", since: since, before: before,
		collapsed: collapsed, chosen: chosen, skippedReplies: walk.skippedReplies, scannedOut: walk.scannedOut})
}

// channelPosts is what read_channel fetched: one page of a channel's
// posts, newest first, in the range asked.
type channelPosts struct {
	cursor pageCursor
	view   place
	page   PostPage
	// firstPage is a call without cursor.
	firstPage bool
	// since and before are the range asked, 0 where open.
	since, before int64
	// collapsed, chosen and skippedReplies say how replies were treated.
	collapsed, chosen bool
	skippedReplies    int
	// scannedOut is a walk that stopped at maxScanBatches.
	scannedOut bool
}

// readChannelAnswer writes read_channel's answer.
func readChannelAnswer(f channelPosts) (catalogue.Result[PostPage], error) {
	pc, view, page, since, before := f.cursor, f.view, f.page, f.since, f.before
	var b strings.Builder
	rng := ""
	if since != 0 || before != 0 {
		rng = " in the range asked (" + rangeText(since, before) + ")"
	}
	if len(page.Posts) == 0 {
		fmt.Fprintf(&b, "Channel %s: no posts%s", view.shown(), rng)
		if !f.firstPage {
			b.WriteString(" older than the previous page")
		}
		b.WriteString(".")
	} else {
		fmt.Fprintf(&b, "Channel %s: %s%s, newest first, from %s back to %s.",
			view.shown(), present.Count(len(page.Posts), "post", "posts"), rng, page.Posts[0].Time, page.Posts[len(page.Posts)-1].Time)
	}
	collapsedNote(&b, f.collapsed, f.chosen, f.skippedReplies)
	more, done := "Older posts", "This is the start of the channel: there are no older posts."
	if since != 0 {
		done = "These are all the posts in the range asked."
	}
	if page.NextCursor != "" && f.scannedOut && len(page.Posts) == 0 {
		more = fmt.Sprintf("Walked back %d posts without finding one to show yet. Continue with", maxScanBatches*fetchBatch)
	}
	pc.writePosts(&b, page, more, done)
	return answerLinked(b.String(), page, postLinks(page.Posts...))
}

// channelWalk is what walking a channel back from a position found.
type channelWalk struct {
	shown []*model.Post
	// pos is the last post walked past, where the next page continues.
	pos      string
	complete bool
	// scannedOut is a walk that stopped at maxScanBatches before filling
	// the page (posts newer than before, or replies, were skipped).
	scannedOut bool
	// skippedReplies counts the replies a collapsed walk passed over.
	skippedReplies int
}

// channelPage is the page a channel walk shows, with the channel's facts
// (also answered on their own), continuing where the walk stopped unless
// it reached its end.
func (pc pageCursor) channelPage(c *mattermost.Caller, view place, walk channelWalk) (PostPage, ChannelInfo, error) {
	next := ""
	if !walk.complete {
		next = walk.pos
	}
	page, err := pc.postPage(c, walk.shown, next)
	if err != nil {
		return page, ChannelInfo{}, err
	}
	ci := view.info()
	page.Channel = &ci
	return page, ci, nil
}

// walkChannel reads a channel's posts back from the post at from (the
// newest when empty), skipping those at or after before and stopping at
// since, until limit posts are shown; collapsed shows thread roots only
// (the cursor position still moves past the replies).
func walkChannel(c *mattermost.Caller, chID, from string, since, before int64, limit int, collapsed bool) (channelWalk, error) {
	w := channelWalk{pos: from}
	for batches := 0; ; batches++ {
		if batches == maxScanBatches {
			w.scannedOut = true
			return w, nil
		}
		batch, err := c.ChannelPosts(chID, w.pos, fetchBatch)
		if errors.Is(err, mattermost.ErrNotFound) && w.pos != "" {
			return w, refusal.New("The post this cursor continues from is no longer there (deleted, or the channel changed).",
				"Call read_channel again without cursor, with before set to the time of the oldest post you have.")
		}
		if err != nil {
			return w, err
		}
		for i, p := range batch {
			if before != 0 && p.CreateAt >= before {
				w.pos = p.Id
				continue
			}
			if since != 0 && p.CreateAt < since {
				w.complete = true
				return w, nil
			}
			w.pos = p.Id
			if collapsed && p.RootId != "" {
				w.skippedReplies++
				continue
			}
			w.shown = append(w.shown, p)
			if len(w.shown) == limit {
				w.complete = nothingFollows(batch[i+1:], since, collapsed, len(batch) < fetchBatch)
				return w, nil
			}
		}
		if len(batch) < fetchBatch {
			w.complete = true
			return w, nil
		}
	}
}

// nothingFollows reports whether a walk that filled its page has nothing
// left to show: the rest of the batch reaches since, or the end of the
// channel (last), with only posts it would not show (replies, when
// collapsed) before that.
func nothingFollows(rest []*model.Post, since int64, collapsed, last bool) bool {
	for _, p := range rest {
		switch {
		case since != 0 && p.CreateAt < since:
			return true
		case !collapsed || p.RootId == "":
			return false
		}
	}
	return last
}

func rangeText(since, before int64) string {
	var parts []string
	if since != 0 {
		parts = append(parts, "since "+rfc3339(since))
	}
	if before != 0 {
		parts = append(parts, "before "+rfc3339(before))
	}
	return strings.Join(parts, ", ")
}
