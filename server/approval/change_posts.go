package approval

import (
	"errors"
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// samePost refuses a post that no longer reads as the person was shown
// it: gone, edited, or with other replies or files.
func samePost(c *mattermost.Caller, plan posting.Plan) error {
	p, err := c.Post(plan.PostID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return refusal.Newf("The post %s is gone or no longer readable; nothing was changed.", plan.PostID)
	}
	if err != nil {
		return err
	}
	t := plan.Target
	if t == nil {
		return refusal.New("This confirmation does not say which post it shows; nothing was changed.", "")
	}
	replies, err := c.Replies(p)
	if err != nil {
		return err
	}
	files, err := c.PostFiles(p)
	if err != nil {
		return err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	if p.Message != plan.Previous || p.EditAt != t.EditAt || replies != t.Replies || !slices.Equal(names, t.Files) {
		return refusal.New("The post changed since the person was asked (its message, replies or files); nothing was changed.", "Ask again with the post as it is now.")
	}
	return nil
}

func deletePost(_ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	if err := samePost(c, plan); err != nil {
		return Executed{}, err
	}
	err := c.DeleteOwnPost(plan.PostID)
	switch {
	case errors.Is(err, mattermost.ErrNotYours):
		return Executed{}, refusal.New("That post is not the person's own, or their role may not delete it; nothing was changed.", "")
	case errors.Is(err, mattermost.ErrArchived):
		return Executed{}, refusal.New("The channel is archived; nothing was changed.", "")
	case err != nil:
		return Executed{}, err
	}
	return Executed{PostID: plan.PostID, ChannelID: plan.Dest.ChannelID}, nil
}

func pinPost(a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	if err := samePost(c, plan); err != nil {
		return Executed{}, err
	}
	err := c.SetPinned(plan.PostID, plan.Action == posting.ActionPin)
	switch {
	case errors.Is(err, mattermost.ErrArchived):
		return Executed{}, refusal.New("The channel is archived; nothing was changed.", "")
	case err != nil:
		return Executed{}, err
	}
	return Executed{PostID: plan.PostID, ChannelID: plan.Dest.ChannelID, Permalink: a.permalink(c, plan.Dest.ChannelID, plan.PostID)}, nil
}
