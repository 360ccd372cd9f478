package tools

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// A post among others, as Mattermost shows it: its reactions, whether it
// was edited or pinned, when its thread was last replied to, and the posts
// it links by permalink, quoted as Mattermost's permalink preview quotes
// them (only those the caller can read: a link to any other adds nothing).

// Bounds of what a post carries besides its message.
const (
	// maxEmojiShown is how many emoji of one post are listed; the rest are
	// counted. Mattermost lets a post carry 50 by default.
	maxEmojiShown = 8
	// maxReactorsShown is how many people are named per emoji; the others
	// are counted ("and 12 others"), as in Mattermost's own tooltip.
	maxReactorsShown = 5
	// maxQuotesPerPost and maxQuotesPerPage bound the quoted posts: a few
	// per post say what it refers to; a page of quotes would be another page.
	maxQuotesPerPost = 3
	maxQuotesPerPage = 10
	// quoteLines and quoteRunes cut a quoted post to its first lines, as
	// the preview does; read_thread reads it whole.
	quoteLines = 3
	quoteRunes = 300
	// maxQuotedFiles is how many attachment names a quote lists.
	maxQuotedFiles = 5
)

// PostContext is what Mattermost shows around a post's message.
type PostContext struct {
	EditedAt string `json:"edited_at,omitempty"`
	Pinned   bool   `json:"pinned,omitempty"`
	// LastReplyAt is a thread root's latest reply.
	LastReplyAt string         `json:"last_reply_at,omitempty"`
	Reactions   []ReactionView `json:"reactions,omitempty"`
	// MoreEmoji counts the emoji past the first maxEmojiShown, and
	// MoreReactions their reactions.
	MoreEmoji     int          `json:"more_emoji,omitempty"`
	MoreReactions int          `json:"more_reactions,omitempty"`
	Quoted        []QuotedPost `json:"quoted_posts,omitempty"`
}

// ReactionView is one emoji's reactions to a post.
type ReactionView struct {
	Emoji string `json:"emoji"`
	Count int    `json:"count"`
	// Users are the first people who reacted, as Mattermost shows them to
	// the caller (@username, and the full name where it is shown).
	Users []string `json:"users"`
	// Others counts those not named.
	Others int `json:"others,omitempty"`
}

// QuotedPost is a post another one links by permalink, as its preview
// shows it.
type QuotedPost struct {
	ID          string   `json:"id"`
	ChannelName string   `json:"channel_name"`
	Author      string   `json:"author"`
	Time        string   `json:"time"`
	Message     string   `json:"message"`
	MessageCut  bool     `json:"message_cut,omitempty"`
	Files       []string `json:"files,omitempty"`
	MoreFiles   int      `json:"more_files,omitempty"`
	Permalink   string   `json:"permalink"`
	Hidden      string   `json:"hidden_characters,omitempty"`
}

// pageContext is what the posts of one page carry, read once for the page.
type pageContext struct {
	reactions map[string][]mattermost.ReactionGroup
	threads   map[string]mattermost.Thread
	quotes    map[string][]QuotedPost
}

// loadContext reads the page's reactions, thread times and quoted posts,
// and the people they name, in a few calls for the whole page.
func (w *postWriter) loadContext(posts []*model.Post) error {
	w.ctx = pageContext{quotes: map[string][]QuotedPost{}}
	var err error
	if w.ctx.reactions, err = w.c.PostReactions(posts, maxReactorsShown); err != nil {
		return err
	}
	var roots []string
	for _, p := range posts {
		if p.RootId == "" {
			roots = append(roots, p.Id)
		}
	}
	if w.ctx.threads, err = w.c.Threads(roots); err != nil {
		return err
	}
	quoted, err := w.quotedPosts(posts)
	if err != nil {
		return err
	}
	var people []string
	for _, groups := range w.ctx.reactions {
		for _, g := range groups {
			people = append(people, g.UserIDs...)
		}
	}
	for _, q := range quoted {
		people = append(people, q.UserId)
	}
	if err := w.addPeople(people); err != nil {
		return err
	}
	for _, p := range posts {
		for _, id := range permalinkIDs(p.Message, w.site, p.Id, maxQuotesPerPost) {
			if q, ok := quoted[id]; ok {
				qv, err := w.quote(q)
				if err != nil {
					return err
				}
				w.ctx.quotes[p.Id] = append(w.ctx.quotes[p.Id], qv)
			}
		}
	}
	return nil
}

