package approval

import (
	"context"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

// Actions of a join and a leave, as records keep them.
const (
	ActionJoin  = "join"
	ActionLeave = "leave"
)

// JoinChannel and LeaveChannel: the person's own membership, which the
// channel's members see as "joined the channel" / "left the channel". They
// are one write in two directions, so they share this file and one
// constructor.
var (
	JoinChannel = Register(membershipKind(ActionJoin, "join_channel",
		func(p posting.Plan, _ ChannelShown) posting.Line {
			return say("Join the public channel " + p.Dest.PlaceText())
		},
		Words{
			Asks: "add you to a public channel",
			Lede: "It asks to add you to this channel. Mattermost posts that you joined, for everyone in it to see. Nothing changes until you accept.",
			Box:  "Join it", Accept: "Accept and join",
			NotesHeading: "Who sees it",
			Done:         func(place string) string { return "You joined" + orChannel(place) + "." },
			Declined:     "Declined: you did not join.",
		},
		(*mattermost.Caller).JoinChannel))
	LeaveChannel = Register(membershipKind(ActionLeave, "leave_channel",
		func(p posting.Plan, s ChannelShown) posting.Line {
			return say("Leave the " + s.spec().Kind() + " " + p.Dest.PlaceText())
		},
		Words{
			Asks: "take you out of a channel",
			Lede: "It asks to take you out of this channel. Mattermost posts that you left, for everyone in it to see. Nothing changes until you accept.",
			Box:  "Leave it", Accept: "Accept and leave",
			NotesHeading: "What it means",
			Done:         func(place string) string { return "You left" + orChannel(place) + "." },
			Declined:     "Declined: you are still in the channel.",
		},
		(*mattermost.Caller).LeaveChannel))
)

// membershipKind is a change of the person's own membership: its heading
// and words, and the one call that makes it in the channel they were shown.
func membershipKind(action, tool string, heading func(posting.Plan, ChannelShown) posting.Line, words Words,
	change func(c *mattermost.Caller, channelID string) error) *Kind[ChannelShown] {
	return &Kind[ChannelShown]{
		Action:  action,
		Tools:   []string{tool},
		Heading: heading,
		Words:   words,
		Facts:   channelFacts,
		Recheck: recheckChannel,
		Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan, s ChannelShown) (Executed, error) {
			if err := change(c, s.Channel.ID); err != nil {
				return Executed{}, channelRefusal(plan, err)
			}
			return Executed{ChannelID: s.Channel.ID}, nil
		},
	}
}

func channelFacts(p posting.Plan, s ChannelShown) []posting.Fact {
	ch := s.spec()
	fs := []posting.Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: ch.Kind()}}
	if ch.Purpose != "" {
		fs = append(fs, posting.Fact{Label: "Purpose", Value: ch.Purpose})
	}
	return fs
}

// orChannel is " place" or " the channel".
func orChannel(place string) string {
	if place == "" {
		return " the channel"
	}
	return " " + place
}

// recheckChannel refuses a channel that is gone, archived or of another
// kind than the person was shown.
func recheckChannel(_ *Approvals, c *mattermost.Caller, plan posting.Plan, s ChannelShown) error {
	_, err := sameChannel(c, plan, s.Channel)
	return err
}
