package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
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
	return &postWriter{c: c, site: c.SiteURL(), authors: authors, teams: map[string]string{}, chans: map[string]string{}}, nil
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
	w.chans[channelID] = ch.DisplayName
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
	msg := p.Message
	r := []rune(msg)
	v := PostView{
		ID: p.Id, ChannelID: p.ChannelId, ChannelName: w.chans[p.ChannelId], Author: author, AuthorID: p.UserId, Time: rfc3339(p.CreateAt),
		RootID: p.RootId, ReplyCount: p.ReplyCount, Type: p.Type, Attachments: []present.FileRef{},
		Permalink: present.Permalink(w.site, team, p.Id),
	}
	if len(r) > maxMessageRunes {
		msg, v.MessageCut = string(r[:maxMessageRunes]), true
	}
	v.Message = msg
	for _, f := range files {
		v.Attachments = append(v.Attachments, present.RefOf(f))
	}
	return v, nil
}

// text is a post as the model reads it.
func postText(b *strings.Builder, v PostView) {
	fmt.Fprintf(b, "\n[%s] %s in %s (post %s", v.Time, present.Clean(v.Author), present.Clean(v.ChannelName), v.ID)
	switch {
	case v.RootID != "":
		fmt.Fprintf(b, ", reply in thread %s", v.RootID)
	case v.ReplyCount > 0:
		fmt.Fprintf(b, ", %d replies: read_thread(post=%q)", v.ReplyCount, v.ID)
	}
	if v.Type != "" {
		fmt.Fprintf(b, ", system message %s", v.Type)
	}
	b.WriteString("):\n")
	for _, line := range strings.Split(v.Message, "\n") {
		b.WriteString("  " + line + "\n")
	}
	if v.MessageCut {
		fmt.Fprintf(b, "  [message cut at %d characters; the whole post is at %s]\n", maxMessageRunes, v.Permalink)
	}
	for _, f := range v.Attachments {
		b.WriteString("  " + present.FileLine(f) + "\n")
	}
	fmt.Fprintf(b, "  link: %s\n", v.Permalink)
}

// nextCall is the exact call that continues a paged answer.
func nextCall(tool string, args any) string {
	raw, err := json.Marshal(args)
	if err != nil {
		return tool
	}
	return tool + " " + string(raw)
}

// cursorRefusal explains a cursor that cannot be used.
func cursorRefusal(tool string, err error) *mcp.CallToolResult {
	if errors.Is(err, paging.ErrOtherCall) {
		return mcp.NewToolResultError(fmt.Sprintf("This cursor was made by another call (another tool, or %s with other arguments). "+
			"Pass a cursor only with exactly the arguments it came with, or call %s again without cursor to start from the beginning.", tool, tool))
	}
	return mcp.NewToolResultError(fmt.Sprintf("This cursor is not one %s made. Call %s again without cursor to start from the beginning.", tool, tool))
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
	Channel string `json:"channel" jsonschema:"The channel: its id (best), ~name, display name, a direct message's @username, or a channel link."`
	Team    string `json:"team,omitempty" jsonschema:"The team to look in when a channel name is in several teams."`
	Since   string `json:"since,omitempty" jsonschema:"Only posts at or after this time: RFC 3339 (2024-05-01T09:00:00Z) or a date (2024-05-01, midnight UTC)."`
	Before  string `json:"before,omitempty" jsonschema:"Only posts before this time: RFC 3339 or a date (midnight UTC)."`
	Limit   int    `json:"limit,omitempty" jsonschema:"How many posts per page, 1 to 100; default 30."`
	Cursor  string `json:"cursor,omitempty" jsonschema:"The cursor from the previous answer, to read older posts. Pass it with exactly the same other arguments."`
}

