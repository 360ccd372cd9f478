package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/postcontent"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
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
	if r := []rune(msg); len(r) > maxMessageRunes {
		msg, cut = string(r[:maxMessageRunes]), true
	}
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
	Cursor  string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func readChannel(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "read_channel",
		Title:       "Read a Mattermost channel",
		Description: "Reads a channel's posts, newest first, paged, optionally since or before a time; each attachment carries the file_id read_file takes.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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
	keyArgs := args
	keyArgs.Cursor = ""
	pc, from, err := openCursor("read_channel", args, keyArgs, args.Cursor)
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
	return answer(b.String(), page)
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

// ---- read_thread

type readThreadArgs struct {
	Post   string `json:"post" jsonschema:"Any post of the thread: id or permalink."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-200; default 50."`
	Cursor string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func readThread(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "read_thread",
		Title:       "Read a Mattermost thread",
		Description: "Reads a whole thread from any of its posts (id or permalink): the root post, then the replies oldest first, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.readThread)
}

func (d Deps) readThread(ctx context.Context, args readThreadArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultThread, maxThread)
	if err != nil {
		return res, err
	}
	postID := strings.TrimSpace(args.Post)
	if link, ok := parsePostLink(postID); ok {
		postID = link
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, offset, err := openOffset("read_thread", args, keyArgs, args.Cursor)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	thread, err := c.Thread(postID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return res, refusal.New(fmt.Sprintf("No post %q found.", present.Name(args.Post)), "Give a post id or permalink from read_channel or search_posts.")
	}
	if err != nil {
		return res, err
	}
	page, end, err := pc.offsetPage(c, thread, offset, limit)
	if err != nil {
		return res, err
	}
	return readThreadAnswer(threadPosts{cursor: pc, rootID: thread[0].Id, total: len(thread), page: page, offset: offset, end: end})
}

// threadPosts is what read_thread fetched: one page of a thread, oldest
// first.
type threadPosts struct {
	cursor pageCursor
	rootID string
	// total counts the thread's posts, the root included.
	total int
	page  PostPage
	// offset and end are the page's place in the thread.
	offset, end int
}

// readThreadAnswer writes read_thread's answer.
func readThreadAnswer(f threadPosts) (catalogue.Result[PostPage], error) {
	page := f.page
	var b strings.Builder
	fmt.Fprintf(&b, "Thread of post %s (%s: the root and %s). Showing posts %d to %d, oldest first.",
		f.rootID, present.Count(f.total, "post", "posts"), present.Count(f.total-1, "reply", "replies"), f.offset+1, f.end)
	f.cursor.writePosts(&b, page, "More replies", "This is the end of the thread.")
	return answer(b.String(), page)
}

// parsePostLink reads the post id out of a permalink.
func parsePostLink(s string) (string, bool) {
	i := strings.LastIndex(s, "/pl/")
	if i < 0 || !strings.HasPrefix(s, "http") {
		return "", false
	}
	id := strings.SplitN(s[i+len("/pl/"):], "?", 2)[0]
	return strings.Trim(id, "/"), true
}

// ---- search_posts

type searchPostsArgs struct {
	Terms  string `json:"terms" jsonschema:"Words, \"phrases\", -excluded, word* prefixes, from:username, in:channel-name, before:/after:/on:YYYY-MM-DD (UTC)."`
	Team   string `json:"team,omitempty" jsonschema:"Only this team; left out: all your teams."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 20."`
	Cursor string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func searchPosts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "search_posts",
		Title:       "Search Mattermost posts",
		Description: "Searches the posts you can read with Mattermost's search syntax, in one team or all of yours, newest first, paged, with channels and attachments.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.searchPosts)
}

func (d Deps) searchPosts(ctx context.Context, args searchPostsArgs) (res catalogue.Result[PostPage], err error) {
	if strings.TrimSpace(args.Terms) == "" {
		return res, refusal.New("Give terms:", "words to search for, or from:username, in:channel, on:YYYY-MM-DD.")
	}
	limit, err := limitOf(args.Limit, defaultHits, maxHits)
	if err != nil {
		return res, err
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, offset, err := openOffset("search_posts", args, keyArgs, args.Cursor)
	if err != nil {
		return res, err
	}
	if offset+limit > maxHitDepth {
		return res, refusal.New(fmt.Sprintf("Search results are paged only to the first %d hits.", maxHitDepth),
			"Narrow the search (add in:, from:, after: or more words) and call search_posts again without cursor.")
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	ms, team, err := teamScope(c, args.Team)
	if err != nil {
		return res, err
	}
	seen := map[string]bool{}
	var hits []*model.Post
	for _, m := range ms {
		if team != nil && m.Team.Id != team.Id {
			continue
		}
		found, err := c.SearchPosts(m.Team.Id, args.Terms, 0, offset+limit+1)
		if err != nil {
			return res, err
		}
		for _, p := range found {
			if !seen[p.Id] {
				seen[p.Id] = true
				hits = append(hits, p)
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].CreateAt > hits[j].CreateAt })
	page, end, err := pc.offsetPage(c, hits, offset, limit)
	if err != nil {
		return res, err
	}
	return searchPostsAnswer(foundPosts{cursor: pc, terms: args.Terms, team: team, page: page, offset: offset, end: end})
}

// foundPosts is what search_posts fetched: one page of the posts matching
// terms in team (nil: all the caller's teams), newest first.
type foundPosts struct {
	cursor pageCursor
	terms  string
	team   *model.Team
	page   PostPage
	// offset and end are the page's place in the results.
	offset, end int
}

// searchPostsAnswer writes search_posts' answer.
func searchPostsAnswer(f foundPosts) (catalogue.Result[PostPage], error) {
	pc, page, offset, end := f.cursor, f.page, f.offset, f.end
	var b strings.Builder
	where := "all your teams"
	if f.team != nil {
		where = "team " + f.team.Name
	}
	if len(page.Posts) == 0 {
		fmt.Fprintf(&b, "No posts you can read match %s in %s", strconv.Quote(f.terms), where)
		if offset > 0 {
			b.WriteString(" beyond the previous page")
		}
		b.WriteString(". Try fewer or other words, a word* prefix, or drop from:/in:/date filters.")
		return answer(b.String(), page)
	}
	fmt.Fprintf(&b, "Posts matching %s in %s, newest first: results %d to %d.", strconv.Quote(f.terms), where, offset+1, end)
	pc.writePosts(&b, page, "More results", "These are all the results.")
	return answer(b.String(), page)
}

// delete_post, pin_post and unpin_post: changes to a post others see.

var (
	deleteHints = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	pinHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unpinHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
)

type postIDArgs struct {
	PostID string `json:"post_id"`
}

func postChangeTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "delete_post", Title: "Delete one of your posts", Hints: deleteHints, Effect: catalogue.ChangesMattermost,
			Description: "Deletes one of the person's own posts, with its replies and files." + confirmationNote,
		}, d.deletePost),
		catalogue.Define(catalogue.Tool{
			Name: "pin_post", Title: "Pin a post", Hints: pinHints, Effect: catalogue.ChangesMattermost,
			Description: "Pins a post the person can read to its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, approval.ActionPin)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unpin_post", Title: "Unpin a post", Hints: unpinHints, Effect: catalogue.ChangesMattermost,
			Description: "Unpins a pinned post from its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, approval.ActionUnpin)
		}),
	}
}

