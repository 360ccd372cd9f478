package mattermost

import (
	"context"
	"errors"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// Scheduled posts are Mattermost's own: kept by the server, sent by its
// scheduler at their time, and listed in the person's Scheduled view,
// where they can change or delete them before then. Mattermost refuses
// them without a licence or with ServiceSettings.ScheduledPosts off, and
// the plugin API has no method for them, so they are made through the REST
// API as the caller, like the own-view changes.

// ScheduledPostsOn reports whether ServiceSettings.ScheduledPosts is on
// (the licence is checked apart: the plugin API hands it over on its own).
func ScheduledPostsOn(cfg *model.Config) bool {
	return cfg != nil && Setting(cfg.ServiceSettings.ScheduledPosts)
}

// ScheduledPost is a post to send later: where, what, and when.
type ScheduledPost struct {
	ChannelID, RootID, Message string
	Props                      map[string]any
	At                         time.Time
}

// SchedulePost has Mattermost send a post as the caller at its time, after
// checking that the caller can still post in the channel (and that a
// thread root is in it). It answers the scheduled post's id.
func (c *Caller) SchedulePost(ctx context.Context, p ScheduledPost) (string, error) {
	post, _, err := c.MayPost(p.ChannelID)
	if err != nil {
		return "", err
	}
	if !post {
		return "", ErrCannotPost
	}
	if p.RootID != "" {
		root, err := c.Post(p.RootID)
		if err != nil {
			return "", err
		}
		if root.ChannelId != p.ChannelID {
			return "", ErrNotFound
		}
	}
	client, err := c.rest()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	sp := &model.ScheduledPost{Draft: model.Draft{UserId: c.userID, ChannelId: p.ChannelID, RootId: p.RootID, Message: p.Message},
		ScheduledAt: p.At.UnixMilli()}
	if len(p.Props) > 0 {
		sp.SetProps(p.Props)
	}
	created, resp, err := client.CreateScheduledPost(ctx, sp)
	var appErr *model.AppError
	if errors.As(err, &appErr) && (appErr.Id == "api.scheduled_posts.license_error" || appErr.Id == "api.scheduled_posts.feature_disabled") {
		return "", ErrTurnedOff
	}
	if err := restErr("schedule post", resp, err); err != nil {
		return "", err
	}
	return created.Id, nil
}