func readChannel(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:  "read_channel",
		Title: "Read a Mattermost channel",
		Description: "Reads the posts of a channel you can read, newest first, 30 at a time (up to 100), optionally only " +
			"since or before a time. Each post comes with its id, author @username, time (UTC), message, thread replies, " +
			"permalink and every attachment with the file_id that read_file takes. Page to older posts with the cursor " +
			"the answer gives.",
		Hints: readOnly, Effect: catalogue.ReadsOnly,
	}, func(ctx context.Context, args readChannelArgs) (*mcp.CallToolResult, error) {
		limit, refusal := limitOf(args.Limit, defaultPosts, maxPosts)
		if refusal != nil {
			return refusal, nil
		}
		since, ok1 := parseDate(args.Since)
		before, ok2 := parseDate(args.Before)
		if !ok1 || !ok2 {
			return mcp.NewToolResultError("since and before take an RFC 3339 time (2024-05-01T09:00:00Z) or a date (2024-05-01). Call again with one of those forms."), nil
		}
		if since != 0 && before != 0 && since >= before {
			return mcp.NewToolResultError("since must be earlier than before. Call again with since before before."), nil
		}
		keyArgs := args
		keyArgs.Cursor = ""
		key, err := paging.Key(keyArgs)
		if err != nil {
			return nil, err
		}
		from := ""
		if args.Cursor != "" {
			if from, err = paging.Decode(args.Cursor, "read_channel", key); err != nil {
				return cursorRefusal("read_channel", err), nil
			}
		}
		c, err := d.caller(ctx)
		if err != nil {
			return nil, err
		}
		r, err := resolveChannel(c, args.Channel, args.Team)
		if err != nil {
			return nil, err
		}
		if r.refusal != "" {
			return mcp.NewToolResultError(r.refusal), nil
		}
		chID := r.view.ch.Id

		var shown []*model.Post
		pos, complete, scannedOut := from, false, false
	walk:
		for batches := 0; ; batches++ {
			if batches == maxScanBatches {
				scannedOut = true
				break
			}
			batch, err := c.ChannelPosts(chID, pos, fetchBatch)
			if errors.Is(err, mattermost.ErrNotFound) && pos != "" {
				return mcp.NewToolResultError("The post this cursor continues from is no longer there (deleted, or the channel changed). " +
					"Call read_channel again without cursor, with before set to the time of the oldest post you have."), nil
			}
			if err != nil {
				return nil, err
			}
			for i, p := range batch {
				if before != 0 && p.CreateAt >= before {
					pos = p.Id
					continue
				}
				if since != 0 && p.CreateAt < since {
					complete = true
					break walk
				}
				shown = append(shown, p)
				pos = p.Id
				if len(shown) == limit {
					rest := batch[i+1:]
					switch {
					case len(rest) > 0 && since != 0 && rest[0].CreateAt < since:
						complete = true
					case len(rest) == 0 && len(batch) < fetchBatch:
						complete = true
					}
					break walk
				}
			}
			if len(batch) < fetchBatch {
				complete = true
				break
			}
		}

		w, err := newPostWriter(c, shown)
		if err != nil {
			return nil, err
		}
		ci := r.view.info()
		page := PostPage{Channel: &ci, Posts: []PostView{}, Complete: complete}
		for _, p := range shown {
			v, err := w.view(p)
			if err != nil {
				return nil, err
			}
			page.Posts = append(page.Posts, v)
		}
		if !complete && pos != "" {
			next := args
			if next.Cursor, err = paging.Encode("read_channel", key, pos); err != nil {
				return nil, err
			}
			page.NextCursor = next.Cursor
		}

		var b strings.Builder
		rng := ""
		if since != 0 || before != 0 {
			rng = " in the range asked (" + rangeText(since, before) + ")"
		}
		if len(page.Posts) == 0 {
			fmt.Fprintf(&b, "Channel %s: no posts%s", r.view.label(), rng)
			if from != "" {
				b.WriteString(" older than the previous page")
			}
			b.WriteString(".")
		} else {
			fmt.Fprintf(&b, "Channel %s: %d posts%s, newest first, from %s back to %s.",
				r.view.label(), len(page.Posts), rng, page.Posts[0].Time, page.Posts[len(page.Posts)-1].Time)
		}
		for _, v := range page.Posts {
			postText(&b, v)
		}
		b.WriteString("\n")
		switch {
		case page.NextCursor != "" && scannedOut && len(page.Posts) == 0:
			fmt.Fprintf(&b, "Walked back %d posts without reaching the before time yet. Continue with: %s",
				maxScanBatches*fetchBatch, nextCall("read_channel", argsWithCursor(args, page.NextCursor)))
		case page.NextCursor != "":
			fmt.Fprintf(&b, "Older posts: %s", nextCall("read_channel", argsWithCursor(args, page.NextCursor)))
		case since != 0:
			b.WriteString("These are all the posts in the range asked.")
		default:
			b.WriteString("This is the start of the channel: there are no older posts.")
		}
		return structured(b.String(), page), nil
	})
}

