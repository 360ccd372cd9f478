package main

import (
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
)

// What this node keeps of a person's teams and channels for a few seconds
// (ADR 0015: their teams, the channels completion offers) is forgotten at
// once when Mattermost tells this node that they changed: the hooks run on
// the node that made the change, where the person's next call most often
// lands; other nodes follow within those seconds.

func (p *Plugin) membershipChanged(userID string) {
	if gw := p.gateway.Load(); gw != nil {
		gw.ForgetPerson(userID)
	}
	if c := p.complete.Load(); c != nil {
		c.Forget(userID)
	}
}

// ChannelHasBeenCreated: the creator is its first member.
func (p *Plugin) ChannelHasBeenCreated(_ *plugin.Context, ch *model.Channel) {
	if ch != nil {
		p.membershipChanged(ch.CreatorId)
	}
}

func (p *Plugin) UserHasJoinedChannel(_ *plugin.Context, m *model.ChannelMember, _ *model.User) {
	if m != nil {
		p.membershipChanged(m.UserId)
	}
}

func (p *Plugin) UserHasLeftChannel(_ *plugin.Context, m *model.ChannelMember, _ *model.User) {
	if m != nil {
		p.membershipChanged(m.UserId)
	}
}

func (p *Plugin) UserHasJoinedTeam(_ *plugin.Context, m *model.TeamMember, _ *model.User) {
	if m != nil {
		p.membershipChanged(m.UserId)
	}
}

func (p *Plugin) UserHasLeftTeam(_ *plugin.Context, m *model.TeamMember, _ *model.User) {
	if m != nil {
		p.membershipChanged(m.UserId)
	}
}
