package approval

import (
	"context"
	"errors"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of a pin and an unpin, as records keep them.
const (
	ActionPin   = "pin"
	ActionUnpin = "unpin"
)

// PinPost and UnpinPost set a post's pin (the plan's PostID, its message
// in Previous), which everyone in the channel sees in its pinned messages.
// They are one write in two directions, so they share this file.
var (
	PinPost = Register(&Kind[ShownPost]{
		Action: ActionPin,
		Tools:  []string{"pin_post"},
		Heading: func(p posting.Plan, s ShownPost) posting.Line {
			return say("Pin " + byWhom(p, s) + " in " + p.Dest.PlaceText() + " for everyone in it")
		},
		Words: Words{
			Asks: "pin a post for everyone in its channel",
			Lede: "It asks to pin this post: everyone in the channel sees it in the channel's pinned messages. Nothing changes until you accept.",
			Box:  "Pin it", Accept: "Accept and pin",
			PostCaption:  "The post that is pinned",
			NotesHeading: "Who sees it",
			Done:         func(place string) string { return "The post" + in(place) + " was pinned." },
			Declined:     "Declined: the post was not pinned.",
		},
		Facts:   pinFacts,
		Recheck: samePost,
		Carry:   setPinned(true),
	})
	UnpinPost = Register(&Kind[ShownPost]{
		Action: ActionUnpin,
		Tools:  []string{"unpin_post"},
		Heading: func(p posting.Plan, s ShownPost) posting.Line {
			return say("Unpin " + byWhom(p, s) + " in " + p.Dest.PlaceText() + " for everyone in it")
		},
		Words: Words{
			Asks: "unpin a post for everyone in its channel",
			Lede: "It asks to unpin this post: it leaves the channel's pinned messages for everyone. Nothing changes until you accept.",
			Box:  "Unpin it", Accept: "Accept and unpin",
			PostCaption:  "The post that is unpinned",
			NotesHeading: "Who sees it",
			Done:         func(place string) string { return "The post" + in(place) + " was unpinned." },
			Declined:     "Declined: the post stays pinned.",
		},
		Facts:   pinFacts,
		Recheck: samePost,
		Carry:   setPinned(false),
	})
)

func setPinned(pinned bool) func(context.Context, *Approvals, *mattermost.Caller, posting.Plan, ShownPost) (Executed, error) {
	return func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan, _ ShownPost) (Executed, error) {
		err := c.SetPinned(plan.PostID, pinned)
		switch {
		case errors.Is(err, mattermost.ErrArchived):
			return Executed{}, refusal.New("The channel is archived; nothing was changed.", "")
		case err != nil:
			return Executed{}, err
		}
		return Executed{PostID: plan.PostID, ChannelID: plan.Dest.ChannelID, Permalink: a.permalink(c, plan.Dest.ChannelID, plan.PostID)}, nil
	}
}

func pinFacts(p posting.Plan, s ShownPost) []posting.Fact {
	return []posting.Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Posted by", Value: author(p, s)}}
}

// byWhom is "your post" or "a post by @bob".
func byWhom(p posting.Plan, s ShownPost) string {
	if a := author(p, s); a != "you" {
		return "a post by " + a
	}
	return "your post"
}

func author(p posting.Plan, s ShownPost) string {
	t := s.target()
	if t.AuthorID == p.CallerID || t.Author == "" {
		return "you"
	}
	return "@" + t.Author
}