func argsWithCursor(args readChannelArgs, cursor string) readChannelArgs {
	args.Cursor = cursor
	return args
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
	Post   string `json:"post" jsonschema:"Any post of the thread: its id or its permalink (https://<site>/<team>/pl/<id>)."`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many posts per page, 1 to 200; default 50."`
	Cursor string `json:"cursor,omitempty" jsonschema:"The cursor from the previous answer, to read further replies. Pass it with exactly the same other arguments."`
}

func readThread(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:  "read_thread",
		Title: "Read a Mattermost thread",
		Description: "Reads a whole thread from any of its posts (id or permalink): the root post first, then the replies " +
			"oldest first, 50 at a time (up to 200), each with author, time (UTC), message, permalink and attachments " +
			"with the file_id that read_file takes. Page on with the cursor the answer gives.",
		Hints: readOnly, Effect: catalogue.ReadsOnly,
	}, func(ctx context.Context, args readThreadArgs) (*mcp.CallToolResult, error) {
		limit, refusal := limitOf(args.Limit, defaultThread, maxThread)
		if refusal != nil {
			return refusal, nil
		}
		postID := strings.TrimSpace(args.Post)
		if link, ok := parsePostLink(postID); ok {
			postID = link
		}
		keyArgs := args
		keyArgs.Cursor = ""
		key, err := paging.Key(keyArgs)
		if err != nil {
			return nil, err
		}
		offset := 0
		if args.Cursor != "" {
			at, err := paging.Decode(args.Cursor, "read_thread", key)
			if err != nil {
				return cursorRefusal("read_thread", err), nil
			}
			if offset, err = strconv.Atoi(at); err != nil || offset < 0 {
				return cursorRefusal("read_thread", paging.ErrMalformed), nil
			}
		}
		c, err := d.caller(ctx)
		if err != nil {
			return nil, err
		}
		thread, err := c.Thread(postID)
		if errors.Is(err, mattermost.ErrNotFound) {
			return mcp.NewToolResultError(fmt.Sprintf("No post %q found. Give a post id or permalink from read_channel or search_posts.", present.Clean(args.Post))), nil
		}
		if err != nil {
			return nil, err
		}
		end := min(offset+limit, len(thread))
		pageOf := thread[min(offset, len(thread)):end]
		w, err := newPostWriter(c, pageOf)
		if err != nil {
			return nil, err
		}
		page := PostPage{Posts: []PostView{}, Complete: end >= len(thread)}
		for _, p := range pageOf {
			v, err := w.view(p)
			if err != nil {
				return nil, err
			}
			page.Posts = append(page.Posts, v)
		}
		if !page.Complete {
			if page.NextCursor, err = paging.Encode("read_thread", key, strconv.Itoa(end)); err != nil {
				return nil, err
			}
		}
		root := thread[0]
		var b strings.Builder
		fmt.Fprintf(&b, "Thread of post %s (%d posts: the root and %d replies). Showing posts %d to %d, oldest first.",
			root.Id, len(thread), len(thread)-1, offset+1, end)
		for _, v := range page.Posts {
			postText(&b, v)
		}
		b.WriteString("\n")
		if page.NextCursor != "" {
			next := args
			next.Cursor = page.NextCursor
			fmt.Fprintf(&b, "More replies: %s", nextCall("read_thread", next))
		} else {
			b.WriteString("This is the end of the thread.")
		}
		return structured(b.String(), page), nil
	})
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
	Terms  string `json:"terms" jsonschema:"Mattermost search: words, \"exact phrases\", -excluded words, from:username, in:channel-name, before:/after:/on: YYYY-MM-DD (UTC), and word* prefixes."`
	Team   string `json:"team,omitempty" jsonschema:"Search only this team (id, name or display name). Leave out to search all your teams."`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many posts per page, 1 to 100; default 20."`
	Cursor string `json:"cursor,omitempty" jsonschema:"The cursor from the previous answer, for further results. Pass it with exactly the same other arguments."`
}

