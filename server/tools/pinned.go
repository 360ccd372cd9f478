package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
)

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
	ci := view.info()
	page.Channel = &ci
	var b strings.Builder
	switch {
	case len(page.Posts) == 0 && after.ID == "":
		fmt.Fprintf(&b, "Channel %s has no pinned posts.", view.shown())
	case len(page.Posts) == 0:
		fmt.Fprintf(&b, "Channel %s: no pinned posts older than the previous page.", view.shown())
	default:
		fmt.Fprintf(&b, "Channel %s: %d pinned posts, newest first.", view.shown(), len(page.Posts))
	}
	pc.writePosts(&b, page, "Older pinned posts", "These are all the pinned posts of the channel.")
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
	var b strings.Builder
	switch {
	case len(page.Posts) == 0 && after.ID == "":
		b.WriteString("You have no saved posts that you can still read.")
	case len(page.Posts) == 0:
		b.WriteString("No saved posts older than the previous page.")
	default:
		fmt.Fprintf(&b, "Your saved posts: %d, newest first (posts in channels you can no longer read are left out).", len(page.Posts))
	}
	pc.writePosts(&b, page, "Older saved posts", "These are all your saved posts.")
	return answer(b.String(), page)
}
