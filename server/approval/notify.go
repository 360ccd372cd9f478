package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// When a write starts waiting for the person in Mattermost, the plugin's
// bot sends them a direct message: an ordinary post, so their own
// notification settings carry it to every device (desktop, mobile push,
// email). It says what is asked and links the confirmation page; it holds
// nothing that answers (an interactive button can be pressed with a token,
// so it could not tell the person from the agent). When the write is
// answered, fails, expires or is withdrawn by the assistant, the same
// message is edited to say so.

const (
	dmKeyPrefix = "pcdm_"
	// dmIndexKey lists the direct messages still open, so that the expiry
	// job reads one key rather than every key of the plugin.
	dmIndexKey = "pcdm_index"
	// maxOpenDMs bounds the index: a write waits at most PendingLifetime,
	// so this is thousands of writes started within ten minutes.
	maxOpenDMs = 5000
	// dmPreviewLines and dmPreviewRunes bound the message's first lines in
	// the direct message: a notification shows only its start anyway.
	dmPreviewLines = 4
	dmPreviewRunes = 400
	// dmRecordLifetime keeps the link from a write to its direct message
	// until well after the write is answered or expired.
	dmRecordLifetime = PendingLifetime + OutcomeLifetime
)

// Teller sends and edits the bot's direct messages (*mattermost.Bot is one).
type Teller interface {
	Tell(userID string, p *model.Post) (string, error)
	Edit(postID string, change func(*model.Post)) error
}

type openDM struct {
	UserID   string    `json:"u"`
	RecordID string    `json:"r"`
	PostID   string    `json:"p"`
	Expires  time.Time `json:"e"`
}

func dmKey(userID, id string) string { return dmKeyPrefix + userID + "_" + id }

// tellByDM sends the person the bot's direct message about rec.
func (a *Approvals) tellByDM(c *mattermost.Caller, rec Record) {
	if a.opts.Bot == nil || !a.opts.Config().NotifyByDM || rec.Plan == nil {
		return
	}
	loc := a.zone(c)
	page := a.PageURL(rec.ID)
	msg := a.onlyLinksTo(a.askingText(*rec.Plan, rec, loc), rec.ID, page)
	postID, err := a.opts.Bot.Tell(c.UserID(), &model.Post{Message: msg})
	if err != nil {
		a.opts.MM.Log().Warn("Could not tell the person by direct message of a write waiting for them", "user_id", c.UserID(), "error", err.Error())
		return
	}
	dm := openDM{UserID: c.UserID(), RecordID: rec.ID, PostID: postID, Expires: rec.ExpiresAt()}
	raw, _ := json.Marshal(dm)
	if err := a.store.KV.Set(dmKey(dm.UserID, dm.RecordID), raw, dmRecordLifetime); err != nil {
		a.opts.MM.Log().Warn("Could not remember the direct message of a waiting write", "user_id", c.UserID(), "error", err.Error())
		return
	}
	if err := a.updateIndex(func(open []openDM) []openDM {
		if len(open) >= maxOpenDMs {
			open = open[1:]
		}
		return append(open, dm)
	}); err != nil {
		a.opts.MM.Log().Warn("Could not list the direct message of a waiting write for its expiry", "user_id", c.UserID(), "error", err.Error())
	}
}

// settled tells the person's open Mattermost that a write was answered and
// edits its direct message, if one was sent, to say what became of it.
func (a *Approvals) settled(c *mattermost.Caller, rec Record) {
	a.answered(c, rec.ID, rec.State)
	a.closeDM(c.UserID(), rec.ID, func(loc *time.Location) string { return a.settledText(rec) }, rec.Permalink)
}

// closeDM edits the direct message of a write, if it has one, and forgets
// it. allowed are the links its new text may hold (the post made).
func (a *Approvals) closeDM(userID, id string, text func(*time.Location) string, allowed ...string) {
	if a.opts.Bot == nil {
		return
	}
	raw, err := a.store.KV.Get(dmKey(userID, id))
	if err != nil || raw == nil {
		return
	}
	var dm openDM
	if json.Unmarshal(raw, &dm) != nil || dm.PostID == "" {
		return
	}
	loc := a.zone(a.opts.MM.As(userID))
	err = a.opts.Bot.Edit(dm.PostID, func(p *model.Post) { p.Message = a.onlyLinksTo(text(loc), id, allowed...) })
	if err != nil && !errors.Is(err, mattermost.ErrNotFound) {
		a.opts.MM.Log().Warn("Could not edit the direct message of an answered write", "user_id", userID, "error", err.Error())
		return
	}
	if err := a.store.KV.Delete(dmKey(userID, id)); err != nil {
		a.opts.MM.Log().Warn("Could not forget the direct message of an answered write", "user_id", userID, "error", err.Error())
	}
	if err := a.updateIndex(func(open []openDM) []openDM {
		out := open[:0]
		for _, o := range open {
			if o.UserID != userID || o.RecordID != id {
				out = append(out, o)
			}
		}
		return out
	}); err != nil {
		a.opts.MM.Log().Warn("Could not update the list of open direct messages", "error", err.Error())
	}
}

