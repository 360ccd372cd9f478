package approval

import (
	"context"
	"errors"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of the channels family, as records keep them.
const (
	ActionJoin       = "join"
	ActionLeave      = "leave"
	ActionCreateChan = "create_channel"
)

// Channels family writes, each registered once in writes.
var channelWrites = []Write{joinWrite, leaveWrite, createChannelWrite}

// join_channel and leave_channel: the person's own membership, which the
// channel's members see as "joined the channel" / "left the channel".
var joinWrite = Write{
	Action:  ActionJoin,
	Tools:   []string{"join_channel"},
	Asks:    "add you to a public channel",
	Heading: func(p posting.Plan) posting.Line { return say("Join the public channel " + p.Dest.PlaceText()) },
	Lede:    "It asks to add you to this channel. Mattermost posts that you joined, for everyone in it to see. Nothing changes until you accept.",
	Box:     "Join it", Accept: "Accept and join",
	Facts:        channelFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "You joined" + orChannel(place) + "." },
	Declined:     "Declined: you did not join.",
	Recheck:      recheckChannel,
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
		if err := c.JoinChannel(plan.Channel.ID); err != nil {
			return Executed{}, channelRefusal(plan, err)
		}
		return Executed{ChannelID: plan.Channel.ID}, nil
	},
}

var leaveWrite = Write{
	Action: ActionLeave,
	Tools:  []string{"leave_channel"},
	Asks:   "take you out of a channel",
	Heading: func(p posting.Plan) posting.Line {
		return say("Leave the " + channelSpec(p).Kind() + " " + p.Dest.PlaceText())
	},
	Lede: "It asks to take you out of this channel. Mattermost posts that you left, for everyone in it to see. Nothing changes until you accept.",
	Box:  "Leave it", Accept: "Accept and leave",
	Facts:        channelFacts,
	NotesHeading: "What it means",
	Done:         func(place string) string { return "You left" + orChannel(place) + "." },
	Declined:     "Declined: you are still in the channel.",
	Recheck:      recheckChannel,
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
		if err := c.LeaveChannel(plan.Channel.ID); err != nil {
			return Executed{}, channelRefusal(plan, err)
		}
		return Executed{ChannelID: plan.Channel.ID}, nil
	},
}

func channelFacts(p posting.Plan) []posting.Fact {
	ch := channelSpec(p)
	fs := []posting.Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: ch.Kind()}}
	if ch.Purpose != "" {
		fs = append(fs, posting.Fact{Label: "Purpose", Value: ch.Purpose})
	}
	return fs
}

func channelSpec(p posting.Plan) posting.ChannelSpec {
	if p.Channel == nil {
		return posting.ChannelSpec{}
	}
	return *p.Channel
}

// orChannel is " place" or " the channel".
func orChannel(place string) string {
	if place == "" {
		return " the channel"
	}
	return " " + place
}

// create_channel: a new channel of one of the person's teams, with the
// people it starts with.
var createChannelWrite = Write{
	Action: ActionCreateChan,
	Tools:  []string{"create_channel"},
	Asks:   "create a channel as you",
	Heading: func(p posting.Plan) posting.Line {
		ch := channelSpec(p)
		rest := " in " + ch.Team
		if len(p.Members) > 0 {
			rest += " with " + usernames(p.Members)
		}
		return posting.Line{{Text: "Create the " + ch.Kind() + " "}, {Text: ch.DisplayName, AI: true}, {Text: rest}}
	},
	Lede: "It asks to create this channel as you, with you as its admin. Nothing is created until you accept.",
	Box:  "Create it", Accept: "Accept and create",
	Facts: func(p posting.Plan) []posting.Fact {
		ch := channelSpec(p)
		who := "anyone in " + ch.Team + " can find and join it"
		if ch.Private {
			who = "only its members see it; others join only when a member adds them"
		}
		fs := []posting.Fact{{Label: "Team", Value: ch.Team}, {Label: "Name", Value: ch.DisplayName, AI: true},
			{Label: "Address", Value: "~" + ch.Name, AI: true}, {Label: "Kind", Value: ch.Kind() + ": " + who}}
		if ch.Purpose != "" {
			fs = append(fs, posting.Fact{Label: "Purpose", Value: ch.Purpose, AI: true})
		}
		if ch.Header != "" {
			fs = append(fs, posting.Fact{Label: "Header", Value: ch.Header, AI: true})
		}
		members := "only you"
		if len(p.Members) > 0 {
			members = "you, " + usernames(p.Members)
		}
		return append(fs, posting.Fact{Label: "Members", Value: members})
	},
	NotesHeading: "Who is notified",
	// The channel's name is the model's, so the sentence does not repeat it.
	Done:     func(string) string { return "The channel was created." },
	Declined: "Declined: no channel was created.",
	Recheck:  recheckNewChannel,
	Carry:    createChannel,
}

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

// recheckChannel refuses a channel that is gone, archived or of another
// kind than the person was shown.
func recheckChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan) error {
	_, err := sameChannel(c, plan)
	return err
}

// recheckNewChannel refuses a channel whose name was taken, or whose people
// left its team, since the person was asked.
func recheckNewChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan) error {
	spec := plan.Channel
	if spec == nil {
		return refusal.New("This confirmation does not say which channel to create; nothing was changed.", "")
	}
	taken, err := c.ChannelNameTaken(spec.TeamID, spec.Name)
	if err != nil {
		return err
	}
	if taken {
		return refusal.Newf("A channel ~%s was made in %s since the person was asked; nothing was created.", spec.Name, spec.Team)
	}
	for _, m := range plan.Members {
		if in, err := c.InTeam(spec.TeamID, m.ID); err != nil || !in {
			if err != nil {
				return err
			}
			return refusal.Newf("@%s is no longer in %s; nothing was created.", m.Username, spec.Team)
		}
	}
	return nil
}

func createChannel(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	spec := plan.Channel
	typ := model.ChannelTypeOpen
	if spec.Private {
		typ = model.ChannelTypePrivate
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

// channelLink is where the person opens a channel.
func channelLink(c *mattermost.Caller, teamID, name string) string {
	t, err := c.Team(teamID)
	if err != nil {
		return ""
	}
	return c.SiteURL() + "/" + t.Name + "/channels/" + name
}
