// Package approval owns the whole life of a write the person must say yes
// to: staging the checked plan, asking (through the MCP client where the
// admin allows it, else in Mattermost), the pending record with its page and
// JSON API, who may answer, carrying out the plan after a yes, and settling
// the outcome and telling the person's other Mattermost tabs.
//
// Its surface speaks in domain values: Stage and Ask take a caller and a
// plan and give an Outcome; Answer takes the answering Mattermost session.
// Tools only define their arguments and word the Outcome for the model.
package approval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

const (
	// maxCallWait is the longest a call that waits for the person holds
	// before it answers that the write still waits (with its page and id
	// for get_pending). It counts from the call's start, and every wait of
	// the call ends by then: for memory to read its files in, for the
	// session's question slot, for the client's own question, for the
	// answer in Mattermost. Well inside common client timeouts: the
	// TypeScript SDK gives up at 60 s, and proxies and gateways often at
	// 30 s; the rest of 25 s is left for reading the files and answering.
	maxCallWait = 20 * time.Second
	// ProgressEvery keeps a client that asked for progress from timing the
	// call out while the person reads the question (or, for wait_for_reply,
	// writes their reply).
	ProgressEvery = 5 * time.Second
	titleRunes    = 60
)

// Options wire the approvals to the plugin.
type Options struct {
	MM     *mattermost.Gateway
	Config func() config.Configuration
	// Workspace holds the files a post can take from the person's workspace
	// and the upload handles.
	Workspace *workspace.Store
	// Slots bound the files all posts of this process hold in memory at
	// once (posting.NewSlots, made once at activation).
	Slots chan struct{}
	// Bot sends the person a direct message when a write starts waiting
	// for them in Mattermost (nil: never).
	Bot Teller
	// PluginURL is the plugin's public URL, read when needed.
	PluginURL func() string
	// Streams answers whether Mattermost delivers what the plugin writes
	// on a response before the response ends (nil: it does). Without it a
	// question put on a call's own stream (protocol 2025-11-25 and earlier)
	// would reach the client only once the call gave up waiting for its
	// answer, so such clients are asked in Mattermost instead.
	Streams func() bool
	// Audit records every step of every write (nil: none).
	Audit audit.Recorder
	// Settled hears of every write that reached its end (answered, done,
	// failed, declined, withdrawn, or StateExpired from the minute job), on
	// the node where it did, with the record as it stands then (nil:
	// nobody). Record.OpenQuestion names a client to tell.
	Settled func(rec Record)
	// Wake wakes a call waiting for an answer when the write ends on any
	// node (Settled tells it there); nil: the call looks every
	// wake.SafetyLook alone.
	Wake *wake.Hub
	Now  func() time.Time
}