func (d Deps) deletePost(ctx context.Context, a postIDArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return res, refusal.New("That post is not the signed-in person's own: only their own posts can be deleted.", "")
	}
	if !c.MayDeleteOwnPost(p) {
		return res, refusal.New("The person's role does not let them delete their posts in that channel; nothing was asked.", "")
	}
	plan, err := postChange(c, p, ch, approval.ActionDelete)
	if err != nil {
		return res, err
	}
	gone := "Everyone in " + plan.Dest.PlaceText() + " stops seeing the post"
	if plan.Target.Replies > 0 {
		gone += " and its replies, including other people's"
	}
	plan.Notes = []string{gone + "; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

func (d Deps) pin(ctx context.Context, a postIDArgs, action string) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if ch.DeleteAt != 0 {
		return res, refusal.New("That post's channel is archived: nothing in it can be pinned or unpinned.", "")
	}
	if p.IsPinned == (action == approval.ActionPin) {
		state := "already pinned"
		if action == approval.ActionUnpin {
			state = "not pinned"
		}
		return res, refusal.Newf("Post %s is %s; nothing needs to change.", p.Id, state)
	}
	plan, err := postChange(c, p, ch, action)
	if err != nil {
		return res, err
	}
	plan.Notes = []string{"Everyone in " + plan.Dest.PlaceText() + " sees the change in the channel's pinned messages; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

// postChange is the plan of a change to a post: the post as it reads now,
// who wrote it, and the replies and files that go with it.
func postChange(c *mattermost.Caller, p *model.Post, ch *model.Channel, action string) (posting.Plan, error) {
	replies, err := c.Replies(p)
	if err != nil {
		return posting.Plan{}, err
	}
	files, err := c.PostFiles(p)
	if err != nil {
		return posting.Plan{}, err
	}
	t := &posting.PostTarget{AuthorID: p.UserId, EditAt: p.EditAt, Replies: replies, Files: make([]string, len(files))}
	for i, f := range files {
		t.Files[i] = f.Name
	}
	if author, err := c.Poster(p.UserId); err == nil {
		t.Author = author.Username
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: action, PostID: p.Id, Previous: p.Message, Target: t,
		Dest: placeOf(c, ch).destination(c)}
	if plan.Dest.Where == "" {
		return plan, fmt.Errorf("no place for channel %s", ch.Id)
	}
	return plan, nil
}

type reminderArgs struct {
	PostID    string `json:"post_id"`
	At        string `json:"at,omitempty" jsonschema:"RFC 3339, or 2024-05-01T09:00 in the person's time zone."`
	InMinutes int    `json:"in_minutes,omitempty" jsonschema:"Or: this many minutes from now."`
}

// savedPostTools are save_post and unsave_post: the person's Saved messages.
func savedPostTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "save_post", Title: "Save a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Adds a post the person can read to their Saved messages in Mattermost." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, true)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unsave_post", Title: "Unsave a post", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView,
			Description: "Takes a post out of the person's Saved messages in Mattermost; a post not saved is fine." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, false)
		}),
	}
}

