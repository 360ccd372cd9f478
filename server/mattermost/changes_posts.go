package mattermost

import (
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

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
