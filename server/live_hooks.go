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

// clusterWake is the cluster event by which the node where something a
// wait waits for happened (a reply posted, a file given) wakes the waits
// of the others (wake.Hub); its data is the topic.
const clusterWake = "mcp_wake"

func (p *Plugin) publishWake(topic []byte) {
	ev := model.PluginClusterEvent{Id: clusterWake, Data: topic}
	if err := p.API.PublishPluginClusterEvent(ev, model.PluginClusterEventSendOptions{SendType: model.PluginClusterEventSendTypeReliable}); err != nil {
		p.API.LogWarn("Could not wake the waits of the other servers; they find it through the KV store", "error", err.Error())
	}
}
