package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Bounds of the unread tools.
const (
	defaultUnreadChannels = 50
	maxUnreadChannels     = 200
)

// ---- list_unreads

type listUnreadsArgs struct {
	Limit int `json:"limit,omitempty" jsonschema:"Channels per page, 1-200; default 50."`
	paged
}

// UnreadChannel is a channel with unread posts or mentions.
type UnreadChannel struct {
	ChannelInfo
	// LastViewedAt is when the person last read the channel ("" never).
	LastViewedAt string `json:"last_viewed_at,omitempty"`
	// Muted channels count unread posts but notify only of mentions.
	Muted bool `json:"muted,omitempty"`
}

// UnreadList is list_unreads' structured answer.
type UnreadList struct {
	Channels   []UnreadChannel `json:"channels"`
	Total      int             `json:"total"`
	NextCursor string          `json:"next_cursor,omitempty"`
	Complete   bool            `json:"complete"`
}

func listUnreads(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_unreads",
		Title:       "List my unread Mattermost channels",
		Description: "Lists your channels with unread posts or mentions (all teams, DMs, groups), most recent first, with Mattermost's counts; marks nothing read.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listUnreads)
}

func (d Deps) listUnreads(ctx context.Context, args listUnreadsArgs) (res catalogue.Result[UnreadList], err error) {
	limit, err := limitOf(args.Limit, defaultUnreadChannels, maxUnreadChannels)
	if err != nil {
		return res, err
	}
	pc, offset, err := openPageOffset("list_unreads", args)
	if err != nil {
		return res, err
	}
	_, sc, err := d.channelScope(ctx, "")
	if err != nil {
		return res, err
	}
	// MyChannels is already newest post first.
	var unread []place
	for _, m := range sc.mine {
		if m.Unread() > 0 || m.Member.MentionCount > 0 {
			unread = append(unread, placeOfMine(m))
		}
	}
	return listUnreadsAnswer(pc, unread, offset, limit)
}

// listUnreadsAnswer writes list_unreads' page at offset of the caller's
// channels with unread posts or mentions, newest post first.
func listUnreadsAnswer(pc pageCursor, unread []place, offset, limit int) (res catalogue.Result[UnreadList], err error) {
	out := UnreadList{Channels: []UnreadChannel{}, Total: len(unread)}
	end := min(offset+limit, len(unread))
	var b strings.Builder
	switch {
	case len(unread) == 0:
		b.WriteString("No unread posts or mentions in any of your channels.")
	case offset >= len(unread):
		fmt.Fprintf(&b, "No more channels with unread posts: there are %d.", len(unread))
	default:
		fmt.Fprintf(&b, "%d channels have unread posts or mentions, most recent first; showing %d to %d. Nothing was marked read.\n",
			len(unread), offset+1, end)
	}
	for _, v := range unread[min(offset, len(unread)):end] {
		uc := UnreadChannel{ChannelInfo: v.info(), Muted: v.member.NotifyProps["mark_unread"] == "mention"}
		if v.member.LastViewedAt > 0 {
			uc.LastViewedAt = rfc3339(v.member.LastViewedAt)
		}
		out.Channels = append(out.Channels, uc)
		muted := ""
		if uc.Muted {
			muted = ", muted"
		}
		fmt.Fprintf(&b, "- %s: %d unread (%s), %s%s, last post %s: read_unread(channel=%q)\n",
			v.shown(), uc.Unread, present.Count(int(uc.UnreadRoot), "thread root", "thread roots"), present.Count(int(uc.Mentions), "mention", "mentions"), muted, uc.LastPostAt, uc.ID)
	}
	out.Complete = end >= len(unread)
	if !out.Complete {
		if out.NextCursor, err = pc.next(strconv.Itoa(end)); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "%d more channels with unread posts: %s", len(unread)-end, pc.nextCall(out.NextCursor))
	}
	return answer(strings.TrimRight(b.String(), "\n"), out)
}

// ---- read_unread

type readUnreadArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 30."`
	Replies string `json:"replies,omitempty" jsonschema:"collapsed or inline, as read_channel."`
	paged
}

// UnreadPage is read_unread's structured answer.
type UnreadPage struct {
	PostPage
	// LastViewedAt is the read position the posts come after ("" never read).
	LastViewedAt string `json:"last_viewed_at,omitempty"`
	// Unread is Mattermost's own unread count for the channel.
	Unread int64 `json:"unread"`
}

func readUnread(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "read_unread",
		Title:       "Read my unread posts in a channel",
		Description: "Reads your posts of a channel after your read point, newest first, paged, until the read point; marks nothing read.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.readUnread)
}

func (d Deps) readUnread(ctx context.Context, args readUnreadArgs) (res catalogue.Result[UnreadPage], err error) {
	limit, err := limitOf(args.Limit, defaultPosts, maxPosts)
	if err != nil {
		return res, err
	}
	pc, from, err := openPage("read_unread", args)
	if err != nil {
		return res, err
	}
	c, view, err := d.channelOf(ctx, args.Channel, args.Team)
	if err != nil {
		return res, err
	}
	if view.member == nil {
		return res, refusal.New(fmt.Sprintf("You are not a member of %s, so Mattermost keeps no read point for you there.", view.shown()),
			fmt.Sprintf("Read it with read_channel(channel=%q).", view.ch.Id))
	}
	// Mattermost counts as unread the posts made after LastViewedAt.
	since := view.member.LastViewedAt + 1
	collapsed, chosen, err := repliesMode(c, args.Replies)
	if err != nil {
		return res, err
	}
	walk, err := walkChannel(c, view.ch.Id, from, since, 0, limit, collapsed)
	if err != nil {
		return res, err
	}
	page, ci, err := pc.channelPage(c, view, walk)
	if err != nil {
		return res, err
	}
	return readUnreadAnswer(unreadPage{cursor: pc, view: view, counts: ci, page: page, firstPage: from == "",
		collapsed: collapsed, chosen: chosen, skippedReplies: walk.skippedReplies})
}

// unreadPage is what read_unread fetched: one page of posts after the
// caller's read point in a channel, with Mattermost's counts for it.
type unreadPage struct {
	cursor pageCursor
	view   place
	counts ChannelInfo
	page   PostPage
	// firstPage is a call without cursor.
	firstPage bool
	// collapsed, chosen and skippedReplies say how replies were treated.
	collapsed, chosen bool
	skippedReplies    int
}

// readUnreadAnswer writes read_unread's answer.
func readUnreadAnswer(f unreadPage) (catalogue.Result[UnreadPage], error) {
	pc, view, ci, page := f.cursor, f.view, f.counts, f.page
	out := UnreadPage{PostPage: page, Unread: ci.Unread}
	read := "you have never read it"
	if lv := view.member.LastViewedAt; lv > 0 {
		out.LastViewedAt = rfc3339(lv)
		read = "you last read it at " + out.LastViewedAt
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Channel %s: %s; Mattermost counts %s (%s). ", view.shown(), read, present.Count(int(ci.Unread), "unread post", "unread posts"), present.Count(int(ci.Mentions), "mention", "mentions"))
	switch {
	case len(page.Posts) == 0 && f.firstPage:
		b.WriteString("There are no posts after your read point.")
	case len(page.Posts) == 0:
		b.WriteString("No more unread posts before the previous page.")
	default:
		fmt.Fprintf(&b, "%d unread posts, newest first, from %s back to %s. Nothing was marked read.",
			len(page.Posts), page.Posts[0].Time, page.Posts[len(page.Posts)-1].Time)
	}
	collapsedNote(&b, f.collapsed, f.chosen, f.skippedReplies)
	pc.writePosts(&b, page, "Older unread posts", "These reach your read point: there are no older unread posts.")
	return answerLinked(b.String(), out, postLinks(page.Posts...))
}
