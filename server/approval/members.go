package approval

import (
	"context"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of the members family, as records keep them.
const (
	ActionAddMembers = "add_members"
)

// Members family writes, each registered once in writes.
var memberWrites = []Write{addMembersWrite}

// add_channel_members: people added to a channel the person is in.
var addMembersWrite = Write{
	Action: ActionAddMembers,
	Tools:  []string{"add_channel_members"},
	Asks:   "add people to a channel as you",
	Heading: func(p posting.Plan) posting.Line {
		return say("Add " + usernames(p.Members) + " to " + p.Dest.PlaceText())
	},
	Lede: "It asks to add these people to the channel as you. Nothing changes until you accept.",
	Box:  "Add them", Accept: "Accept and add",
	Facts: func(p posting.Plan) []posting.Fact {
		return []posting.Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: channelSpec(p).Kind()}, {Label: "People", Value: usernames(p.Members)}}
	},
	NotesHeading: "Who is notified",
	Done:         func(place string) string { return "The people were added" + orTo(place) + "." },
	Declined:     "Declined: nobody was added.",
	Recheck: func(_ *Approvals, c *mattermost.Caller, plan posting.Plan) error {
		ch, err := sameChannel(c, plan)
		if err != nil {
			return err
		}
		if !c.MayAddMembers(ch) {
			return channelRefusal(plan, mattermost.ErrNotAllowed)
		}
		for _, m := range plan.Members {
			if in, err := c.InTeam(ch.TeamId, m.ID); err != nil || !in {
				if err != nil {
					return err
				}
				return refusal.Newf("@%s is no longer in the channel's team; nobody was added.", m.Username)
			}
		}
		return nil
	},
	Carry: addMembers,
}

func orTo(place string) string {
	if place == "" {
		return ""
	}
	return " to " + place
}

func addMembers(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	id := plan.Channel.ID
	for i, m := range plan.Members {
		if err := c.AddChannelMember(id, m.ID); err != nil {
			if i == 0 {
				return Executed{}, channelRefusal(plan, err)
			}
			return Executed{ChannelID: id}, refusal.Newf("Adding @%s failed (%v); the %d before them were added.", m.Username, err, i)
		}
	}
	return Executed{ChannelID: id}, nil
}
