package approval

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ActionDelete is a delete's action as records keep it.
const ActionDelete = "delete"

// DeletePost deletes one of the person's own posts (the plan's PostID, its
// message in Previous), with the replies and files Mattermost deletes with
// it, as the person was shown them.
var DeletePost = Register(&Kind[ShownPost]{
	Action: ActionDelete,
	Tools:  []string{"delete_post"},
	Heading: func(p posting.Plan, s ShownPost) posting.Line {
		return say("Delete your post in " + p.Dest.PlaceText() + goesWith(s.Target, " with "))
	},
	Words: Words{
		Asks:         "delete one of your posts for everyone in its channel",
		Lede:         "It asks to delete your post for everyone in the channel. Nothing changes until you accept; a deleted post cannot be brought back.",
		Box:          "Delete it",
		Accept:       "Accept and delete",
		PostCaption:  "The post that is deleted",
		NotesHeading: "Who it affects",
		Done:         func(place string) string { return "Your post" + in(place) + " was deleted." },
		Declined:     "Declined: your post stays.",
	},
	Facts: func(p posting.Plan, s ShownPost) []posting.Fact {
		t := s.target()
		replies := "none"
		if t.Replies > 0 {
			replies = present.Count(t.Replies, "reply, by anyone, is", "replies, by anyone, are") + " deleted with it"
		}
		files := "none"
		if len(t.Files) > 0 {
			files = present.Count(len(t.Files), "file", "files") + " deleted with it: " + strings.Join(t.Files, ", ")
		}
		return []posting.Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Replies", Value: replies}, {Label: "Files", Value: files}}
	},
	Recheck: samePost,
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan, _ ShownPost) (Executed, error) {
		err := c.DeleteOwnPost(plan.PostID)
		switch {
		case errors.Is(err, mattermost.ErrNotYours):
			return Executed{}, refusal.New("That post is not the person's own, or their role may not delete it; nothing was changed.", "")
		case errors.Is(err, mattermost.ErrArchived):
			return Executed{}, refusal.New("The channel is archived; nothing was changed.", "")
		case err != nil:
			return Executed{}, err
		}
		return Executed{PostID: plan.PostID, ChannelID: plan.Dest.ChannelID}, nil
	},
})

// goesWith is what is deleted with a post: " with its 3 replies and 1 file".
func goesWith(t *posting.PostTarget, lead string) string {
	if t == nil {
		return ""
	}
	var parts []string
	if t.Replies > 0 {
		parts = append(parts, present.Count(t.Replies, "reply", "replies"))
	}
	if len(t.Files) > 0 {
		parts = append(parts, present.Count(len(t.Files), "file", "files"))
	}
	if len(parts) == 0 {
		return ""
	}
	return lead + "its " + posting.Join(parts)
}
