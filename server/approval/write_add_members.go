package approval

import (
	"context"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ActionAddMembers is adding people's action as records keep it.
const ActionAddMembers = "add_members"

// AddMembers: people added to a channel the person is in.
var AddMembers = Register(&Kind[ChannelMembers]{
	Action: ActionAddMembers,
	Tools:  []string{"add_channel_members"},
	Heading: func(p posting.Plan, s ChannelMembers) posting.Line {
		return say("Add " + usernames(s.Members) + " to " + p.Dest.PlaceText())
	},
	Words: Words{
		Asks: "add people to a channel as you",
		Lede: "It asks to add these people to the channel as you. Nothing changes until you accept.",
		Box:  "Add them", Accept: "Accept and add",
		NotesHeading: "Who is notified",
		Done:         func(place string) string { return "The people were added" + orTo(place) + "." },
		Declined:     "Declined: nobody was added.",
	},
	Facts: func(p posting.Plan, s ChannelMembers) []posting.Fact {
		return []posting.Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: s.spec().Kind()}, {Label: "People", Value: usernames(s.Members)}}
	},
	Recheck: func(_ *Approvals, c *mattermost.Caller, plan posting.Plan, s ChannelMembers) error {
		ch, err := sameChannel(c, plan, s.Channel)
		if err != nil {
			return err
		}
		if !c.MayAddMembers(ch) {
			return channelRefusal(plan, mattermost.ErrNotAllowed)
		}
		for _, m := range s.Members {
			if in, err := c.InTeam(ch.TeamId, m.ID); err != nil || !in {
				if err != nil {
					return err
				}
				return refusal.Newf("@%s is no longer in the channel's team; nobody was added.", m.Username)
			}
		}
		return nil
	},
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan, s ChannelMembers) (Executed, error) {
		id := s.Channel.ID
		for i, m := range s.Members {
			if err := c.AddChannelMember(id, m.ID); err != nil {
				if i == 0 {
					return Executed{}, channelRefusal(plan, err)
				}
				return Executed{ChannelID: id}, refusal.Newf("Adding @%s failed (%v); the %d before them were added.", m.Username, err, i)
			}
		}
		return Executed{ChannelID: id}, nil
	},
})

func orTo(place string) string {
	if place == "" {
		return ""
	}
	return " to " + place
}
