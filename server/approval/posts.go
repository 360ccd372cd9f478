package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of the posts family, as records keep them.
const (
	ActionPost    = ""
	ActionEdit    = "edit"
	ActionReact   = "react"
	ActionUnreact = "unreact"
	ActionDelete  = "delete"
	ActionPin     = "pin"
	ActionUnpin   = "unpin"
)

// Posts family writes, each registered once in writes.
var postWrites = []Write{postWrite, editWrite, reactWrite, unreactWrite, deleteWrite, pinWrite, unpinWrite}

// The writes of the posts family: a post (in a channel, a thread, a direct
// or a group message), an edit, a reaction added or taken back, a delete, a
// pin or unpin, and a scheduled post.

// postWrite is a post as the person, with its files, marked as the AI's.
var postWrite = Write{
	Action: ActionPost,
	Tools:  []string{"create_post", "dm", "group_message"},
	Asks:   "post a message as you",
	Heading: func(p posting.Plan) posting.Line {
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
	Title: func(p posting.Plan) string {
		t := messageTitle("Post to "+p.Dest.Label, p.Message)
		if n := len(p.Files); n > 0 {
			t += fmt.Sprintf(" with %d file(s)", n)
		}
		return present.Clean(t)
	},
	Question: describePost,
	Box:      "Post it", Accept: "Accept and post", ModalAccept: "Accept",
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
	Told:      func(_ posting.Plan, permalink string) string { return "Posted: " + permalink },
	Settled:   sentSettled("Posted"),
	Carry: func(ctx context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
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
}

// describePost is a post as the person checks it: destination, the message
// exactly as it will post, who it notifies, and every file.
func describePost(plan posting.Plan) string {
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

// framer writes the model's texts between boundary lines whose token occurs
// in none of texts.
func framer(b *strings.Builder, texts ...string) func(what, text string) {
	tok := boundaryToken(texts...)
	return func(what, text string) {
		fmt.Fprintf(b, "\n----- %s %s -----\n%s\n----- end of %s %s -----\n", what, tok, text, what, tok)
	}
}

// messageTitle is a title with the start of the message in quotes.
func messageTitle(t, message string) string {
	msg := []rune(strings.Join(strings.Fields(message), " "))
	if len(msg) > titleRunes {
		msg = append(msg[:titleRunes], '…')
	}
	if len(msg) > 0 {
		t += fmt.Sprintf(": %q", string(msg))
	}
	return t
}

// sentSettled is the bot's message after an answer to a post, an edit or a
// reaction: what was done, or that nothing was sent.
func sentSettled(what string) func(state, permalink string) string {
	return func(state, permalink string) string {
		if state == StateDeclined {
			return "**Declined**: nothing was sent."
		}
		if permalink != "" {
			return fmt.Sprintf("**%s** after you accepted: %s", what, permalink)
		}
		return fmt.Sprintf("**%s** after you accepted.", what)
	}
}

// editWrite replaces the message of one of the person's own posts.
var editWrite = Write{
	Action:  ActionEdit,
	Tools:   []string{"update_post"},
	Asks:    "replace the message of one of your posts",
	Heading: func(p posting.Plan) posting.Line { return say("Edit your post in " + p.Dest.PlaceText()) },
	Title: func(p posting.Plan) string {
		return present.Clean(messageTitle("Edit your post in "+p.Dest.Label, p.Message))
	},
	Question: func(plan posting.Plan) string {
		var b strings.Builder
		frame := framer(&b, plan.Message, plan.Previous)
		fmt.Fprintf(&b, "Edit your post in %s?\n", present.Clean(plan.Dest.Label))
		frame("new message", plan.Message)
		frame("message it replaces", plan.Previous)
		return b.String()
	},
	Box: "Edit it", Accept: "Accept and edit", ModalAccept: "Accept",
	Lede:           "It asks to replace the message of your post. Nothing changes until you accept.",
	MessageHeading: "New message", MessageCaption: "Written by the AI: your post will read exactly this",
	Shown: func(posting.Plan) ShownWords {
		return ShownWords{Heading: "It replaces", Caption: "Your post as it reads now", ModalHeading: "It replaces"}
	},
	Done: func(place string) string {
		if place == "" {
			return "Your post was edited."
		}
		return "Your post in " + place + " was edited."
	},
	Declined: "Declined: your post was not changed.",
	Told:     func(_ posting.Plan, permalink string) string { return "Edited the post: " + permalink },
	Settled:  sentSettled("Done"),
	Carry: func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
		_, err := c.EditOwnPost(plan.PostID, plan.Message, map[string]any{posting.PropFromMCP: true})
		return postChanged(a, c, plan, err)
	},
}

// reactWrite and unreactWrite add or take back the person's reaction.
var reactWrite = Write{
	Action:  ActionReact,
	Tools:   []string{"add_reaction"},
	Asks:    "add your reaction to a post",
	Heading: reactHeading,
	Title: func(p posting.Plan) string {
		return present.Clean(fmt.Sprintf("React :%s: to a post in %s", p.Emoji, p.Dest.Label))
	},
	Question: describeReaction(reactHeading),
	Box:      "React", Accept: "Accept",
	LedeLine: reactionLede("add"),
	Shown:    reactionShown("The post you react to"),
	Done:     func(place string) string { return sentenceIn("Your reaction was added to the post", place) },
	Declined: "Declined: no reaction was added.",
	Told: func(p posting.Plan, permalink string) string {
		return fmt.Sprintf("Added :%s: to the post: %s", p.Emoji, permalink)
	},
	Settled: sentSettled("Done"),
	Carry: func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
		return postChanged(a, c, plan, c.React(plan.PostID, plan.Emoji, false))
	},
}

var unreactWrite = Write{
	Action:  ActionUnreact,
	Tools:   []string{"remove_reaction"},
	Asks:    "take back your reaction on a post",
	Heading: unreactHeading,
	Title: func(p posting.Plan) string {
		return present.Clean(fmt.Sprintf("Take back your :%s: on a post in %s", p.Emoji, p.Dest.Label))
	},
	Question: describeReaction(unreactHeading),
	Box:      "Take it back", Accept: "Accept",
	LedeLine: reactionLede("take back"),
	Shown:    reactionShown("The post you reacted to"),
	Done:     func(place string) string { return sentenceIn("Your reaction was taken back from the post", place) },
	Declined: "Declined: your reaction stays.",
	Told: func(p posting.Plan, permalink string) string {
		return fmt.Sprintf("Removed :%s: from the post: %s", p.Emoji, permalink)
	},
	Settled: sentSettled("Done"),
	Carry: func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
		return postChanged(a, c, plan, c.React(plan.PostID, plan.Emoji, true))
	},
}

