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
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
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

// settled tells the person's open Mattermost that a write was answered,
// tells Options.Settled, and edits its direct message, if one was sent, to
// say what became of it.
func (a *Approvals) settled(c *mattermost.Caller, rec Record) {
	a.wakeCall(rec.ID)
	a.answered(c, rec.ID, rec.State)
	if a.opts.Settled != nil {
		a.opts.Settled(rec)
	}
	a.closeDM(c.UserID(), rec.ID, func(loc *time.Location) string { return a.settledText(rec) }, rec.Permalink)
}

// wakeCall wakes the call waiting for write id, on whichever node it
// waits: the write ended.
func (a *Approvals) wakeCall(id string) {
	if a.opts.Wake != nil {
		a.opts.Wake.Happened(wake.Write(id), "")
	}
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
			a.closeDM(dm.UserID, dm.RecordID, func(loc *time.Location) string { return ExpiredMessage(expired, loc) })
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

// askingText is the direct message about a write that waits.
func (a *Approvals) askingText(plan posting.Plan, rec Record, loc *time.Location) string {
	return AskingMessage(plan, rec, a.PageURL(rec.ID), loc)
}

// AskingMessage is the bot's direct message about a write that waits, page
// its confirmation page: what is asked in the plugin's words, then in one
// fenced block the heading, the facts, the post it is about or the first
// lines of the message, the files and who is notified, then until when it
// waits and the link. Exported for the tests that render it with
// Mattermost's own renderers (e2e/renderers).
func AskingMessage(plan posting.Plan, rec Record, page string, loc *time.Location) string {
	w := writeOf(plan.Action)
	var b block
	b.plain(lineOf(HeadingLine(plan)))
	for _, f := range w.facts(plan) {
		label := f.Label
		if f.AI {
			label += " (written by the AI)"
		}
		b.line(label, f.Value)
	}
	if msg := firstLines(shown(plan)); w.PostCaption != "" && msg != "" {
		b.text(w.PostCaption, msg)
	}
	if msg := firstLines(plan.Message); msg != "" && !w.ShowsMessage {
		b.text(or(w.MessageHeading, "Message")+" (written by the AI)", msg)
	}
	if n := len(plan.Files); n > 0 {
		names := make([]string, 0, n)
		for _, f := range plan.Files {
			names = append(names, f.Name)
		}
		b.list(fmt.Sprintf("Files (%d)", n), names)
	}
	if len(plan.Notes) > 0 {
		b.list(w.notesHeading(), plan.Notes)
	}
	return fmt.Sprintf("**An AI assistant asks to %s.** Nothing happens until you accept.\n%s\nIt waits for your answer until %s. [Open the confirmation](%s) to accept or decline it.",
		w.asks(), b.String(), rec.ExpiresAt().In(loc).Format("15:04 MST"), page)
}

// settledText is the direct message once the write was answered.
func (a *Approvals) settledText(rec Record) string { return OutcomeMessage(rec) }

// OutcomeMessage is the bot's direct message once a write was answered,
// failed or was withdrawn: what became of it in the plugin's words with the
// permalink the plugin built, then where and why in a fenced block.
// Exported for the tests that render it with Mattermost's own renderers.
func OutcomeMessage(rec Record) string {
	w := writeOf(rec.Action)
	var b block
	if place := rec.place(); place != "" {
		b.line("Where", place)
	}
	var said string
	switch rec.State {
	case StateDone, StateDeclined:
		switch {
		case w.Settled != nil:
			said = w.Settled(rec.State, rec.Permalink)
		case rec.State == StateDeclined:
			said = "**Declined**: " + strings.TrimPrefix(w.Declined, "Declined: ")
		default:
			said = strings.TrimSpace("**Done** after you accepted: " + w.Done("") + " " + rec.Permalink)
		}
	case StateFailed:
		text, why := outcomeText(rec.State, rec.Action, "", rec.Outcome)
		said = "**Failed** after you accepted: " + strings.TrimPrefix(text, "Failed: ")
		if why != "" {
			b.line("Why", why)
		}
	case StateWithdrawn:
		text, _ := outcomeText(rec.State, rec.Action, "", "")
		said = "**Withdrawn**: " + strings.TrimPrefix(text, "Withdrawn: ") + " It can no longer be accepted."
	default:
		said = "This write is " + rec.State + "."
	}
	if values := b.String(); values != "" {
		return said + "\n" + strings.TrimSuffix(values, "\n")
	}
	return said
}

// ExpiredMessage is the bot's direct message once a write expired at at,
// unanswered.
func ExpiredMessage(at time.Time, loc *time.Location) string {
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

// FileRequestMessage is the bot's direct message about a file the AI asks
// of the person: what for, in the model's words inside the fenced block,
// then until when and the link to the page where they give it.
func FileRequestMessage(purpose, page string, expires time.Time, loc *time.Location) string {
	var b block
	b.text("What it is for (written by the AI)", purpose)
	return fmt.Sprintf("**An AI assistant asks you for one of your files.** Nothing is sent until you give it, and it is attached to a post only once you accept that post.\n%s\nThe request waits until %s. [Open the page](%s) to pick or drop the file.",
		b.String(), expires.In(loc).Format("15:04 MST"), page)
}

// TellFileRequest sends the person the bot's direct message about a file
// request, where the admin has the person told by direct message.
func (a *Approvals) TellFileRequest(c *mattermost.Caller, id, purpose, page string, expires time.Time) {
	if a.opts.Bot == nil || !a.opts.Config().NotifyByDM {
		return
	}
	msg := FileRequestMessage(purpose, page, expires, a.zone(c))
	for _, target := range LinkTargets(msg) {
		if target != "" && target != page {
			a.opts.MM.Log().Error("The bot's message about a file request held a link the plugin did not build; sent the page link alone", "file_request_id", id)
			msg = "An AI assistant asks you for one of your files. [Open the page](" + page + ") to see what for."
			break
		}
	}
	if _, err := a.opts.Bot.Tell(c.UserID(), &model.Post{Message: msg}); err != nil {
		a.opts.MM.Log().Warn("Could not tell the person by direct message of a file request", "user_id", c.UserID(), "error", err.Error())
	}
}
