package approval

import (
	"errors"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// sameChannel refuses a channel that is gone, archived or of another kind
// than the person was shown.
func sameChannel(c *mattermost.Caller, plan posting.Plan) (*model.Channel, error) {
	spec := plan.Channel
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

func joinChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	ch, err := sameChannel(c, plan)
	if err != nil {
		return Executed{}, err
	}
	if err := c.JoinChannel(ch.Id); err != nil {
		return Executed{}, channelRefusal(plan, err)
	}
	return Executed{ChannelID: ch.Id}, nil
}

func leaveChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	ch, err := sameChannel(c, plan)
	if err != nil {
		return Executed{}, err
	}
	if err := c.LeaveChannel(ch.Id); err != nil {
		return Executed{}, channelRefusal(plan, err)
	}
	return Executed{ChannelID: ch.Id}, nil
}

func createChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	spec := plan.Channel
	if spec == nil {
		return Executed{}, refusal.New("This confirmation does not say which channel to create; nothing was changed.", "")
	}
	taken, err := c.ChannelNameTaken(spec.TeamID, spec.Name)
	if err != nil {
		return Executed{}, err
	}
	if taken {
		return Executed{}, refusal.Newf("A channel ~%s was made in %s since the person was asked; nothing was created.", spec.Name, spec.Team)
	}
	typ := model.ChannelTypeOpen
	if spec.Private {
		typ = model.ChannelTypePrivate
	}
	// The members are checked before anything is created.
	for _, m := range plan.Members {
		if in, err := c.InTeam(spec.TeamID, m.ID); err != nil || !in {
			if err != nil {
				return Executed{}, err
			}
			return Executed{}, refusal.Newf("@%s is no longer in %s; nothing was created.", m.Username, spec.Team)
		}
	}
	ch, err := c.CreateChannel(&model.Channel{TeamId: spec.TeamID, Name: spec.Name, DisplayName: spec.DisplayName, Type: typ,
		Purpose: spec.Purpose, Header: spec.Header})
	if ch == nil {
		if errors.Is(err, mattermost.ErrNotAllowed) {
			return Executed{}, refusal.Newf("The person's role does not allow creating a %s in %s; nothing was created.", spec.Kind(), spec.Team)
		}
		return Executed{}, err
	}
	done := Executed{ChannelID: ch.Id, Permalink: channelLink(c, spec.TeamID, ch.Name)}
	if err != nil {
		return done, err
	}
	for _, m := range plan.Members {
		if err := c.AddChannelMember(ch.Id, m.ID); err != nil {
			return done, refusal.Newf("The channel ~%s was created, but adding @%s failed (%v).", ch.Name, m.Username, err)
		}
	}
	return done, nil
}

func addMembers(_ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	ch, err := sameChannel(c, plan)
	if err != nil {
		return Executed{}, err
	}
	if !c.MayAddMembers(ch) {
		return Executed{}, channelRefusal(plan, mattermost.ErrNotAllowed)
	}
	for _, m := range plan.Members {
		if in, err := c.InTeam(ch.TeamId, m.ID); err != nil || !in {
			if err != nil {
				return Executed{}, err
			}
			return Executed{}, refusal.Newf("@%s is no longer in the channel's team; nobody was added.", m.Username)
		}
	}
	for i, m := range plan.Members {
		if err := c.AddChannelMember(ch.Id, m.ID); err != nil {
			if i == 0 {
				return Executed{}, channelRefusal(plan, err)
			}
			return Executed{ChannelID: ch.Id}, refusal.Newf("Adding @%s failed (%v); the %d before them were added.", m.Username, err, i)
		}
	}
	return Executed{ChannelID: ch.Id}, nil
}

// channelLink is where the person opens a channel.
func channelLink(c *mattermost.Caller, teamID, name string) string {
	t, err := c.Team(teamID)
	if err != nil {
		return ""
	}
	return c.SiteURL() + "/" + t.Name + "/channels/" + name
}