func reactHeading(p posting.Plan) posting.Line {
	return posting.Line{{Text: "React "}, {Text: ":" + p.Emoji + ":", AI: true}, {Text: " to a post in " + p.Dest.PlaceText()}}
}

func unreactHeading(p posting.Plan) posting.Line {
	return posting.Line{{Text: "Take back your "}, {Text: ":" + p.Emoji + ":", AI: true}, {Text: " on a post in " + p.Dest.PlaceText()}}
}

// reactionLede is a reaction's lede, the emoji the model chose apart.
func reactionLede(verb string) func(posting.Plan) posting.Line {
	return func(p posting.Plan) posting.Line {
		return posting.Line{{Text: "It asks to " + verb + " your "}, {Text: ":" + p.Emoji + ":", AI: true}, {Text: " reaction on this post. Nothing changes until you accept."}}
	}
}

// reactionShown words the post a reaction is on; the modal names the emoji
// where the page's lede sets it in bold.
func reactionShown(caption string) func(posting.Plan) ShownWords {
	return func(p posting.Plan) ShownWords {
		return ShownWords{Heading: "The post", Caption: caption, ModalHeading: "The post you react to with :" + p.Emoji + ":"}
	}
}

// describeReaction is a reaction as the person checks it: the heading and
// the post it is on.
func describeReaction(heading func(posting.Plan) posting.Line) func(posting.Plan) string {
	return func(plan posting.Plan) string {
		var b strings.Builder
		frame := framer(&b, plan.Message, plan.Previous)
		fmt.Fprintf(&b, "%s?\n", heading(plan).Plain())
		if plan.Previous != "" {
			frame("post", plan.Previous)
		}
		return b.String()
	}
}

// sentenceIn is "s in place." or "s." when the place is not known any more.
func sentenceIn(s, place string) string {
	if place == "" {
		return s + "."
	}
	return s + " in " + place + "."
}

// postChanged words what Mattermost answered an edit or a reaction.
func postChanged(a *Approvals, c *mattermost.Caller, plan posting.Plan, err error) (Executed, error) {
	switch {
	case errors.Is(err, mattermost.ErrNotFound):
		return Executed{}, refusal.Newf("The post %s is gone or no longer readable; nothing was changed.", plan.PostID)
	case errors.Is(err, mattermost.ErrNotYours):
		return Executed{}, refusal.New("That post is not the person's own: only their own posts can be edited. Nothing was changed.", "")
	case err != nil && plan.Emoji != "":
		return Executed{}, refusal.Newf("Mattermost refused the reaction :%s: (%v). Check the emoji's name; nothing was changed.", plan.Emoji, err)
	case err != nil:
		return Executed{}, err
	}
	return Executed{PostID: plan.PostID, Permalink: a.permalink(c, plan.Dest.ChannelID, plan.PostID)}, nil
}

