package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// The post tools that list a thread, a search or a channel's pinned and
// saved posts, all written by the postWriter of posts.go.

// ---- read_thread

type readThreadArgs struct {
	Post  string `json:"post" jsonschema:"Any post of the thread: id or permalink."`
	Limit int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-200; default 50."`
	paged
}

func readThread(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "read_thread",
		Title:       "Read a Mattermost thread",
		Description: "Reads a whole thread from any of its posts (id or permalink): the root post, then the replies oldest first, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
		View: resources.ThreadView,
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
	pc, offset, err := openPageOffset("read_thread", args)
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
	return answerLinked(b.String(), page, postLinks(page.Posts...))
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
	Terms string `json:"terms" jsonschema:"Words, \"phrases\", -excluded, word* prefixes, from:username, in:channel-name, before:/after:/on:YYYY-MM-DD (UTC)."`
	Team  string `json:"team,omitempty" jsonschema:"Only this team; left out: all your teams."`
	Limit int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 20."`
	paged
}

func searchPosts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "search_posts",
		Title:       "Search Mattermost posts",
		Description: "Searches the posts you can read with Mattermost's search syntax, in one team or all of yours, newest first, paged, with channels and attachments.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
		View: resources.ThreadView,
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
	pc, offset, err := openPageOffset("search_posts", args)
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
		return answerLinked(b.String(), page, postLinks(page.Posts...))
	}
	fmt.Fprintf(&b, "Posts matching %s in %s, newest first: results %d to %d.", strconv.Quote(f.terms), where, offset+1, end)
	pc.writePosts(&b, page, "More results", "These are all the results.")
	return answerLinked(b.String(), page, postLinks(page.Posts...))
}

// ---- list_pinned_posts

type listPinnedArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	paged
}

func listPinnedPosts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_pinned_posts",
		Title:       "List pinned posts of a channel",
		Description: "Lists the pinned posts of a channel you can read, newest first, paged, with their attachments.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listPinnedPosts)
}

func (d Deps) listPinnedPosts(ctx context.Context, args listPinnedArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	pc, after, err := openPagePostKey("list_pinned_posts", args)
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
	return answerLinked(b.String(), page, postLinks(page.Posts...))
}

// openPagePostKey is openPage for listings continued after a post key.
func openPagePostKey[A any, P pageArgs[A]](tool string, args A) (pageCursor, mattermost.PostKey, error) {
	pc, at, err := openPage[A, P](tool, args)
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
	Limit int `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	paged
}

func listSaved(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_saved",
		Title:       "List my saved posts",
		Description: "Lists the posts you saved in Mattermost (flagged posts) that you can still read, newest first, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetOwnView,
	}, d.listSaved)
}

func (d Deps) listSaved(ctx context.Context, args listSavedArgs) (res catalogue.Result[PostPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	pc, after, err := openPagePostKey("list_saved", args)
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
	return answerLinked(b.String(), page, postLinks(page.Posts...))
}
