package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of a reaction added or taken back, as records keep them.
const (
	ActionReact   = "react"
	ActionUnreact = "unreact"
)

// Reaction is the payload of a reaction added or taken back: the emoji's
// name, which the model chose. The record keeps it after the plan is
// dropped (Record.Emoji), so the outcome names it.
type Reaction struct {
	Emoji string `json:"emoji,omitempty"`
}

// AddReaction and RemoveReaction add or take back the person's reaction on
// the plan's post (PostID, its message in Previous). They are one write in
// two directions, so they share this file and one constructor.
var (
	AddReaction = Register(reactionKind(reactionWay{
		action: ActionReact, tool: "add_reaction",
		before: "React ", after: " to a post in ",
		asks: "add your reaction to a post", box: "React",
		done: "Your reaction was added to the post", declined: "Declined: no reaction was added.",
		verb: "add", caption: "The post you react to",
		told: "Added :%s: to the post: %s",
	}))
	RemoveReaction = Register(reactionKind(reactionWay{
		action: ActionUnreact, tool: "remove_reaction",
		before: "Take back your ", after: " on a post in ",
		asks: "take back your reaction on a post", box: "Take it back",
		done: "Your reaction was taken back from the post", declined: "Declined: your reaction stays.",
		verb: "take back", caption: "The post you reacted to",
		told:   "Removed :%s: from the post: %s",
		remove: true,
	}))
)

// reactionWay is what tells a reaction added from one taken back: the
// words around the emoji and the direction of the one call.
type reactionWay struct {
	action, tool string
	// before and after stand around the emoji in the heading and the
	// title, and the place follows: "React :tada: to a post in Town Square".
	before, after string
	// asks, box, done and declined are the Words' Asks, Box, the sentence
	// Done ends with the place, and Declined.
	asks, box, done, declined string
	// verb is the lede's ("It asks to <verb> your :tada: reaction"), and
	// caption the post's on the page.
	verb, caption string
	// told is what the model is told, a format of the emoji and the link.
	told   string
	remove bool
}

func reactionKind(w reactionWay) *Kind[Reaction] {
	heading := func(p posting.Plan, r Reaction) posting.Line {
		return posting.Line{{Text: w.before}, {Text: ":" + r.Emoji + ":", AI: true}, {Text: w.after + p.Dest.PlaceText()}}
	}
	return &Kind[Reaction]{
		Action:  w.action,
		Tools:   []string{w.tool},
		Heading: heading,
		Title: func(p posting.Plan, r Reaction) string {
			return present.Clean(w.before + ":" + r.Emoji + ":" + w.after + p.Dest.Label)
		},
		// The heading and the post it is on.
		Question: func(plan posting.Plan, r Reaction) string {
			var b strings.Builder
			frame := framer(&b, plan.Message, plan.Previous)
			fmt.Fprintf(&b, "%s?\n", heading(plan, r).Plain())
			if plan.Previous != "" {
				frame("post", plan.Previous)
			}
			return b.String()
		},
		Words: Words{
			Asks: w.asks,
			Box:  w.box, Accept: "Accept",
			Done:     func(place string) string { return sentenceIn(w.done, place) },
			Declined: w.declined,
			Settled:  sentSettled("Done"),
		},
		// The emoji the model chose stands apart in the lede.
		LedeLine: func(_ posting.Plan, r Reaction) posting.Line {
			return posting.Line{{Text: "It asks to " + w.verb + " your "}, {Text: ":" + r.Emoji + ":", AI: true}, {Text: " reaction on this post. Nothing changes until you accept."}}
		},
		// The modal names the emoji where the page's lede sets it in bold.
		Shown: func(_ posting.Plan, r Reaction) ShownWords {
			return ShownWords{Heading: "The post", Caption: w.caption, ModalHeading: "The post you react to with :" + r.Emoji + ":"}
		},
		Told: func(_ posting.Plan, r Reaction, permalink string) string {
			return fmt.Sprintf(w.told, r.Emoji, permalink)
		},
		Carry: react(w.remove),
	}
}

func react(remove bool) func(context.Context, *Approvals, *mattermost.Caller, posting.Plan, Reaction) (Executed, error) {
	return func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan, r Reaction) (Executed, error) {
		err := c.React(plan.PostID, r.Emoji, remove)
		if err != nil && !errors.Is(err, mattermost.ErrNotFound) && !errors.Is(err, mattermost.ErrNotYours) {
			return Executed{}, refusal.Newf("Mattermost refused the reaction :%s: (%v). Check the emoji's name; nothing was changed.", r.Emoji, err)
		}
		return postChanged(a, c, plan, err)
	}
}

// The record keeps a reaction's emoji once its plan is dropped
// (Record.Emoji), so the outcome still names it.
func (r Reaction) kept() string { return r.Emoji }

func (Reaction) fromKept(emoji string) any { return Reaction{Emoji: emoji} }
