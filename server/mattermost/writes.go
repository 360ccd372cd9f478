package mattermost

import (
	"errors"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

// Writes: every method acts as the caller and checks what Mattermost would
// check for them, because the plugin API itself checks nothing. A channel or
// post the caller cannot read is ErrNotFound.
//
// There is no way in the plugin API to delete a file once it is uploaded
// (see uploads.go). The posting pipeline therefore validates everything
// first and uploads last, right before creating the post.

// ErrNotYours refuses an edit of someone else's post.
var ErrNotYours = errors.New("not the caller's own post")

// MayPost reports whether the caller may post, and upload files, in a
// channel they can read.
func (c *Caller) MayPost(channelID string) (post, upload bool, err error) {
	if _, err := c.Channel(channelID); err != nil {
		return false, false, err
	}
	post = c.g.api.User.HasPermissionToChannel(c.userID, channelID, model.PermissionCreatePost)
	upload = c.g.api.User.HasPermissionToChannel(c.userID, channelID, model.PermissionUploadFile)
	return post, upload, nil
}

// ServerMaxFileSize is Mattermost's FileSettings.MaxFileSize in bytes.
func (c *Caller) ServerMaxFileSize() int64 {
	cfg := c.g.config()
	if cfg == nil || cfg.FileSettings.MaxFileSize == nil {
		return 100 << 20
	}
	return *cfg.FileSettings.MaxFileSize
}

// AttachmentsEnabled is Mattermost's FileSettings.EnableFileAttachments.
func (c *Caller) AttachmentsEnabled() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.FileSettings.EnableFileAttachments })
}

// MemberCount is how many people a channel the caller can read reaches.
func (c *Caller) MemberCount(channelID string) (int64, error) {
	if _, err := c.Channel(channelID); err != nil {
		return 0, err
	}
	stats, appErr := c.g.raw.GetChannelStats(channelID)
	if appErr != nil {
		return 0, fmt.Errorf("read channel stats: %w", appErr)
	}
	return stats.MemberCount, nil
}

// ErrCannotStartConversation refuses a direct or group message that does
// not exist yet to a caller whose role lacks create_direct_channel or
// create_group_channel: Mattermost's API checks these before it opens one.
// A conversation that exists already is only written in, which
// create_post in it decides.
var ErrCannotStartConversation = errors.New("the caller may not start this direct or group message")

// MayMessage reports, as ErrCannotStartConversation, whether the caller may
// write to others (people they can see) in a direct message (one other) or
// a group message (more): the conversation exists, or the caller's role
// lets them start it. Nothing is created.
func (c *Caller) MayMessage(otherIDs []string) error {
	_, err := c.conversation(otherIDs)
	return err
}