// reminderTools are set_post_reminder: a reminder only the person gets.
func reminderTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "set_post_reminder", Title: "Remind me of a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Has Mattermost's bot remind the person of a post they can read at a time; a new reminder replaces the old one." + ownViewNote,
		}, d.setPostReminder),
	}
}

func (d Deps) savePost(ctx context.Context, a postRefArgs, save bool) (res catalogue.Result[OwnViewResult], err error) {
	_, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	p, err := v.SavePost(strings.TrimSpace(a.PostID), save)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	return answer(savedAnswer(p, save))
}

// savedAnswer says post p is now saved (save) or not.
func savedAnswer(p *model.Post, save bool) (string, OwnViewResult) {
	if save {
		return fmt.Sprintf("Post %s is in the person's Saved messages.", p.Id),
			OwnViewResult{Done: "post_saved", ChannelID: p.ChannelId, PostID: p.Id}
	}
	return fmt.Sprintf("Post %s is not in the person's Saved messages.", p.Id), OwnViewResult{Done: "post_unsaved", ChannelID: p.ChannelId, PostID: p.Id}
}

func (d Deps) setPostReminder(ctx context.Context, a reminderArgs) (res catalogue.Result[OwnViewResult], err error) {
	c, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	loc := c.Location()
	at, err := timeAhead(a.At, a.InMinutes, time.Now(), loc)
	if err != nil {
		return res, err
	}
	p, err := v.SetPostReminder(ctx, strings.TrimSpace(a.PostID), at)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	return answer(reminderAnswer(p, at, loc))
}

// reminderAnswer says Mattermost will remind the person of post p at at,
// in their time zone loc.
func reminderAnswer(p *model.Post, at time.Time, loc *time.Location) (string, OwnViewResult) {
	return fmt.Sprintf("Mattermost will remind the person of post %s at %s (their time, %s): its system bot messages them then.",
			p.Id, present.Name(at.In(loc).Format("Mon 2 Jan 2006 15:04")), loc),
		OwnViewResult{Done: "reminder_set", ChannelID: p.ChannelId, PostID: p.Id, At: at.UTC().Format(time.RFC3339)}
}

// Hints of the write tools: posting reaches other people (open world) and
// is never idempotent.
var (
	postHints     = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	editHints     = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	reactHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unreactHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
	maxGroupOther = 7
)

