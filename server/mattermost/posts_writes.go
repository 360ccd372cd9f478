package mattermost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// What the caller changes of posts: deleting and pinning, posting, editing
// and reacting as them, and saving a post or a reminder of it.

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

// SavePost saves (flags) a post the caller can read, or takes it out of
// their saved posts.
func (v *OwnView) SavePost(postID string, save bool) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	pref := []model.Preference{{UserId: v.c.userID, Category: FlaggedPost, Name: p.Id, Value: "true"}}
	if save {
		if appErr := v.c.g.raw.UpdatePreferencesForUser(v.c.userID, pref); appErr != nil {
			return nil, fmt.Errorf("save post: %w", appErr)
		}
		return p, nil
	}
	if appErr := v.c.g.raw.DeletePreferencesForUser(v.c.userID, pref); appErr != nil && appErr.StatusCode != http.StatusNotFound {
		return nil, fmt.Errorf("unsave post: %w", appErr)
	}
	return p, nil
}

// SetPostReminder has Mattermost remind the caller of a post they can read
// at a time (its system bot sends them a message then). A later reminder
// for the same post replaces this one.
func (v *OwnView) SetPostReminder(ctx context.Context, postID string, at time.Time) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	resp, err := client.SetPostReminder(ctx, &model.PostReminder{UserId: v.c.userID, PostId: p.Id, TargetTime: at.Unix()})
	if err := restErr("set reminder at "+strconv.FormatInt(at.Unix(), 10), resp, err); err != nil {
		return nil, err
	}
	return p, nil
}
