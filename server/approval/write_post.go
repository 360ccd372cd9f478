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

// ActionPost is a post's action as records keep it: none, from when every
// confirmed write was a post.
const ActionPost = ""

// CreatePost is a post as the person (in a channel, a thread, a direct or
// a group message), with its files, marked as the AI's. The plan's shared
// fields hold all of it.
var CreatePost = Register(&Kind[Nothing]{
	Action: ActionPost,
	Tools:  []string{"create_post", "dm", "group_message"},
	Heading: func(p posting.Plan, _ Nothing) posting.Line {
		switch {
		case p.Dest.ChannelID == "" && len(p.Dest.Recipients) == 1:
			return say("Direct message to " + p.Dest.Recipients[0])
		case p.Dest.ChannelID == "" && len(p.Dest.Recipients) > 1:
			return say("Group message with " + strings.Join(p.Dest.Recipients, ", "))
		case p.Dest.RootID != "":
			return say("Reply in a thread in " + p.Dest.PlaceText())
		}
		return say("Post in " + p.Dest.PlaceText())
	},
	Title: func(p posting.Plan, _ Nothing) string {
		t := messageTitle("Post to "+p.Dest.Label, p.Message)
		if n := len(p.Files); n > 0 {
			t += fmt.Sprintf(" with %d file(s)", n)
		}
		return present.Clean(t)
	},
	Question: describePost,
	Words: Words{
		Asks: "post a message as you",
		Box:  "Post it", Accept: "Accept and post", ModalAccept: "Accept",
		Lede:    "It asks to post this as you. Nothing is sent until you accept.",
		Working: "Posting…", AfterExpiry: "nothing is sent",
		MessageHeading: "Message", MessageCaption: "Written by the AI: it is posted exactly as shown",
		Done: func(place string) string {
			if place == "" {
				return "Posted."
			}
			return "Posted in " + place + "."
		},
		Declined:  "Declined: nothing was posted.",
		Failed:    "nothing was posted.",
		Underway:  "posted now.",
		Withdrawn: "nothing was posted.",
		Settled:   sentSettled("Posted"),
	},
	Told: func(_ posting.Plan, _ Nothing, permalink string) string { return "Posted: " + permalink },
	Carry: func(ctx context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan, _ Nothing) (Executed, error) {
		done, err := posting.Execute(ctx, c, a.sources(c), plan)
		if errors.Is(err, mattermost.ErrCannotStartConversation) {
			// The admin took the permission away after the person was asked.
			return Executed{}, refusal.New("Mattermost no longer lets the person start "+plan.Dest.Label+
				" (their role lacks create_direct_channel or create_group_channel): nothing was posted.", "Tell the person; an admin can grant the permission.")
		}
		if err != nil {
			return Executed{}, err
		}
		return Executed{PostID: done.Post.Id, Permalink: a.permalink(c, done.Post.ChannelId, done.Post.Id),
			FileIDs: done.FileIDs, PostedIn: done.Post.ChannelId}, nil
	},
})

// describePost is a post as the person checks it: destination, the message
// exactly as it will post, who it notifies, and every file.
func describePost(plan posting.Plan, _ Nothing) string {
	var b strings.Builder
	frame := framer(&b, plan.Message, plan.Previous)
	fmt.Fprintf(&b, "Post as you to %s?\n", present.Clean(plan.Dest.Label))
	if plan.Message == "" {
		b.WriteString("\nNo message, files only.\n")
	} else {
		frame("message", plan.Message)
	}
	if plan.Attribution != "" {
		fmt.Fprintf(&b, "The post is marked: %s.\n", present.Clean(plan.Attribution))
	}
	if len(plan.Notes) == 0 {
		b.WriteString("It notifies nobody by @-mention beyond the usual channel notifications.\n")
	} else {
		b.WriteString("Notifications:\n")
		for _, n := range plan.Notes {
			b.WriteString("- " + present.Clean(n) + "\n")
		}
	}
	if len(plan.Files) > 0 {
		fmt.Fprintf(&b, "Files (%d):\n", len(plan.Files))
		for i, f := range plan.Files {
			fmt.Fprintf(&b, "%d. %s: %s, %s, %s, sha256 %s…\n", i+1, present.Clean(f.Name), present.Size(f.Size), f.Detected, present.Clean(f.Origin), shortSum(f.SHA256))
			if f.Mismatch != "" {
				fmt.Fprintf(&b, "   Note: %s\n", present.Clean(f.Mismatch))
			}
		}
	}
	return b.String()
}