// conversation is the existing direct or group message of the caller and
// others (nil when there is none yet and the caller may start it).
func (c *Caller) conversation(otherIDs []string) (*model.Channel, error) {
	ids := []string{c.userID}
	for _, id := range otherIDs {
		if _, err := c.User(id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	name, perm := model.GetGroupNameFromUserIds(ids), model.PermissionCreateGroupChannel
	if len(otherIDs) == 1 {
		name, perm = model.GetDMNameFromIds(c.userID, otherIDs[0]), model.PermissionCreateDirectChannel
	}
	ch, err := c.g.api.Channel.GetByName("", name, false)
	if err == nil && ch != nil && (ch.Type == model.ChannelTypeDirect || ch.Type == model.ChannelTypeGroup) {
		return ch, nil
	}
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("find the conversation: %w", err)
	}
	if !c.g.api.User.HasPermissionTo(c.userID, perm) {
		return nil, ErrCannotStartConversation
	}
	return nil, nil
}

// DirectChannelWith opens (creating if needed and allowed) the caller's
// direct message with another person they can see.
func (c *Caller) DirectChannelWith(otherID string) (*model.Channel, error) {
	if ch, err := c.conversation([]string{otherID}); ch != nil || err != nil {
		return ch, err
	}
	ch, appErr := c.g.raw.GetDirectChannel(c.userID, otherID)
	if appErr != nil {
		return nil, fmt.Errorf("open direct message: %w", appErr)
	}
	return ch, nil
}

// GroupChannelWith opens (creating if needed and allowed) the group message
// of the caller and others they can see.
func (c *Caller) GroupChannelWith(otherIDs []string) (*model.Channel, error) {
	if ch, err := c.conversation(otherIDs); ch != nil || err != nil {
		return ch, err
	}
	ch, appErr := c.g.raw.GetGroupChannel(append([]string{c.userID}, otherIDs...))
	if appErr != nil {
		return nil, fmt.Errorf("open group message: %w", appErr)
	}
	return ch, nil
}

// CreatePost posts as the caller in a channel they may post in.
func (c *Caller) CreatePost(p *model.Post) (*model.Post, error) {
	post, _, err := c.MayPost(p.ChannelId)
	if err != nil {
		return nil, err
	}
	if !post {
		return nil, ErrNotFound
	}
	p.UserId = c.userID
	if err := c.g.api.Post.CreatePost(p); err != nil {
		return nil, fmt.Errorf("create post: %w", err)
	}
	return p, nil
}

// EditOwnPost changes the message of one of the caller's own posts.
func (c *Caller) EditOwnPost(postID, message string, props map[string]any) (*model.Post, error) {
	p, err := c.Post(postID)
	if err != nil {
		return nil, err
	}
	if p.UserId != c.userID {
		return nil, ErrNotYours
	}
	if !c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionEditPost) {
		return nil, ErrNotYours
	}
	edited := p.Clone()
	edited.Message = message
	for k, v := range props {
		edited.AddProp(k, v)
	}
	if err := c.g.api.Post.UpdatePost(edited); err != nil {
		return nil, fmt.Errorf("update post: %w", err)
	}
	return edited, nil
}

// React adds (or, with remove, takes back) the caller's reaction to a post
// they can read.
func (c *Caller) React(postID, emoji string, remove bool) error {
	p, err := c.Post(postID)
	if err != nil {
		return err
	}
	if !c.g.api.User.HasPermissionToChannel(c.userID, p.ChannelId, model.PermissionAddReaction) {
		return ErrNotFound
	}
	r := &model.Reaction{UserId: c.userID, PostId: p.Id, EmojiName: emoji, ChannelId: p.ChannelId}
	if remove {
		if err := c.g.api.Post.RemoveReaction(r); err != nil {
			return fmt.Errorf("remove reaction: %w", err)
		}
		return nil
	}
	if err := c.g.api.Post.AddReaction(r); err != nil {
		return fmt.Errorf("add reaction: %w", err)
	}
	return nil
}

// Reactions are the reactions on a post the caller can read.
func (c *Caller) Reactions(postID string) ([]*model.Reaction, error) {
	if _, err := c.Post(postID); err != nil {
		return nil, err
	}
	rs, err := c.g.api.Post.GetReactions(postID)
	if err != nil {
		return nil, fmt.Errorf("read reactions: %w", err)
	}
	return rs, nil
}

// NotifyPending tells the caller's open Mattermost clients (and only
// theirs) that a write waits for their answer. The webapp listens for
// custom_<plugin id>_pending_confirmation.
func (c *Caller) NotifyPending(id, title string) {
	c.g.raw.PublishWebSocketEvent("pending_confirmation",
		map[string]any{"confirmations": []any{map[string]any{"id": id, "title": title}}},
		&model.WebsocketBroadcast{UserId: c.userID})
}

// NotifyAnswered tells the caller's open Mattermost clients (and only
// theirs) that a pending post was answered, so every tab drops or updates
// it. The webapp listens for custom_<plugin id>_confirmation_answered.
func (c *Caller) NotifyAnswered(id, state string) {
	c.g.raw.PublishWebSocketEvent("confirmation_answered", map[string]any{"id": id, "state": state},
		&model.WebsocketBroadcast{UserId: c.userID})
}