// deleteWrite deletes one of the person's own posts, with the replies and
// files Mattermost deletes with it.
var deleteWrite = Write{
	Action: ActionDelete,
	Tools:  []string{"delete_post"},
	Asks:   "delete one of your posts for everyone in its channel",
	Heading: func(p posting.Plan) posting.Line {
		return say("Delete your post in " + p.Dest.PlaceText() + goesWith(p.Target, " with "))
	},
	Lede:        "It asks to delete your post for everyone in the channel. Nothing changes until you accept; a deleted post cannot be brought back.",
	Box:         "Delete it",
	Accept:      "Accept and delete",
	PostCaption: "The post that is deleted",
	Facts: func(p posting.Plan) []posting.Fact {
		t := target(p)
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
	NotesHeading: "Who it affects",
	Done:         func(place string) string { return "Your post" + in(place) + " was deleted." },
	Declined:     "Declined: your post stays.",
	Recheck:      samePost,
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
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
}

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

func target(p posting.Plan) posting.PostTarget {
	if p.Target == nil {
		return posting.PostTarget{}
	}
	return *p.Target
}

// samePost refuses a post that no longer reads as the person was shown
// it: gone, edited, or with other replies or files.
func samePost(_ *Approvals, c *mattermost.Caller, plan posting.Plan) error {
	p, err := c.Post(plan.PostID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return refusal.Newf("The post %s is gone or no longer readable; nothing was changed.", plan.PostID)
	}
	if err != nil {
		return err
	}
	t := plan.Target
	if t == nil {
		return refusal.New("This confirmation does not say which post it shows; nothing was changed.", "")
	}
	replies, err := c.Replies(p)
	if err != nil {
		return err
	}
	files, err := c.PostFiles(p)
	if err != nil {
		return err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	if p.Message != plan.Previous || p.EditAt != t.EditAt || replies != t.Replies || !slices.Equal(names, t.Files) {
		return refusal.New("The post changed since the person was asked (its message, replies or files); nothing was changed.", "Ask again with the post as it is now.")
	}
	return nil
}

// pinWrite and unpinWrite: a post's pin, which everyone in the channel sees
// in its pinned messages.
var pinWrite = Write{
	Action: ActionPin,
	Tools:  []string{"pin_post"},
	Asks:   "pin a post for everyone in its channel",
	Heading: func(p posting.Plan) posting.Line {
		return say("Pin " + byWhom(p) + " in " + p.Dest.PlaceText() + " for everyone in it")
	},
	Lede: "It asks to pin this post: everyone in the channel sees it in the channel's pinned messages. Nothing changes until you accept.",
	Box:  "Pin it", Accept: "Accept and pin",
	PostCaption:  "The post that is pinned",
	Facts:        pinFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "The post" + in(place) + " was pinned." },
	Declined:     "Declined: the post was not pinned.",
	Recheck:      samePost,
	Carry:        setPinned(true),
}

var unpinWrite = Write{
	Action: ActionUnpin,
	Tools:  []string{"unpin_post"},
	Asks:   "unpin a post for everyone in its channel",
	Heading: func(p posting.Plan) posting.Line {
		return say("Unpin " + byWhom(p) + " in " + p.Dest.PlaceText() + " for everyone in it")
	},
	Lede: "It asks to unpin this post: it leaves the channel's pinned messages for everyone. Nothing changes until you accept.",
	Box:  "Unpin it", Accept: "Accept and unpin",
	PostCaption:  "The post that is unpinned",
	Facts:        pinFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "The post" + in(place) + " was unpinned." },
	Declined:     "Declined: the post stays pinned.",
	Recheck:      samePost,
	Carry:        setPinned(false),
}

func setPinned(pinned bool) func(context.Context, *Approvals, *mattermost.Caller, posting.Plan) (Executed, error) {
	return func(_ context.Context, a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
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

func pinFacts(p posting.Plan) []posting.Fact {
	return []posting.Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Posted by", Value: author(p)}}
}

// byWhom is "your post" or "a post by @bob".
func byWhom(p posting.Plan) string {
	if a := author(p); a != "you" {
		return "a post by " + a
	}
	return "your post"
}

func author(p posting.Plan) string {
	t := target(p)
	if t.AuthorID == p.CallerID || t.Author == "" {
		return "you"
	}
	return "@" + t.Author
}