// updateIndex changes the list of open direct messages atomically across
// nodes.
func (a *Approvals) updateIndex(change func([]openDM) []openDM) error {
	err := kvstore.Update(a.store.KV, dmIndexKey, func(raw []byte) (kvstore.Change, error) {
		var open []openDM
		if raw != nil {
			if err := json.Unmarshal(raw, &open); err != nil {
				open = nil // a broken index is rebuilt from now on
			}
		}
		next, err := json.Marshal(change(open))
		return kvstore.Change{Value: next}, err
	})
	if err != nil {
		return fmt.Errorf("the list of open direct messages: %w", err)
	}
	return nil
}

// ExpireDMs edits the direct messages of writes that expired unanswered
// (and of any answered on a node that could not edit them).
// It runs on one node of the cluster at a time, every minute.
func (a *Approvals) ExpireDMs(now time.Time) (int, error) {
	raw, err := a.store.KV.Get(dmIndexKey)
	if err != nil || raw == nil {
		return 0, err
	}
	var open []openDM
	if err := json.Unmarshal(raw, &open); err != nil {
		return 0, err
	}
	n := 0
	for _, dm := range open {
		// The KV store drops a pending record when it expires: a record
		// that is gone is a write that expired unanswered.
		rec, err := a.store.Load(dm.UserID, dm.RecordID)
		switch {
		case errors.Is(err, ErrNotFound):
			expired := dm.Expires
			if now.Before(expired) {
				expired = now
			}
			a.closeDM(dm.UserID, dm.RecordID, func(loc *time.Location) string { return expiredText(expired, loc) })
			n++
		case err != nil:
			return n, err
		case rec.State != StatePending && rec.State != StateExecuting:
			// Answered on a node that could not edit the message.
			a.closeDM(dm.UserID, dm.RecordID, func(*time.Location) string { return a.settledText(rec) }, rec.Permalink)
			n++
		}
	}
	return n, nil
}

// askingText is the direct message about a write that waits: what is asked,
// the first lines of the message, the files, who is notified, until when,
// and the link.
func (a *Approvals) askingText(plan posting.Plan, rec Record, loc *time.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: an AI assistant asks to do this as you. Nothing is sent until you accept.\n", markdownLine(HeadingLine(plan)))
	w := writeOf(plan.Action)
	b.WriteString(changeLines(plan, w))
	if msg := firstLines(plan.Message); msg != "" {
		b.WriteString(codeBlock(msg))
	}
	if n := len(plan.Files); n > 0 {
		names := make([]string, 0, n)
		for _, f := range plan.Files {
			names = append(names, codeSpan(f.Name))
		}
		fmt.Fprintf(&b, "Files (%d): %s\n", n, strings.Join(names, ", "))
	}
	if len(plan.Notes) > 0 {
		b.WriteString(w.notesHeading() + ":\n")
		for _, note := range plan.Notes {
			b.WriteString("- " + markdownText(note) + "\n")
		}
	}
	// A blank line, so the last line is not read as part of the list.
	fmt.Fprintf(&b, "\nIt waits for your answer until %s. [Open the confirmation](%s) to accept or decline it.",
		rec.ExpiresAt().In(loc).Format("15:04 MST"), a.PageURL(rec.ID))
	return b.String()
}

// settledText is the direct message once the write was answered. Its
// sentences carry names (and a failure's reason may carry the model's
// text), so each is escaped; the permalink is the one the plugin built.
func (a *Approvals) settledText(rec Record) string {
	place := markdownText(rec.place())
	w := writeOf(rec.Action)
	switch rec.State {
	case StatePosted, StateDeclined:
		if w.Settled != nil {
			return w.Settled(rec.State, place, rec.Permalink)
		}
		if rec.State == StateDeclined {
			return "**Declined**: " + markdownText(strings.TrimPrefix(w.Declined, "Declined: "))
		}
		return strings.TrimSpace("**Done** after you accepted: " + markdownText(w.Done(rec.place())) + " " + rec.Permalink)
	case StateFailed:
		return fmt.Sprintf("**Failed** after you accepted: %s", markdownText(rec.Outcome))
	case StateWithdrawn:
		text, _ := outcomeText(rec.State, rec.Action, "", "")
		return "**Withdrawn**: " + markdownText(strings.TrimPrefix(text, "Withdrawn: ")+" It can no longer be accepted.")
	}
	return fmt.Sprintf("This write to %s is %s.", place, rec.State)
}

func expiredText(at time.Time, loc *time.Location) string {
	return fmt.Sprintf("**Expired** at %s without an answer: nothing was sent.", at.In(loc).Format("15:04 MST"))
}

// firstLines is the start of a message for the direct message.
func firstLines(msg string) string {
	out, cut := present.FirstLines(strings.TrimSpace(msg), dmPreviewLines, dmPreviewRunes)
	if cut {
		out += "\n…"
	}
	return out
}