// Approvals is every pending write of this installation.
type Approvals struct {
	opts   Options
	store  *Store
	signer *Signer
	// clients are the Mattermost sessions that have called /mcp for each
	// person, none of which may answer.
	clients *clientSessions
	// run carries out an accepted plan as c (execute; tests replace it).
	run func(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (Executed, error)
	// answered tells the person's open Mattermost that a write was
	// answered, so every tab drops or updates it.
	answered func(c *mattermost.Caller, id, state string)
	// told tells the person's open Mattermost that a write waits for their
	// answer there.
	told func(c *mattermost.Caller, rec Record)
	// zone is the person's time zone from their Mattermost profile.
	zone func(c *mattermost.Caller) *time.Location
	// completed tells the client of ctx that the url-mode question with
	// this elicitation id is over (sendComplete; tests replace it).
	completed func(ctx context.Context, elicitationID string)
}

// New builds the approvals over the plugin KV store.
// WaitingSessions are the MCP sessions that asked the person's writes
// still waiting (transport.Options.WaitingSessions).
func (a *Approvals) WaitingSessions(userID string) (map[string]bool, error) {
	return a.store.WaitingSessions(userID)
}

func New(o Options) *Approvals {
	if o.Now == nil {
		o.Now = time.Now
	}
	kv := o.MM.BytesKV()
	a := &Approvals{opts: o, store: &Store{KV: kv, Now: o.Now, Audit: o.Audit}, signer: NewSigner(kv, o.Now), clients: &clientSessions{kv: kv, now: o.Now},
		answered: func(c *mattermost.Caller, id, state string) { c.NotifyAnswered(id, state) },
		told:     func(c *mattermost.Caller, rec Record) { c.NotifyPending(rec.ID, rec.Title) },
		zone:     (*mattermost.Caller).Location}
	a.store.Discard = a.discardUploads
	a.run = a.execute
	a.completed = a.sendComplete
	return a
}

// Outcome is where a write stands after a call: done, waiting for the
// person, a question the client must put, or declined.
type Outcome struct {
	// Record is the pending write as it stands (empty when the admin
	// leaves writes to the client's own approval and it was done at once).
	Record Record
	// Plan is what was asked (an answered record keeps none).
	Plan posting.Plan
	// PageURL is where the person answers while it waits in Mattermost.
	PageURL string
	// Question, when set, is the question the client must ask the person
	// and call again with (protocol 2026-07-28 and later).
	Question *Question
	// FileIDs are the files of a post done at once, in the plan's order,
	// and ChannelID the channel it went to (a direct or group message's is
	// made only then).
	FileIDs   []string
	ChannelID string
	// DeclinedInClient is a no given in the client's own question.
	DeclinedInClient bool
}

// Question is a question for the client to put to the person.
type Question struct {
	State  string
	Params mcp.ElicitationParams
}

// MayWrite is checked on every call of a write tool, before anything is
// read, and again just before anything is sent. It answers a refusal, or
// nil to go on.
func (a *Approvals) MayWrite() error {
	cfg := a.opts.Config()
	if !cfg.AllowWrites {
		return WritesOff()
	}
	switch cfg.WriteConfirmation {
	case config.ConfirmClientApproval, config.ConfirmMattermost, config.ConfirmClientThenMattermost:
		return nil
	}
	return refusal.New("The write confirmation setting is not one this plugin knows: nothing was sent.",
		"Ask an admin to choose one in System Console > Plugins > MCP Server.")
}

// WritesOff is the refusal of any tool that writes while the admin does not
// allow writes: every such tool says it in these words.
func WritesOff() *refusal.Error {
	return refusal.New("Writing is turned off on this Mattermost: nothing was sent.",
		"An admin can allow it in System Console > Plugins > MCP Server; until then, tell the person what you would have written.")
}

// PageURL is the confirmation page of a pending write.
func (a *Approvals) PageURL(id string) string { return a.opts.PluginURL() + Path + "/" + id }

// Stage checks a post as the caller and reads each of its files once, to
// show them. Nothing is written to Mattermost.
func (a *Approvals) Stage(ctx context.Context, c *mattermost.Caller, req posting.Request) (posting.Plan, error) {
	// Waiting for memory counts against the call's bound as waiting for
	// the person does.
	_, answerBy := CallWindow(ctx)
	plan, err := posting.Prepare(posting.WaitForSlotsUntil(ctx, answerBy), c, a.sources(c), req)
	if err != nil {
		a.discardUploads(c.UserID(), posting.Plan{Files: req.Uploaded}.Uploads())
	}
	return plan, err
}

// Ask puts a checked write to the person where the admin's setting says
// (in the client when it can show a form and the setting allows, else in
// Mattermost, with the page sent to a client that opens links), or, when
// the admin leaves writes to the client's own approval, carries it out at
// once. Either way the write is first stored as a pending record, so any
// node can show, answer and carry it out.
func (a *Approvals) Ask(ctx context.Context, c *mattermost.Caller, plan posting.Plan, clientSessions []string) (Outcome, error) {
	mode := a.opts.Config().WriteConfirmation
	if mode == config.ConfirmClientApproval {
		// Checked again just before sending: the setting may have changed
		// while the files were read.
		if err := a.MayWrite(); err != nil {
			a.discardUploads(c.UserID(), plan.Uploads())
			return Outcome{}, err
		}
		return a.executeNow(ctx, c, plan)
	}
	rec, err := a.store.CreateFor(c.UserID(), Title(plan), plan, clientSessions, OriginOf(ctx))
	if err != nil {
		a.discardUploads(c.UserID(), plan.Uploads())
		return Outcome{}, err
	}
	if task := transport.TaskOf(ctx); task != nil {
		// The client's host follows the task: the write waits in
		// Mattermost, and the call answers at once.
		a.waitInMattermost(c, rec)
		task.Waits(rec.ID)
		return a.outcome(rec), nil
	}
	form, url := a.asksHere(ctx)
	if form && mode == config.ConfirmClientThenMattermost {
		return a.askInClient(ctx, c, rec, ModeForm)
	}
	a.waitInMattermost(c, rec)
	if url {
		return a.askInClient(ctx, c, rec, ModeURL)
	}
	return a.waitForAnswer(ctx, c, rec, "")
}

// waitInMattermost tells the person's open Mattermost that the write waits
// for their answer there.
func (a *Approvals) waitInMattermost(c *mattermost.Caller, rec Record) {
	a.told(c, rec)
	a.tellByDM(c, rec)
}

func (a *Approvals) executeNow(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (Outcome, error) {
	done, err := a.execute(ctx, c, plan)
	a.recordDoneAtOnce(ctx, c.UserID(), plan, done, err)
	if err != nil {
		return Outcome{}, err
	}
	channel := done.ChannelID
	if done.PostedIn != "" {
		channel = done.PostedIn
	}
	return Outcome{Plan: plan, FileIDs: done.FileIDs, ChannelID: channel, Record: Record{State: StateDone, Action: plan.Action, PostID: done.PostID,
		ChannelID: done.ChannelID, Permalink: done.Permalink}}, nil
}

// Pending is one of the caller's pending or recently answered writes.
func (a *Approvals) Pending(c *mattermost.Caller, id string) (Outcome, error) {
	rec, err := a.store.Load(c.UserID(), id)
	if err != nil {
		return Outcome{}, err
	}
	return a.outcome(rec), nil
}

// List is the caller's pending and recently answered writes, pending first.
func (a *Approvals) List(c *mattermost.Caller) ([]Outcome, error) {
	recs, err := a.store.Sorted(c.UserID())
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, 0, len(recs))
	for _, r := range recs {
		out = append(out, a.outcome(r))
	}
	return out, nil
}

func (a *Approvals) outcome(rec Record) Outcome {
	o := Outcome{Record: rec, Plan: planOf(rec)}
	if rec.State == StatePending {
		o.PageURL = a.PageURL(rec.ID)
	}
	return o
}

// planOf is a record's plan; answered records keep none, so their action
// is taken from what is left.
func planOf(rec Record) posting.Plan {
	if rec.Plan != nil {
		return *rec.Plan
	}
	return posting.Plan{Action: rec.Action, Payload: keptPayload(rec), Dest: posting.Destination{Label: rec.Destination, Place: rec.Place}}
}

// waitForAnswer waits a bounded time for the person's answer in
// Mattermost, keeping the client informed, and answers the outcome or that
// the write still waits. A call its client cancels withdraws the write and
// answers nothing; a call whose connection dropped (or whose plugin stops)
// leaves the write waiting, since nobody decided against it and get_pending
// still tells its outcome.
//
// elicitationID is the url-mode question the client showed for this write
// ("" for none): when the wait ends in an answer, an expiry or a
// withdrawal, the client is told it is over, so it closes its prompt.
func (a *Approvals) waitForAnswer(ctx context.Context, c *mattermost.Caller, rec Record, elicitationID string) (Outcome, error) {
	release, _, held := transport.HoldWait(ctx)
	defer release()
	if !held {
		// Past the person's share: the write waits, the call does not.
		return a.handOver(ctx, c, rec, elicitationID)
	}
	ctx, stop := transport.WatchCancel(ctx)
	defer stop()
	started, answerBy := CallWindow(ctx)
	a.progress(ctx, started, rec.ID)
	transport.Tell(ctx, mcp.LoggingLevelInfo, fmt.Sprintf(
		"A write waits for the person to accept or decline it in Mattermost; the call answers within %d seconds.", int(time.Until(answerBy).Seconds())))
	deadline := time.NewTimer(time.Until(answerBy))
	defer deadline.Stop()
	// Woken when the write ends on any node; a slow look besides, for a
	// wake that was lost.
	var woken <-chan string
	if a.opts.Wake != nil {
		var done func()
		woken, done = a.opts.Wake.Wait(wake.Write(rec.ID))
		defer done()
	}
	tick := time.NewTicker(wake.SafetyLook)
	defer tick.Stop()
	progress := time.NewTicker(ProgressEvery)
	defer progress.Stop()
	latest := rec
	toldPending := false
	// check reads the record again: done is an answer to give now.
	check := func() (done bool, o Outcome, err error) {
		now, err := a.store.Load(c.UserID(), rec.ID)
		if errors.Is(err, ErrNotFound) {
			a.closeQuestion(ctx, elicitationID)
			return true, Outcome{}, refusal.New("The question expired without an answer; nothing was sent.", "")
		}
		if err != nil {
			return true, Outcome{}, err
		}
		latest = now
		switch now.State {
		case StateDone, StateDeclined, StateFailed, StateWithdrawn:
			if !now.QuestionOpen {
				// Else an earlier call left it open and its settler closed it.
				a.closeQuestion(ctx, elicitationID)
			}
			return true, a.outcome(now), nil
		}
		return false, Outcome{}, nil
	}
	// What ended before the wake was registered is seen now.
	if done, o, err := check(); done {
		return o, err
	}
	for {
		select {
		case <-progress.C:
			a.progress(ctx, started, rec.ID)
			if left := time.Until(answerBy); left < 2*ProgressEvery && !toldPending {
				// Told before the call ends, not as it ends: a notice sent
				// as the handler returns may miss the stream.
				transport.Tell(ctx, mcp.LoggingLevelNotice, fmt.Sprintf(
					"The person has not answered yet: in about %d seconds the call answers that the write stays pending, and get_pending tells its outcome later.", int(left.Seconds())))
				toldPending = true
			}
		case <-ctx.Done():
			if transport.CancelledByClient(ctx) {
				return a.withdraw(ctx, c, latest, elicitationID)
			}
			return a.handOver(ctx, c, latest, elicitationID)
		case <-deadline.C:
			if transport.CancelledByClient(ctx) {
				return a.withdraw(ctx, c, latest, elicitationID)
			}
			if done, o, err := check(); done {
				return o, err
			}
			return a.handOver(ctx, c, latest, elicitationID)
		case <-woken:
			if done, o, err := check(); done {
				return o, err
			}
		case <-tick.C:
			if done, o, err := check(); done {
				return o, err
			}
		}
	}
}

// handOver answers that rec still waits, as a call ends before the
// person's answer, and leaves the url-mode question elicitationID ("" for
// none) that its client still shows to whoever settles the write
// (Record.QuestionOpen): that node tells the session it is over, wherever
// it listens. A write decided in the meantime is answered, and its
// question closed, here.
func (a *Approvals) handOver(ctx context.Context, c *mattermost.Caller, rec Record, elicitationID string) (Outcome, error) {
	if elicitationID == "" || rec.MCPSession == "" {
		// No question shown, or a sessionless client: nothing to tell later.
		return a.outcome(rec), nil
	}
	now, err := a.store.LeaveQuestionOpen(c.UserID(), rec.ID)
	switch {
	case err == nil:
		if err := a.store.noteQuestionOpen(now); err != nil {
			a.opts.MM.Log().Warn("Could not note for the expiry job that a client shows a question; if the write expires its client is not told", "user_id", c.UserID(), "id", rec.ID, "error", err.Error())
		}
		return a.outcome(now), nil
	case errors.Is(err, ErrDecided):
		a.closeQuestion(ctx, elicitationID)
		return a.outcome(now), nil
	case errors.Is(err, ErrNotFound):
		a.closeQuestion(ctx, elicitationID)
		return Outcome{}, refusal.New("The question expired without an answer; nothing was sent.", "")
	default:
		// The client keeps showing the question; get_pending still tells
		// the outcome.
		a.opts.MM.Log().Warn("Could not note that a client shows a question about a waiting write; it will not be told when the question is over", "user_id", c.UserID(), "id", rec.ID, "error", err.Error())
		return a.outcome(rec), nil
	}
}

// closeQuestion tells the client that the url-mode question elicitationID
// is over ("" asked none).
func (a *Approvals) closeQuestion(ctx context.Context, elicitationID string) {
	if elicitationID != "" {
		a.completed(ctx, elicitationID)
	}
}

// sendComplete sends notifications/elicitation/complete on the call's own
// stream, before its result, as MCP 2025-11-25 says a server should once
// the person finished on the page: the client closes the prompt that
// waits for it. A client that cannot take it loses only the notice.
func (a *Approvals) sendComplete(ctx context.Context, elicitationID string) {
	n := mcp.NewElicitationCompleteNotification(elicitationID)
	if !transport.NotifyBeforeResult(ctx, n.Method, n.Params.AdditionalFields, "elicitationId") {
		a.opts.MM.Log().Debug("An elicitation complete notification was not delivered", "elicitation_id", elicitationID)
	}
}

// CallWindow is when the call began and by when it answers: every tool
// call that waits (for the person, or for a reply) holds this long at most.
func CallWindow(ctx context.Context) (started, answerBy time.Time) {
	started = transport.CallOf(ctx).Started
	if started.IsZero() {
		started = time.Now()
	}
	return started, started.Add(maxCallWait)
}

// withdraw ends a call its client cancelled while the write waited: the
// write is withdrawn, so the person's page, modal and direct message say so
// and a later accept changes nothing, and the call answers nothing, as the
// protocol asks. A write answered in the meantime stays as it is. A
// url-mode question about it (elicitationID, "" for none) is over.
func (a *Approvals) withdraw(ctx context.Context, c *mattermost.Caller, rec Record, elicitationID string) (Outcome, error) {
	transport.DropAnswer(ctx)
	done, err := a.store.Withdraw(c.UserID(), rec.ID)
	switch {
	case err == nil:
		a.opts.MM.Log().Info("The MCP client cancelled a call waiting for the person; its write was withdrawn", "user_id", c.UserID(), "id", rec.ID)
		a.settled(c, done)
		a.closeQuestion(ctx, elicitationID)
	case errors.Is(err, ErrDecided), errors.Is(err, ErrNotFound):
		// Answered or expired first: that stands.
	default:
		return Outcome{}, err
	}
	return a.outcome(done), nil
}

// execute carries out a write the person accepted, as them, if writes are
// still allowed.
func (a *Approvals) execute(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	if c.UserID() != plan.CallerID {
		return Executed{}, posting.ErrNotFound
	}
	// Carry discards the files received for the write on its own failures
	// (posting.Execute); these come before it.
	if err := a.MayWrite(); err != nil {
		a.discardUploads(c.UserID(), plan.Uploads())
		return Executed{}, err
	}
	w := writeOf(plan.Action)
	if w.Recheck != nil {
		if err := w.Recheck(a, c, plan); err != nil {
			a.discardUploads(c.UserID(), plan.Uploads())
			return Executed{}, err
		}
	}
	return w.Carry(ctx, a, c, plan)
}

// permalink is where the person opens a post the caller just wrote.
func (a *Approvals) permalink(c *mattermost.Caller, channelID, postID string) string {
	teamName := ""
	if ch, err := c.Channel(channelID); err == nil && ch.TeamId != "" {
		if t, err := c.Team(ch.TeamId); err == nil {
			teamName = t.Name
		}
	}
	return present.Permalink(c.SiteURL(), teamName, postID)
}
