package main

import (
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"

	"github.com/mcp-server/mattermost-plugin-mcp/server/live"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

// Mattermost calls these on the node where a post was created, edited or
// deleted; the sessions subscribed to its channel or thread hear of it
// there, wherever their streams are open (live.Service.Changed).

// MessageHasBeenPosted tells the subscribers of a new post's channel.
func (p *Plugin) MessageHasBeenPosted(_ *plugin.Context, post *model.Post) { p.postChanged(post) }

// MessageHasBeenUpdated tells the subscribers of an edited post's channel.
func (p *Plugin) MessageHasBeenUpdated(_ *plugin.Context, post, _ *model.Post) { p.postChanged(post) }

// MessageHasBeenDeleted tells the subscribers of a deleted post's channel.
func (p *Plugin) MessageHasBeenDeleted(_ *plugin.Context, post *model.Post) { p.postChanged(post) }

func (p *Plugin) postChanged(post *model.Post) {
	if post == nil {
		return
	}
	// The waits for a reply in the channel, on any node, look now.
	if hub := p.wake.Load(); hub != nil {
		hub.Happened(wake.Channel(post.ChannelId), post.Id)
	}
	watched := p.live.Load()
	if watched == nil {
		return
	}
	if err := watched.Changed(live.Post{ID: post.Id, ChannelID: post.ChannelId, RootID: post.RootId}); err != nil {
		p.gateway.Load().Log().Warn("Could not tell every subscriber of a changed post", "channel_id", post.ChannelId, "error", err.Error())
	}
}
