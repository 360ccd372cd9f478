package mattermost

import (
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// Bot is the plugin's bot account. It only ever writes to a person the
// direct messages that tell them of writes waiting for their answer.
type Bot struct {
	g  *Gateway
	id string
}

// EnsureBot creates the plugin's bot, or brings the existing one up to date
// (once per cluster: pluginapi takes a cluster mutex), with the profile
// image at iconPath inside the plugin bundle.
func (g *Gateway) EnsureBot(username, displayName, description, iconPath string) (*Bot, error) {
	id, err := g.api.Bot.EnsureBot(&model.Bot{Username: username, DisplayName: displayName, Description: description},
		pluginapi.ProfileImagePath(iconPath))
	if err != nil {
		return nil, fmt.Errorf("ensure the bot account: %w", err)
	}
	return &Bot{g: g, id: id}, nil
}

// ID is the bot's user id.
func (b *Bot) ID() string { return b.id }

// Tell posts p in the bot's direct message with the user and answers the
// post's id.
func (b *Bot) Tell(userID string, p *model.Post) (string, error) {
	ch, appErr := b.g.raw.GetDirectChannel(b.id, userID)
	if appErr != nil {
		return "", fmt.Errorf("open the bot's direct message: %w", appErr)
	}
	p.UserId, p.ChannelId = b.id, ch.Id
	created, appErr := b.g.raw.CreatePost(p)
	if appErr != nil {
		return "", fmt.Errorf("post the bot's direct message: %w", appErr)
	}
	return created.Id, nil
}

// Edit replaces the message and attachments of one of the bot's own posts.
func (b *Bot) Edit(postID string, change func(*model.Post)) error {
	p, appErr := b.g.raw.GetPost(postID)
	if appErr != nil {
		return notFoundOr(appErr, "read the bot's direct message")
	}
	if p.UserId != b.id {
		return ErrNotFound
	}
	change(p)
	if _, appErr := b.g.raw.UpdatePost(p); appErr != nil {
		return fmt.Errorf("edit the bot's direct message: %w", appErr)
	}
	return nil
}
