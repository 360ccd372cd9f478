package approval

import (
	"context"
	"errors"
	"strings"

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
// They are one write in two directions, so they share this file and one
// constructor.
var (
	PinPost = Register(pinKind(pinWay{
		action: ActionPin, verb: "pin", done: "pinned", pinned: true,
		lede:     "It asks to pin this post: everyone in the channel sees it in the channel's pinned messages. Nothing changes until you accept.",
		declined: "Declined: the post was not pinned.",
	}))
	UnpinPost = Register(pinKind(pinWay{
		action: ActionUnpin, verb: "unpin", done: "unpinned",
		lede:     "It asks to unpin this post: it leaves the channel's pinned messages for everyone. Nothing changes until you accept.",
		declined: "Declined: the post stays pinned.",
	}))
)

// pinWay is what tells a pin from an unpin: the verb (its tool is
// <verb>_post) and what it makes of the post, the lede and the no, and the
// pin the one call sets.
type pinWay struct {
	action, verb, done string
	lede, declined     string
	pinned             bool
}

func pinKind(w pinWay) *Kind[ShownPost] {
	verb := strings.ToUpper(w.verb[:1]) + w.verb[1:]
	return &Kind[ShownPost]{
		Action: w.action,
		Tools:  []string{w.verb + "_post"},
		Heading: func(p posting.Plan, s ShownPost) posting.Line {
			return say(verb + " " + byWhom(p, s) + " in " + p.Dest.PlaceText() + " for everyone in it")
		},
		Words: Words{
			Asks: w.verb + " a post for everyone in its channel",
			Lede: w.lede,
			Box:  verb + " it", Accept: "Accept and " + w.verb,
			PostCaption:  "The post that is " + w.done,
			NotesHeading: "Who sees it",
			Done:         func(place string) string { return "The post" + in(place) + " was " + w.done + "." },
			Declined:     w.declined,
		},
		Facts:   pinFacts,
		Recheck: samePost,
		Carry: func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan, _ ShownPost) (Executed, error) {
			err := c.SetPinned(plan.PostID, w.pinned)
			switch {
			case errors.Is(err, mattermost.ErrArchived):
				return Executed{}, refusal.New("The channel is archived; nothing was changed.", "")
			case err != nil:
				return Executed{}, err
			}
			return Executed{PostID: plan.PostID, ChannelID: plan.Dest.ChannelID, Permalink: a.permalink(c, plan.Dest.ChannelID, plan.PostID)}, nil
		},
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
