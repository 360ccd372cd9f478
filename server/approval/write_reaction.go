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
// two directions, so they share this file.
var (
	AddReaction = Register(&Kind[Reaction]{
		Action:  ActionReact,
		Tools:   []string{"add_reaction"},
		Heading: reactHeading,
		Title: func(p posting.Plan, r Reaction) string {
			return present.Clean(fmt.Sprintf("React :%s: to a post in %s", r.Emoji, p.Dest.Label))
		},
		Question: describeReaction(reactHeading),
		Words: Words{
			Asks: "add your reaction to a post",
			Box:  "React", Accept: "Accept",
			Done:     func(place string) string { return sentenceIn("Your reaction was added to the post", place) },
			Declined: "Declined: no reaction was added.",
			Settled:  sentSettled("Done"),
		},
		LedeLine: reactionLede("add"),
		Shown:    reactionShown("The post you react to"),
		Told: func(_ posting.Plan, r Reaction, permalink string) string {
			return fmt.Sprintf("Added :%s: to the post: %s", r.Emoji, permalink)
		},
		Carry: react(false),
	})
	RemoveReaction = Register(&Kind[Reaction]{
		Action:  ActionUnreact,
		Tools:   []string{"remove_reaction"},
		Heading: unreactHeading,
		Title: func(p posting.Plan, r Reaction) string {
			return present.Clean(fmt.Sprintf("Take back your :%s: on a post in %s", r.Emoji, p.Dest.Label))
		},
		Question: describeReaction(unreactHeading),
		Words: Words{
			Asks: "take back your reaction on a post",
			Box:  "Take it back", Accept: "Accept",
			Done:     func(place string) string { return sentenceIn("Your reaction was taken back from the post", place) },
			Declined: "Declined: your reaction stays.",
			Settled:  sentSettled("Done"),
		},
		LedeLine: reactionLede("take back"),
		Shown:    reactionShown("The post you reacted to"),
		Told: func(_ posting.Plan, r Reaction, permalink string) string {
			return fmt.Sprintf("Removed :%s: from the post: %s", r.Emoji, permalink)
		},
		Carry: react(true),
	})
)

func reactHeading(p posting.Plan, r Reaction) posting.Line {
	return posting.Line{{Text: "React "}, {Text: ":" + r.Emoji + ":", AI: true}, {Text: " to a post in " + p.Dest.PlaceText()}}
}

func unreactHeading(p posting.Plan, r Reaction) posting.Line {
	return posting.Line{{Text: "Take back your "}, {Text: ":" + r.Emoji + ":", AI: true}, {Text: " on a post in " + p.Dest.PlaceText()}}
}

// reactionLede is a reaction's lede, the emoji the model chose apart.
func reactionLede(verb string) func(posting.Plan, Reaction) posting.Line {
	return func(_ posting.Plan, r Reaction) posting.Line {
		return posting.Line{{Text: "It asks to " + verb + " your "}, {Text: ":" + r.Emoji + ":", AI: true}, {Text: " reaction on this post. Nothing changes until you accept."}}
	}
}

// reactionShown words the post a reaction is on; the modal names the emoji
// where the page's lede sets it in bold.
func reactionShown(caption string) func(posting.Plan, Reaction) ShownWords {
	return func(_ posting.Plan, r Reaction) ShownWords {
		return ShownWords{Heading: "The post", Caption: caption, ModalHeading: "The post you react to with :" + r.Emoji + ":"}
	}
}

// describeReaction is a reaction as the person checks it: the heading and
// the post it is on.
func describeReaction(heading func(posting.Plan, Reaction) posting.Line) func(posting.Plan, Reaction) string {
	return func(plan posting.Plan, r Reaction) string {
		var b strings.Builder
		frame := framer(&b, plan.Message, plan.Previous)
		fmt.Fprintf(&b, "%s?\n", heading(plan, r).Plain())
		if plan.Previous != "" {
			frame("post", plan.Previous)
		}
		return b.String()
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