const filesNote = " files: up to 10, each {name, content}, {file_id}, {workspace_file} or {handle}; a file changed before sending is refused."

type createPostArgs struct {
	Channel string          `json:"channel" jsonschema:"Id (best), ~name, display name or link."`
	Team    string          `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	RootID  string          `json:"root_id,omitempty" jsonschema:"A post id to reply to, in its thread."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type dmArgs struct {
	User    string          `json:"user" jsonschema:"The person: an @username or a user id."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type groupMessageArgs struct {
	Users   []string        `json:"users" jsonschema:"The 2 to 7 other people: @usernames or user ids."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type updatePostArgs struct {
	PostID  string `json:"post_id" jsonschema:"The id of one of the person's own posts."`
	Message string `json:"message" jsonschema:"The new message; it replaces the old one."`
}

type reactionArgs struct {
	PostID string `json:"post_id"`
	Emoji  string `json:"emoji_name" jsonschema:"Emoji name without colons, e.g. thumbsup: a standard emoji or one of the server's custom emoji (list_emoji)."`
}

// postWriteTools are create_post, dm, group_message, update_post,
// add_reaction and remove_reaction.
func postWriteTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "create_post", Title: "Post in a channel", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Posts as the person in a channel, or a thread with root_id, marked as written by an AI for them." + filesNote + confirmationNote,
		}, d.createPost),
		catalogue.Define(catalogue.Tool{
			Name: "dm", Title: "Send a direct message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a direct message, with files as for create_post, from the person to one other person." + confirmationNote,
		}, d.dm),
		catalogue.Define(catalogue.Tool{
			Name: "group_message", Title: "Send a group message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a group message, with files as for create_post, from the person to 2 to 7 other people." + confirmationNote,
		}, d.groupMessage),
		catalogue.Define(catalogue.Tool{
			Name: "update_post", Title: "Edit one of your posts", Hints: editHints, Effect: catalogue.ChangesMattermost,
			Description: "Replaces the message of one of the person's own posts; its files stay." + confirmationNote,
		}, d.updatePost),
		catalogue.Define(catalogue.Tool{
			Name: "add_reaction", Title: "React to a post", Hints: reactHints, Effect: catalogue.ChangesMattermost,
			Description: "Adds the person's emoji reaction to a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, false)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "remove_reaction", Title: "Take back a reaction", Hints: unreactHints, Effect: catalogue.ChangesMattermost,
			Description: "Removes the person's own emoji reaction from a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, true)
		}),
	}
}

func (d Deps) createPost(ctx context.Context, a createPostArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	dest := view.destination(c)
	dest.RootID = strings.TrimSpace(a.RootID)
	return d.post(ctx, c, dest, a.Message, a.Files)
}

func (d Deps) dm(ctx context.Context, a dmArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	u, err := c.User(a.User)
	if err != nil {
		return res, personRefusal(err, a.User)
	}
	if u.Id == c.UserID() {
		return res, refusal.New("That is the signed-in person themselves; give someone else.", "")
	}
	if err := c.MayMessage([]string{u.Id}); err != nil {
		return res, conversationRefusal(err, "a direct message with @"+u.Username, "create_direct_channel")
	}
	dest := posting.Destination{UserIDs: []string{u.Id}, Label: "a direct message with @" + u.Username,
		Place: "your direct message with @" + u.Username, Where: "a direct message from you to @" + u.Username, Recipients: []string{"@" + u.Username}}
	return d.post(ctx, c, dest, a.Message, a.Files)
}

func (d Deps) groupMessage(ctx context.Context, a groupMessageArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	seen := map[string]bool{c.UserID(): true}
	var ids, names []string
	for _, ref := range a.Users {
		u, err := c.User(ref)
		if err != nil {
			return res, personRefusal(err, ref)
		}
		if !seen[u.Id] {
			seen[u.Id] = true
			ids = append(ids, u.Id)
			names = append(names, "@"+u.Username)
		}
	}
	if len(ids) < 2 || len(ids) > maxGroupOther {
		return res, refusal.Newf("A group message is with 2 to %d other people; %d were given. For one person use dm; for more, a channel.", maxGroupOther, len(ids))
	}
	if err := c.MayMessage(ids); err != nil {
		return res, conversationRefusal(err, "a group message with "+strings.Join(names, ", "), "create_group_channel")
	}
	dest := posting.Destination{UserIDs: ids, Label: "a group message with " + strings.Join(names, ", "),
		Place: "your group message with " + strings.Join(names, ", "), Where: "a group message from you to " + strings.Join(names, ", "), Recipients: names}
	return d.post(ctx, c, dest, a.Message, a.Files)
}