func searchPosts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:  "search_posts",
		Title: "Search Mattermost posts",
		Description: "Searches the posts you can read with Mattermost's own search syntax (words, \"phrases\", -exclusions, " +
			"from:username, in:channel, before:/after:/on: dates in UTC), in one team or all of yours, newest first, " +
			"20 at a time (up to 100). Each hit comes like read_channel's posts, with channel, permalink and attachments. " +
			"Page on with the cursor the answer gives.",
		Hints: readOnly, Effect: catalogue.ReadsOnly,
	}, func(ctx context.Context, args searchPostsArgs) (*mcp.CallToolResult, error) {
		if strings.TrimSpace(args.Terms) == "" {
			return mcp.NewToolResultError("Give terms: words to search for, or from:username, in:channel, on:YYYY-MM-DD."), nil
		}
		limit, refusal := limitOf(args.Limit, defaultHits, maxHits)
		if refusal != nil {
			return refusal, nil
		}
		keyArgs := args
		keyArgs.Cursor = ""
		key, err := paging.Key(keyArgs)
		if err != nil {
			return nil, err
		}
		offset := 0
		if args.Cursor != "" {
			at, err := paging.Decode(args.Cursor, "search_posts", key)
			if err != nil {
				return cursorRefusal("search_posts", err), nil
			}
			if offset, err = strconv.Atoi(at); err != nil || offset < 0 {
				return cursorRefusal("search_posts", paging.ErrMalformed), nil
			}
		}
		if offset+limit > maxHitDepth {
			return mcp.NewToolResultError(fmt.Sprintf("Search results are paged only to the first %d hits. Narrow the search (add in:, from:, after: or more words) and call search_posts again without cursor.", maxHitDepth)), nil
		}
		c, err := d.caller(ctx)
		if err != nil {
			return nil, err
		}
		ms, team, refusal, err := teamScope(c, args.Team)
		if err != nil || refusal != nil {
			return refusal, err
		}
		seen := map[string]bool{}
		var hits []*model.Post
		for _, m := range ms {
			if team != nil && m.Team.Id != team.Id {
				continue
			}
			found, err := c.SearchPosts(m.Team.Id, args.Terms, 0, offset+limit+1)
			if err != nil {
				return nil, err
			}
			for _, p := range found {
				if !seen[p.Id] {
					seen[p.Id] = true
					hits = append(hits, p)
				}
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].CreateAt > hits[j].CreateAt })
		end := min(offset+limit, len(hits))
		pageOf := hits[min(offset, len(hits)):end]
		w, err := newPostWriter(c, pageOf)
		if err != nil {
			return nil, err
		}
		page := PostPage{Posts: []PostView{}, Complete: len(hits) <= end}
		for _, p := range pageOf {
			v, err := w.view(p)
			if err != nil {
				return nil, err
			}
			page.Posts = append(page.Posts, v)
		}
		if !page.Complete {
			if page.NextCursor, err = paging.Encode("search_posts", key, strconv.Itoa(end)); err != nil {
				return nil, err
			}
		}
		var b strings.Builder
		where := "all your teams"
		if team != nil {
			where = "team " + team.Name
		}
		if len(page.Posts) == 0 {
			fmt.Fprintf(&b, "No posts you can read match %s in %s", strconv.Quote(args.Terms), where)
			if offset > 0 {
				b.WriteString(" beyond the previous page")
			}
			b.WriteString(". Try fewer or other words, a word* prefix, or drop from:/in:/date filters.")
			return structured(b.String(), page), nil
		}
		fmt.Fprintf(&b, "Posts matching %s in %s, newest first: results %d to %d.", strconv.Quote(args.Terms), where, offset+1, end)
		for _, v := range page.Posts {
			postText(&b, v)
		}
		b.WriteString("\n")
		if page.NextCursor != "" {
			next := args
			next.Cursor = page.NextCursor
			fmt.Fprintf(&b, "More results: %s", nextCall("search_posts", next))
		} else {
			b.WriteString("These are all the results.")
		}
		return structured(b.String(), page), nil
	})
}
