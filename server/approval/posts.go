package approval

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// What the writes about a post share: its wording (the model's text framed,
// a title with the message's start, the bot's message after an answer) and
// its checks (a post changed or gone since the person was asked).

// ShownPost is the payload of a change to a post others see (a delete, a
// pin): the post as the person was shown it, which the answer checks again.
type ShownPost struct {
	Target *posting.PostTarget `json:"target,omitempty"`
}

func (s ShownPost) target() posting.PostTarget { return orZero(s.Target) }

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
	case err != nil:
		return Executed{}, err
	}
	return Executed{PostID: plan.PostID, Permalink: a.permalink(c, plan.Dest.ChannelID, plan.PostID)}, nil
}

// samePost refuses a post that no longer reads as the person was shown
// it: gone, edited, or with other replies or files.
func samePost(_ *Approvals, c *mattermost.Caller, plan posting.Plan, s ShownPost) error {
	p, err := c.Post(plan.PostID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return refusal.Newf("The post %s is gone or no longer readable; nothing was changed.", plan.PostID)
	}
	if err != nil {
		return err
	}
	t := s.Target
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