// conversationRefusal words a direct or group message the person may not
// start, before they are asked: Mattermost's API refuses to open one
// without the permission, so asking would only end in a failure.
func conversationRefusal(err error, what, permission string) error {
	if errors.Is(err, mattermost.ErrCannotStartConversation) {
		return refusal.New(fmt.Sprintf("The person has no %s yet, and Mattermost does not let them start one: their role lacks the %s permission. Nothing was asked or posted.", what, permission),
			"Tell the person; an admin can grant it (System Console > User Management > Permissions), or post in a channel you both can read with create_post.")
	}
	return err
}

// post checks and stages a post, then asks the person (or, when the admin
// leaves writes to the client's own approval, sends it).
func (d Deps) post(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry) (res catalogue.Result[WriteResult], err error) {
	plan, err := d.stagePost(ctx, c, dest, message, files)
	if err != nil {
		return res, err
	}
	return d.ask(ctx, c, plan, d.posted)
}

// stagePost checks a post as the caller and stages its files, marked as
// written by an AI for them.
func (d Deps) stagePost(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry) (posting.Plan, error) {
	me, err := c.Me()
	if err != nil {
		return posting.Plan{}, err
	}
	req := posting.Request{Dest: dest, Message: message, Files: files,
		Attribution: fmt.Sprintf("Written by an AI assistant for @%s (MCP)", me.Username)}
	plan, err := d.Approvals.Stage(ctx, c, req)
	if err != nil {
		return plan, notFoundAs(err, dest)
	}
	return plan, nil
}

func (d Deps) updatePost(ctx context.Context, a updatePostArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	if n := len([]rune(a.Message)); n > postMaxRunes() {
		return res, refusal.Newf("The message is %d characters; Mattermost takes at most %d. Shorten it.", n, postMaxRunes())
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return res, refusal.New("That post is not the signed-in person's own: only their own posts can be edited. Reply to it with create_post and root_id instead.", "")
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: approval.ActionEdit, PostID: p.Id, Message: a.Message, Previous: p.Message,
		Dest: placeOf(c, ch).destination(c)}
	return d.write(ctx, c, plan)
}

func (d Deps) react(ctx context.Context, a reactionArgs, remove bool) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	emoji := strings.Trim(strings.TrimSpace(a.Emoji), ":")
	if err := emojiForm("emoji_name", emoji); err != nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if err := reactionEmoji(c, p.Id, emoji, remove); err != nil {
		return res, err
	}
	action := approval.ActionReact
	if remove {
		action = approval.ActionUnreact
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: action, PostID: p.Id, Emoji: emoji, Previous: p.Message,
		Dest: placeOf(c, ch).destination(c)}
	return d.write(ctx, c, plan)
}

// reactionEmoji refuses an emoji that does not exist on this server before
// anyone is asked, as Mattermost would refuse the reaction. A reaction
// being taken back may be of a custom emoji deleted since: the person's own
// reaction on the post is enough.
func reactionEmoji(c *mattermost.Caller, postID, emoji string, remove bool) error {
	err := checkEmoji(c, "emoji_name", emoji)
	if err == nil || !remove {
		return err
	}
	rs, rerr := c.Reactions(postID)
	if rerr != nil {
		return rerr
	}
	for _, r := range rs {
		if r.UserId == c.UserID() && r.EmojiName == emoji {
			return nil
		}
	}
	return err
}

// postFor reads the post an edit or reaction is about, as the caller.
func postFor(c *mattermost.Caller, postID string) (*model.Post, *model.Channel, error) {
	p, err := c.Post(strings.TrimSpace(postID))
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil, nil, refusal.New(fmt.Sprintf("Post %q was not found.", postID), "Take post ids from read_channel or search_posts.")
	}
	if err != nil {
		return nil, nil, err
	}
	ch, err := c.Channel(p.ChannelId)
	if err != nil {
		return nil, nil, err
	}
	return p, ch, nil
}

