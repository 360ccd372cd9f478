package approval

import (
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The changes beyond posts, edits and reactions are shown from their
// posting.Wording and carried out by one function each (change_*.go),
// listed in changes.

// changes carry out an accepted change as the person, after checking that
// what it is about still reads as the person was shown.
var changes = map[string]func(a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error){
	posting.ActionDelete:     deletePost,
	posting.ActionPin:        pinPost,
	posting.ActionUnpin:      pinPost,
	posting.ActionJoin:       joinChannel,
	posting.ActionLeave:      leaveChannel,
	posting.ActionCreateChan: createChannel,
	posting.ActionAddMembers: addMembers,
	posting.ActionSetStatus:  setStatus,
	posting.ActionSchedule:   schedulePost,
}

// describeChange is a change as the client's form shows it: the heading,
// each fact (the model's words between boundary lines), the post it is
// about, and the notes.
func describeChange(plan posting.Plan, w posting.Wording) string {
	facts := w.Facts(plan)
	texts := []string{plan.Shown()}
	for _, f := range facts {
		if f.AI {
			texts = append(texts, f.Value)
		}
	}
	tok := boundaryToken(texts...)
	var b strings.Builder
	fmt.Fprintf(&b, "%s?\n%s\n", plan.Heading(), w.Lede)
	for _, f := range facts {
		if f.AI {
			fmt.Fprintf(&b, "%s, written by the AI:\n----- %s %s -----\n%s\n----- end of %s %s -----\n", f.Label, strings.ToLower(f.Label), tok, f.Value, strings.ToLower(f.Label), tok)
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Label, present.Clean(f.Value))
	}
	if shown := plan.Shown(); w.PostCaption != "" && shown != "" {
		fmt.Fprintf(&b, "%s:\n----- post %s -----\n%s\n----- end of post %s -----\n", w.PostCaption, tok, shown, tok)
	}
	if len(plan.Notes) > 0 {
		b.WriteString(w.NotesHeading + ":\n")
		for _, n := range plan.Notes {
			b.WriteString("- " + present.Clean(n) + "\n")
		}
	}
	return b.String()
}

// changeOutcome says what became of an answered change, in a sentence, and
// for a failure why.
func changeOutcome(w posting.Wording, state, place, outcome string) (text, reason string) {
	switch state {
	case StatePosted:
		return w.Done(place), ""
	case StateDeclined:
		return w.Declined, ""
	case StateFailed:
		partway, why := failure(outcome)
		if partway {
			return "Failed partway: only part of it was done.", why
		}
		return "Failed: nothing was changed.", why
	case StateExecuting:
		return "Accepted: it is being done now.", ""
	}
	return "", ""
}

// changeLines are a change's facts and the post it is about, for the bot's
// direct message: the model's words and the post in code, so they mention
// nobody and render nothing.
func changeLines(plan posting.Plan, w posting.Wording) string {
	var b strings.Builder
	for _, f := range w.Facts(plan) {
		v := markdownText(f.Value)
		if f.AI {
			v = codeSpan(f.Value) + " (written by the AI)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", f.Label, v)
	}
	if msg := firstLines(plan.Shown()); w.PostCaption != "" && msg != "" {
		fmt.Fprintf(&b, "%s:\n%s", w.PostCaption, codeBlock(msg))
	}
	return b.String()
}
