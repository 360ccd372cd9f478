package approval

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// ActionEdit is an edit's action as records keep it.
const ActionEdit = "edit"

// EditPost replaces the message of one of the person's own posts: the
// plan's PostID, Message (the new one) and Previous (the one it replaces)
// hold all of it.
var EditPost = Register(&Kind[Nothing]{
	Action:  ActionEdit,
	Tools:   []string{"update_post"},
	Heading: func(p posting.Plan, _ Nothing) posting.Line { return say("Edit your post in " + p.Dest.PlaceText()) },
	Title: func(p posting.Plan, _ Nothing) string {
		return present.Clean(messageTitle("Edit your post in "+p.Dest.Label, p.Message))
	},
	Question: func(plan posting.Plan, _ Nothing) string {
		var b strings.Builder
		frame := framer(&b, plan.Message, plan.Previous)
		fmt.Fprintf(&b, "Edit your post in %s?\n", present.Clean(plan.Dest.Label))
		frame("new message", plan.Message)
		frame("message it replaces", plan.Previous)
		return b.String()
	},
	Words: Words{
		Asks: "replace the message of one of your posts",
		Box:  "Edit it", Accept: "Accept and edit", ModalAccept: "Accept",
		Lede:           "It asks to replace the message of your post. Nothing changes until you accept.",
		MessageHeading: "New message", MessageCaption: "Written by the AI: your post will read exactly this",
		Done: func(place string) string {
			if place == "" {
				return "Your post was edited."
			}
			return "Your post in " + place + " was edited."
		},
		Declined: "Declined: your post was not changed.",
		Settled:  sentSettled("Done"),
	},
	Shown: func(posting.Plan, Nothing) ShownWords {
		return ShownWords{Heading: "It replaces", Caption: "Your post as it reads now", ModalHeading: "It replaces"}
	},
	Told: func(_ posting.Plan, _ Nothing, permalink string) string { return "Edited the post: " + permalink },
	Carry: func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan, _ Nothing) (Executed, error) {
		_, err := c.EditOwnPost(plan.PostID, plan.Message, map[string]any{posting.PropFromMCP: true})
		return postChanged(a, c, plan, err)
	},
})
