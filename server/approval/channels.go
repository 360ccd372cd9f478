package approval

import (
	"errors"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// What the writes about a channel share: the channel as the person was
// shown it, checked again when they answer, and Mattermost's refusals
// worded for the model.

// ChannelShown is the payload of a write about one channel the person is
// shown (a join, a leave).
type ChannelShown struct {
	Channel *posting.ChannelSpec `json:"channel,omitempty"`
}

func (s ChannelShown) spec() posting.ChannelSpec { return orZero(s.Channel) }

func (s ChannelShown) touches() (channelID, teamID string, userIDs []string) {
	return touchesChannel(s.Channel, nil)
}

// ChannelMembers is the payload of a write that brings people into a
// channel: a new one (create_channel) or one the person is in
// (add_channel_members).
type ChannelMembers struct {
	Channel *posting.ChannelSpec `json:"channel,omitempty"`
	Members []posting.Person     `json:"members,omitempty"`
}

func (s ChannelMembers) spec() posting.ChannelSpec { return orZero(s.Channel) }

func (s ChannelMembers) touches() (channelID, teamID string, userIDs []string) {
	return touchesChannel(s.Channel, s.Members)
}

func touchesChannel(ch *posting.ChannelSpec, people []posting.Person) (channelID, teamID string, userIDs []string) {
	for _, m := range people {
		userIDs = append(userIDs, m.ID)
	}
	if ch == nil {
		return "", "", userIDs
	}
	return ch.ID, ch.TeamID, userIDs
}

// sameChannel refuses a channel that is gone, archived or of another kind
// than the person was shown.
func sameChannel(c *mattermost.Caller, plan posting.Plan, spec *posting.ChannelSpec) (*model.Channel, error) {
	if spec == nil || spec.ID == "" {
		return nil, refusal.New("This confirmation does not say which channel it is about; nothing was changed.", "")
	}
	ch, err := c.Channel(spec.ID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil, refusal.Newf("%s is gone or no longer readable; nothing was changed.", plan.Dest.Label)
	}
	if err != nil {
		return nil, err
	}
	if ch.DeleteAt != 0 {
		return nil, refusal.Newf("%s was archived since the person was asked; nothing was changed.", plan.Dest.Label)
	}
	if (ch.Type == model.ChannelTypePrivate) != spec.Private || ch.TeamId != spec.TeamID {
		return nil, refusal.Newf("%s changed since the person was asked (it is now a %s); nothing was changed.", plan.Dest.Label, kindOf(ch))
	}
	return ch, nil
}

func kindOf(ch *model.Channel) string {
	if ch.Type == model.ChannelTypePrivate {
		return "private channel"
	}
	return "public channel"
}

// channelRefusal words what Mattermost's side refused.
func channelRefusal(plan posting.Plan, err error) error {
	switch {
	case errors.Is(err, mattermost.ErrNotAllowed):
		return refusal.Newf("The person's role does not allow this in %s; nothing was changed.", plan.Dest.Label)
	case errors.Is(err, mattermost.ErrNotMember):
		return refusal.Newf("The person is no longer in %s; nothing was changed.", plan.Dest.Label)
	case errors.Is(err, mattermost.ErrArchived):
		return refusal.Newf("%s is archived; nothing was changed.", plan.Dest.Label)
	case errors.Is(err, mattermost.ErrNotFound):
		return refusal.Newf("%s or someone in it is no longer found; nothing was changed.", plan.Dest.Label)
	}
	return err
}

// channelLink is where the person opens a channel.
func channelLink(c *mattermost.Caller, teamID, name string) string {
	t, err := c.Team(teamID)
	if err != nil {
		return ""
	}
	return c.SiteURL() + "/" + t.Name + "/channels/" + name
}