func postMaxRunes() int { return model.PostMessageMaxRunesV2 }

// ---- list_pinned_posts

type listPinnedArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	Cursor  string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func listPinnedPosts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_pinned_posts",
		Title:       "List pinned posts of a channel",
		Description: "Lists the pinned posts of a channel you can read, newest first, paged, with their attachments.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.listPinnedPosts)
}

func (d Deps) listPinnedPosts(ctx context.Context, args listPinnedArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, after, err := openPostKey("list_pinned_posts", args, keyArgs, args.Cursor)
	if err != nil {
		return res, err
	}
	c, view, err := d.channelOf(ctx, args.Channel, args.Team)
	if err != nil {
		return res, err
	}
	found, err := c.PinnedPosts(view.ch.Id, after, limit)
	if err != nil {
		return res, err
	}
	page, err := pc.postPage(c, found.Posts, found.Next.String())
	if err != nil {
		return res, err
	}
	return listPinnedAnswer(pinnedPosts{cursor: pc, view: view, page: page, firstPage: after.ID == ""})
}

// pinnedPosts is what list_pinned_posts fetched: one page of a channel's
// pinned posts, newest first.
type pinnedPosts struct {
	cursor pageCursor
	view   place
	page   PostPage
	// firstPage is a call without cursor.
	firstPage bool
}

// listPinnedAnswer writes list_pinned_posts' answer.
func listPinnedAnswer(f pinnedPosts) (catalogue.Result[PostPage], error) {
	page := f.page
	ci := f.view.info()
	page.Channel = &ci
	var b strings.Builder
	switch {
	case len(page.Posts) == 0 && f.firstPage:
		fmt.Fprintf(&b, "Channel %s has no pinned posts.", f.view.shown())
	case len(page.Posts) == 0:
		fmt.Fprintf(&b, "Channel %s: no pinned posts older than the previous page.", f.view.shown())
	default:
		fmt.Fprintf(&b, "Channel %s: %s, newest first.", f.view.shown(), present.Count(len(page.Posts), "pinned post", "pinned posts"))
	}
	f.cursor.writePosts(&b, page, "Older pinned posts", "These are all the pinned posts of the channel.")
	return answer(b.String(), page)
}

// openPostKey is openCursor for listings continued after a post key.
func openPostKey(tool string, args, keyArgs any, cursor string) (pageCursor, mattermost.PostKey, error) {
	pc, at, err := openCursor(tool, args, keyArgs, cursor)
	if err != nil {
		return pc, mattermost.PostKey{}, err
	}
	key, ok := mattermost.ParsePostKey(at)
	if !ok {
		return pc, key, pc.refuse(paging.ErrMalformed)
	}
	return pc, key, nil
}

// ---- list_saved

type listSavedArgs struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	Cursor string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func listSaved(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_saved",
		Title:       "List my saved posts",
		Description: "Lists the posts you saved in Mattermost (flagged posts) that you can still read, newest first, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.listSaved)
}

func (d Deps) listSaved(ctx context.Context, args listSavedArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, after, err := openPostKey("list_saved", args, keyArgs, args.Cursor)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	found, err := c.SavedPosts(after, limit)
	if err != nil {
		return res, err
	}
	page, err := pc.postPage(c, found.Posts, found.Next.String())
	if err != nil {
		return res, err
	}
	return listSavedAnswer(pc, page, after.ID == "")
}

// listSavedAnswer writes list_saved's answer from one page of the caller's
// saved posts, newest first; firstPage is a call without cursor.
func listSavedAnswer(pc pageCursor, page PostPage, firstPage bool) (catalogue.Result[PostPage], error) {
	var b strings.Builder
	switch {
	case len(page.Posts) == 0 && firstPage:
		b.WriteString("You have no saved posts that you can still read.")
	case len(page.Posts) == 0:
		b.WriteString("No saved posts older than the previous page.")
	default:
		fmt.Fprintf(&b, "Your saved posts: %d, newest first (posts in channels you can no longer read are left out).", len(page.Posts))
	}
	pc.writePosts(&b, page, "Older saved posts", "These are all your saved posts.")
	return answer(b.String(), page)
}