// addPeople looks up the people not yet known, as Mattermost shows them to
// the caller; those the caller may not see stay unknown.
func (w *postWriter) addPeople(ids []string) error {
	var missing []string
	seen := map[string]bool{}
	for _, id := range ids {
		if _, ok := w.authors[id]; !ok && !seen[id] {
			seen[id] = true
			missing = append(missing, id)
		}
	}
	found, err := w.c.Authors(missing)
	if err != nil {
		return err
	}
	for id, u := range found {
		w.authors[id] = u
	}
	return nil
}

// quotedPosts are the posts the page links by permalink that the caller
// can read, at most maxQuotesPerPage; the others are left out unsaid.
func (w *postWriter) quotedPosts(posts []*model.Post) (map[string]*model.Post, error) {
	out := map[string]*model.Post{}
	tried := map[string]bool{}
	for _, p := range posts {
		for _, id := range permalinkIDs(p.Message, w.site, p.Id, maxQuotesPerPost) {
			if tried[id] || len(out) == maxQuotesPerPage {
				continue
			}
			tried[id] = true
			q, err := w.c.Post(id)
			if errors.Is(err, mattermost.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = q
		}
	}
	return out, nil
}

// quote is a linked post as its preview shows it: author, channel, time,
// its first lines and its attachments' names.
func (w *postWriter) quote(q *model.Post) (QuotedPost, error) {
	team, err := w.teamName(q.ChannelId)
	if err != nil {
		return QuotedPost{}, err
	}
	files, err := w.c.PostFiles(q)
	if err != nil {
		return QuotedPost{}, err
	}
	v := QuotedPost{ID: q.Id, ChannelName: w.chans[q.ChannelId], Author: w.person(q.UserId), Time: rfc3339(q.CreateAt),
		Permalink: present.Permalink(w.site, team, q.Id)}
	msg, cut := present.FirstLines(q.Message, quoteLines, quoteRunes)
	text, found := present.Text(msg)
	v.Message, v.MessageCut, v.Hidden = text, cut, found.Note("The quoted post")
	for i, f := range files {
		if i == maxQuotedFiles {
			v.MoreFiles = len(files) - i
			break
		}
		v.Files = append(v.Files, present.Name(f.Name))
	}
	return v, nil
}

// permalinkIDs are the ids of the posts a message links by permalink of
// this site (https://<site>/<team>/pl/<id>, or /_redirect/pl/<id> for
// direct messages), in order, without self, each once, at most n.
func permalinkIDs(msg, site, self string, n int) []string {
	if site == "" || !strings.Contains(msg, "/pl/") {
		return nil
	}
	re := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(strings.TrimRight(site, "/")) + `/(?:[0-9a-z_-]{1,64})/pl/([a-z0-9]{26})\b`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(msg, -1) {
		id := strings.ToLower(m[1])
		if id == self || !model.IsValidId(id) || slices.Contains(out, id) {
			continue
		}
		out = append(out, id)
		if len(out) == n {
			break
		}
	}
	return out
}

// person is someone the page names, as Mattermost shows them to the
// caller: @username, with the full name where the privacy settings show it.
func (w *postWriter) person(id string) string {
	u, ok := w.authors[id]
	if !ok {
		return "someone you cannot see"
	}
	if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
		return "@" + u.Username + " (" + present.Name(name) + ")"
	}
	return "@" + u.Username
}

// replyCount is a post's reply count: a root's from its thread, where
// Mattermost keeps one.
func (w *postWriter) replyCount(p *model.Post) int64 {
	if t, ok := w.ctx.threads[p.Id]; ok {
		return t.ReplyCount
	}
	return p.ReplyCount
}

// contextOf is what Mattermost shows around one post of the page.
func (w *postWriter) contextOf(p *model.Post) PostContext {
	var v PostContext
	if p.EditAt > 0 {
		v.EditedAt = rfc3339(p.EditAt)
	}
	v.Pinned = p.IsPinned
	if t, ok := w.ctx.threads[p.Id]; ok && t.ReplyCount > 0 && t.LastReplyAt > 0 {
		v.LastReplyAt = rfc3339(t.LastReplyAt)
	} else if p.RootId == "" && p.ReplyCount > 0 && p.LastReplyAt > 0 {
		v.LastReplyAt = rfc3339(p.LastReplyAt)
	}
	for i, g := range w.ctx.reactions[p.Id] {
		if i >= maxEmojiShown {
			v.MoreEmoji++
			v.MoreReactions += g.Count
			continue
		}
		r := ReactionView{Emoji: present.Name(g.Emoji), Count: g.Count, Users: []string{}}
		for _, id := range g.UserIDs {
			if _, ok := w.authors[id]; ok {
				r.Users = append(r.Users, w.person(id))
			}
		}
		r.Others = g.Count - len(r.Users)
		v.Reactions = append(v.Reactions, r)
	}
	v.Quoted = w.ctx.quotes[p.Id]
	return v
}

