package approval

import (
	"context"
	"errors"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ActionCreateChan is a new channel's action as records keep it.
const ActionCreateChan = "create_channel"

// CreateChannel: a new channel of one of the person's teams, with the
// people it starts with.
var CreateChannel = Register(&Kind[ChannelMembers]{
	Action: ActionCreateChan,
	Tools:  []string{"create_channel"},
	Heading: func(_ posting.Plan, s ChannelMembers) posting.Line {
		ch := s.spec()
		rest := " in " + ch.Team
		if len(s.Members) > 0 {
			rest += " with " + usernames(s.Members)
		}
		return posting.Line{{Text: "Create the " + ch.Kind() + " "}, {Text: ch.DisplayName, AI: true}, {Text: rest}}
	},
	Words: Words{
		Asks: "create a channel as you",
		Lede: "It asks to create this channel as you, with you as its admin. Nothing is created until you accept.",
		Box:  "Create it", Accept: "Accept and create",
		NotesHeading: "Who is notified",
		// The channel's name is the model's, so the sentence does not repeat it.
		Done:     func(string) string { return "The channel was created." },
		Declined: "Declined: no channel was created.",
	},
	Facts: func(_ posting.Plan, s ChannelMembers) []posting.Fact {
		ch := s.spec()
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
		if len(s.Members) > 0 {
			members = "you, " + usernames(s.Members)
		}
		return append(fs, posting.Fact{Label: "Members", Value: members})
	},
	Recheck: recheckNewChannel,
	Carry:   createChannel,
})

// recheckNewChannel refuses a channel whose name was taken, or whose people
// left its team, since the person was asked.
func recheckNewChannel(_ *Approvals, c *mattermost.Caller, _ posting.Plan, s ChannelMembers) error {
	spec := s.Channel
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
	for _, m := range s.Members {
		if in, err := c.InTeam(spec.TeamID, m.ID); err != nil || !in {
			if err != nil {
				return err
			}
			return refusal.Newf("@%s is no longer in %s; nothing was created.", m.Username, spec.Team)
		}
	}
	return nil
}

func createChannel(_ context.Context, _ *Approvals, c *mattermost.Caller, _ posting.Plan, s ChannelMembers) (Executed, error) {
	spec := s.Channel
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
	for _, m := range s.Members {
		if err := c.AddChannelMember(ch.Id, m.ID); err != nil {
			return done, refusal.Newf("The channel ~%s was created, but adding @%s failed (%v).", ch.Name, m.Username, err)
		}
	}
	return done, nil
}
