package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Bounds of list_threads.
const (
	defaultThreads = 20
	maxThreads     = 100
	// maxFollowed is how many followed threads (the most recently
	// replied) one call orders; past it the answer says so.
	maxFollowed = 500
	// threadExcerpt cuts a root post in the list: enough to recognise it.
	threadExcerpt = 300
)

type listThreadsArgs struct {
	Limit int `json:"limit,omitempty" jsonschema:"Threads per page, 1-100; default 20."`
	paged
}

// ThreadInfo is a followed thread in list_threads' answer.
type ThreadInfo struct {
	Root           PostView `json:"root"`
	ReplyCount     int64    `json:"reply_count"`
	UnreadReplies  int64    `json:"unread_replies"`
	UnreadMentions int64    `json:"unread_mentions"`
	LastReplyAt    string   `json:"last_reply_at,omitempty"`
	LastViewedAt   string   `json:"last_viewed_at,omitempty"`
}

// ThreadList is list_threads' structured answer.
type ThreadList struct {
	Threads    []ThreadInfo `json:"threads"`
	Total      int          `json:"total"`
	NextCursor string       `json:"next_cursor,omitempty"`
	Complete   bool         `json:"complete"`
}

func listThreads(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_threads",
		Title:       "List the Mattermost threads I follow",
		Description: "Lists the threads you follow (the Threads view), unread replies first, with counts; marks nothing read. Read one with read_thread(post=<root id>).",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listThreads)
}

func (d Deps) listThreads(ctx context.Context, args listThreadsArgs) (res catalogue.Result[ThreadList], err error) {
	limit, err := limitOf(args.Limit, defaultThreads, maxThreads)
	if err != nil {
		return res, err
	}
	pc, offset, err := openPageOffset("list_threads", args)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	followed, more, err := c.FollowedThreads(maxFollowed)
	if err != nil {
		return res, err
	}
	end := min(offset+limit, len(followed))
	shown := followed[min(offset, len(followed)):end]
	var roots []*model.Post
	var kept []mattermost.FollowedThread
	for _, t := range shown {
		p, err := c.Post(t.RootID)
		if errors.Is(err, mattermost.ErrNotFound) {
			continue
		}
		if err != nil {
			return res, err
		}
		roots = append(roots, p)
		kept = append(kept, t)
	}
	w, err := newPostWriter(c, roots)
	if err != nil {
		return res, err
	}
	found := followedThreads{cursor: pc, followed: followed, more: more, offset: offset, end: end, shown: kept}
	for _, p := range roots {
		root, err := w.view(p)
		if err != nil {
			return res, err
		}
		found.roots = append(found.roots, root)
	}
	return listThreadsAnswer(found)
}

// followedThreads is what list_threads fetched: the threads the caller
// follows, and the page of them shown with their root posts.
type followedThreads struct {
	cursor   pageCursor
	followed []mattermost.FollowedThread
	// more is true when the caller follows more than maxFollowed threads.
	more bool
	// offset and end are the page's place in followed; shown are the
	// threads of the page whose root the caller can read, roots their
	// root posts.
	offset, end int
	shown       []mattermost.FollowedThread
	roots       []PostView
}

// listThreadsAnswer writes list_threads' answer.
func listThreadsAnswer(f followedThreads) (res catalogue.Result[ThreadList], err error) {
	pc, followed, more, offset, end := f.cursor, f.followed, f.more, f.offset, f.end
	out := ThreadList{Threads: []ThreadInfo{}, Total: len(followed), Complete: end >= len(followed)}
	unread := 0
	for _, t := range followed {
		if t.UnreadReplies > 0 {
			unread++
		}
	}
	var b strings.Builder
	switch {
	case len(followed) == 0:
		b.WriteString("You follow no threads. (Mattermost follows a thread for you when you start it, reply to it or are mentioned in it.)")
	case offset >= len(followed):
		fmt.Fprintf(&b, "No more threads: you follow %d.", len(followed))
	default:
		fmt.Fprintf(&b, "You follow %d threads, %d with unread replies; unread first, then by latest reply. Showing %d to %d. Nothing was marked read.\n",
			len(followed), unread, offset+1, end)
	}
	for i, root := range f.roots {
		t := f.shown[i]
		root.Message, root.MessageCut = cut(root.Message, threadExcerpt), root.MessageCut || len([]rune(root.Message)) > threadExcerpt
		ti := ThreadInfo{Root: root, ReplyCount: t.ReplyCount, UnreadReplies: t.UnreadReplies, UnreadMentions: t.UnreadMentions}
		if t.LastReplyAt > 0 {
			ti.LastReplyAt = rfc3339(t.LastReplyAt)
		}
		if t.LastViewedAt > 0 {
			ti.LastViewedAt = rfc3339(t.LastViewedAt)
		}
		out.Threads = append(out.Threads, ti)
		fmt.Fprintf(&b, "\n- Thread %s in %s, started by %s at %s: %s, %d unread, %s, last reply %s: read_thread(post=%q)\n",
			root.ID, present.Name(root.ChannelName), present.Name(root.Author), root.Time, present.Count(int(ti.ReplyCount), "reply", "replies"), ti.UnreadReplies, present.Count(int(ti.UnreadMentions), "unread mention", "unread mentions"), ti.LastReplyAt, root.ID)
		for _, line := range strings.Split(root.Message, "\n") {
			b.WriteString("  " + line + "\n")
		}
		if root.Hidden != "" {
			fmt.Fprintf(&b, "  [%s]\n", root.Hidden)
		}
	}
	if !out.Complete {
		if out.NextCursor, err = pc.next(strconv.Itoa(end)); err != nil {
			return res, err
		}
		left, noun := len(followed)-end, "threads"
		if left == 1 {
			noun = "thread"
		}
		fmt.Fprintf(&b, "\n%d more %s: %s", left, noun, pc.nextCall(out.NextCursor))
	} else if more {
		fmt.Fprintf(&b, "\nOnly the %d most recently replied threads you follow were looked at; older ones are left out.", maxFollowed)
	}
	return answer(strings.TrimRight(b.String(), "\n"), out)
}

// followTools are follow_thread and unfollow_thread: the person's Threads view.
func followTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "follow_thread", Title: "Follow a thread", Hints: ownViewHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Makes the person follow the thread of a post they can read: its replies show in their Threads view and notify them." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.followThread(ctx, a, true)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unfollow_thread", Title: "Stop following a thread", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Makes the person stop following the thread of a post: its replies leave their Threads view." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.followThread(ctx, a, false)
		}),
	}
}

func (d Deps) followThread(ctx context.Context, a postRefArgs, follow bool) (res catalogue.Result[OwnViewResult], err error) {
	_, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	root, err := v.FollowThread(ctx, strings.TrimSpace(a.PostID), follow)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	return answer(followedAnswer(root, follow))
}

// followedAnswer says the person now follows (follow) the thread of root,
// or no longer does.
func followedAnswer(root *model.Post, follow bool) (string, OwnViewResult) {
	if follow {
		return fmt.Sprintf("The person follows the thread of post %s: its replies show in their Threads view.", root.Id),
			OwnViewResult{Done: "thread_followed", ChannelID: root.ChannelId, PostID: root.Id}
	}
	return fmt.Sprintf("The person no longer follows the thread of post %s.", root.Id),
		OwnViewResult{Done: "thread_unfollowed", ChannelID: root.ChannelId, PostID: root.Id}
}