// contextHeader is what the first line of a post says of it besides who
// wrote it where: its replies, an edit, a pin.
func contextHeader(v PostView) string {
	var b strings.Builder
	if v.RootID == "" && v.ReplyCount > 0 {
		b.WriteString(", " + several(int(v.ReplyCount), "reply", "replies"))
		if v.LastReplyAt != "" {
			fmt.Fprintf(&b, " (latest %s)", v.LastReplyAt)
		}
		fmt.Fprintf(&b, ": read_thread(post=%q)", v.ID)
	}
	if v.EditedAt != "" {
		fmt.Fprintf(&b, ", edited %s", v.EditedAt)
	}
	if v.Pinned {
		b.WriteString(", pinned")
	}
	return b.String()
}

// contextLines writes a post's reactions and quoted posts.
func contextLines(b *strings.Builder, v PostContext) {
	if len(v.Reactions) > 0 {
		parts := make([]string, 0, len(v.Reactions)+1)
		for _, r := range v.Reactions {
			who := strings.Join(r.Users, ", ")
			switch {
			case r.Others > 0 && who != "":
				who += " and " + several(r.Others, "other", "others")
			case r.Others > 0:
				who = several(r.Others, "person", "people")
			}
			parts = append(parts, fmt.Sprintf(":%s: %d (%s)", r.Emoji, r.Count, who))
		}
		if v.MoreEmoji > 0 {
			parts = append(parts, fmt.Sprintf("and %d more emoji (%s)", v.MoreEmoji, several(v.MoreReactions, "reaction", "reactions")))
		}
		b.WriteString("  reactions: " + strings.Join(parts, "; ") + "\n")
	}
	for _, q := range v.Quoted {
		fmt.Fprintf(b, "  quotes post %s by %s in %s at %s:\n", q.ID, present.Name(q.Author), present.Name(q.ChannelName), q.Time)
		for _, line := range strings.Split(q.Message, "\n") {
			b.WriteString("    > " + line + "\n")
		}
		if q.Hidden != "" {
			fmt.Fprintf(b, "    > [%s]\n", q.Hidden)
		}
		if q.MessageCut {
			fmt.Fprintf(b, "    > [first lines only: read_thread(post=%q) reads it whole]\n", q.ID)
		}
		if len(q.Files) > 0 {
			files := make([]string, len(q.Files))
			for i, f := range q.Files {
				files[i] = fmt.Sprintf("%q", f)
			}
			more := ""
			if q.MoreFiles > 0 {
				more = fmt.Sprintf(" and %d more", q.MoreFiles)
			}
			fmt.Fprintf(b, "    > files: %s%s\n", strings.Join(files, ", "), more)
		}
	}
}

// several is a count and its noun.
func several(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Values of read_channel's and read_unread's replies argument.
const (
	repliesCollapsed = "collapsed"
	repliesInline    = "inline"
)

// repliesMode reads the replies argument: collapsed lists thread roots
// only, as Mattermost's collapsed reply threads show a channel; inline
// lists every post in order. Left out, it is the person's own Mattermost
// setting.
func repliesMode(c *mattermost.Caller, arg string) (collapsed, chosen bool, err error) {
	switch strings.TrimSpace(arg) {
	case "":
		return c.CollapsedThreads(), false, nil
	case repliesCollapsed:
		return true, true, nil
	case repliesInline:
		return false, true, nil
	}
	return false, false, refusal.New(fmt.Sprintf("replies takes %q or %q.", repliesCollapsed, repliesInline),
		"Call again with replies=\"collapsed\" (thread roots with their reply counts) or replies=\"inline\" (every post in order), or leave it out for your Mattermost setting.")
}

// collapsedNote says what a channel listing with collapsed threads left
// out and how to read it.
func collapsedNote(b *strings.Builder, collapsed, chosen bool, skipped int) {
	if !collapsed {
		return
	}
	why := "as your Mattermost shows channels (collapsed reply threads)"
	if chosen {
		why = "as asked (replies=\"collapsed\")"
	}
	fmt.Fprintf(b, " Thread roots only, %s", why)
	if skipped > 0 {
		fmt.Fprintf(b, "; %s among them %s left out", several(skipped, "reply", "replies"), map[bool]string{true: "is", false: "are"}[skipped == 1])
	}
	b.WriteString(": read a thread with read_thread(post=<root id>), or every post in order with replies=\"inline\".")
}
