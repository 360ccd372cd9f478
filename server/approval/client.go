package approval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Asking through the client stores the checked write as a pending record
// first. A client of protocol 2026-07-28 or later gets a multi-round-trip
// exchange: the call answers input_required with the question and a signed
// state, and the client asks the person and calls again with the answer and
// the state, on whatever node. An earlier client is sent an elicitation
// request on the call's own stream; the transport carries its answer to the
// node that waits for it.
//
// The client's answer counts only while the admin's setting lets the client
// ask: the mode "Always in Mattermost" takes effect for questions already
// out, whose answers are then refused and whose writes wait in Mattermost.

// askInClient asks the client to put the question about a pending write.
func (a *Approvals) askInClient(ctx context.Context, c *mattermost.Caller, rec Record, mode string) (Outcome, error) {
	if !server.IsModernRequest(ctx) {
		return a.askOnStream(ctx, c, rec, mode)
	}
	call := transport.CallOf(ctx)
	state, err := a.signer.Sign(questionState{UserID: c.UserID(), Tool: call.Tool, Arguments: call.Arguments, RecordID: rec.ID, Mode: mode})
	if err != nil {
		return Outcome{}, err
	}
	return a.question(state, mode, rec), nil
}

func (a *Approvals) question(state, mode string, rec Record) Outcome {
	o := a.outcome(rec)
	o.Question = &Question{State: state, Params: a.questionParams(mode, rec)}
	return o
}

func (a *Approvals) questionParams(mode string, rec Record) mcp.ElicitationParams {
	if mode == ModeURL {
		return urlQuestion(*rec.Plan, rec.ID, a.PageURL(rec.ID))
	}
	return formQuestion(*rec.Plan, rec.ID)
}

// askOnStream asks a client of protocol 2025-11-25 or earlier directly, with
// an elicitation request on the call's own stream (its answer may reach any
// node; the transport carries it to this one). A client that declared it can
// ask but then fails to, or whose person has not answered within the call's
// bound, leaves the question to the person in Mattermost.
func (a *Approvals) askOnStream(ctx context.Context, c *mattermost.Caller, rec Record, mode string) (Outcome, error) {
	ctx, stop := transport.WatchCancel(ctx)
	defer stop()
	// The client's question counts against the call's bound too: a client
	// times out a call while its own question is on screen (the TypeScript
	// SDK at 60 s), and then would never learn where the write waits. Past
	// the bound the question goes on in Mattermost, and the call says so.
	_, answerBy := CallWindow(ctx)
	askCtx, cancel := context.WithDeadline(ctx, answerBy)
	defer cancel()
	// One question at a time per session on this node: the person answers
	// them in turn, and mcp-go routes answers to one call of a session.
	err := transport.HoldQuestionSlot(askCtx)
	var res *mcp.ElicitationResult
	if err == nil {
		res, err = server.ServerFromContext(ctx).RequestElicitation(askCtx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  a.questionParams(mode, rec),
		})
	}
	if err != nil {
		if ctx.Err() != nil {
			if transport.CancelledByClient(ctx) {
				return a.withdraw(ctx, c, rec, "")
			}
			// The client went away; the question still waits in Mattermost.
			return a.outcome(rec), nil
		}
		if askCtx.Err() != nil {
			a.opts.MM.Log().Info("The MCP client brought no answer within the call's bound; the question waits in Mattermost", "user_id", c.UserID())
		} else {
			a.opts.MM.Log().Info("The MCP client could not ask the person; the question waits in Mattermost", "user_id", c.UserID(), "error", err.Error())
		}
		if mode != ModeURL {
			a.waitInMattermost(c, rec)
		}
		return a.waitForAnswer(ctx, c, rec, "")
	}
	// The person may have answered in Mattermost meanwhile.
	rec, err = a.store.Load(c.UserID(), rec.ID)
	if errors.Is(err, ErrNotFound) {
		return Outcome{}, refusal.New("The question expired before the answer came back; nothing was sent. Ask again if the person still wants it.", "")
	}
	if err != nil {
		return Outcome{}, err
	}
	return a.settle(ctx, c, rec, mode, mcp.InputResponses{AnswerInputID: mcp.NewElicitationInputResponse(*res)}, "")
}

// Resume finishes a call the client retried with the person's answer (the
// call's requestState is set).
func (a *Approvals) Resume(ctx context.Context, c *mattermost.Caller, call transport.Call) (Outcome, error) {
	st, err := a.signer.Verify(call.RoundTrip.RequestState, c.UserID(), call.Tool, call.Arguments)
	if errors.Is(err, ErrInvalidState) {
		return Outcome{}, refusal.Newf("This answer cannot be used: its state was altered, belongs to another call or arguments, or is older than %d minutes. Nothing was sent. Call %s again, without requestState, to ask the person anew.",
			int(PendingLifetime.Minutes()), call.Tool)
	}
	if err != nil {
		return Outcome{}, err
	}
	rec, err := a.store.Load(c.UserID(), st.RecordID)
	if errors.Is(err, ErrNotFound) {
		return Outcome{}, refusal.Newf("The question expired before the answer came back; nothing was sent. Call %s again to ask anew.", call.Tool)
	}
	if err != nil {
		return Outcome{}, err
	}
	return a.settle(ctx, c, rec, st.Mode, call.RoundTrip.InputResponses, call.RoundTrip.RequestState)
}

// clientMayAnswer is whether the admin's setting, as it is now, lets the
// client's answer stand for the person's.
func (a *Approvals) clientMayAnswer(mode string) bool {
	if mode == ModeURL {
		// The client only opened the page; the page's answer decides.
		return true
	}
	switch a.opts.Config().WriteConfirmation {
	case config.ConfirmClientThenMattermost, config.ConfirmClientApproval:
		return true
	}
	return false
}

// settle carries out the person's answer to the question about rec. state
// is the multi-round-trip state to ask again with when the answer is
// missing ("" when the question was asked on the stream).
func (a *Approvals) settle(ctx context.Context, c *mattermost.Caller, rec Record, mode string, responses mcp.InputResponses, state string) (Outcome, error) {
	if rec.State != StatePending {
		// Answered meanwhile, e.g. on the Mattermost page.
		if mode == ModeURL {
			a.closeQuestion(ctx, rec.ID)
		}
		return a.outcome(rec), nil
	}
	if !a.clientMayAnswer(mode) {
		// The admin switched to "Always in Mattermost" after the question
		// went out: whatever the client says, the person answers there.
		transport.Tell(ctx, mcp.LoggingLevelWarning, "The admin's setting now asks the person in Mattermost, so the answer given in this client was not taken.")
		a.waitInMattermost(c, rec)
		return a.waitForAnswer(ctx, c, rec, "")
	}
	verdict := readVerdict(responses, mode, rec.ID)
	if verdict == NoAnswer && state != "" {
		// The client came back without the answer: ask the same question
		// again rather than guess.
		return a.question(state, mode, rec), nil
	}
	switch verdict {
	case NoAnswer, Declined, Cancelled:
		declined, err := a.store.Decline(c.UserID(), rec.ID)
		switch {
		case err == nil:
			// The person's Mattermost may list it; it is answered now.
			a.settled(c, declined)
		case errors.Is(err, ErrDecided):
			return a.outcome(declined), nil
		case !errors.Is(err, ErrNotFound):
			return Outcome{}, err
		}
		o := a.outcome(declined)
		o.Record.ID, o.Record.State, o.DeclinedInClient = rec.ID, StateDeclined, true
		return o, nil
	}
	if mode == ModeURL {
		// The person went to the page; its answer decides, and ends the
		// question the client shows (its elicitation id is the record's).
		return a.waitForAnswer(ctx, c, rec, rec.ID)
	}
	// The person said yes: a cancellation of the call from now on ends only
	// its answer, never the write half done.
	done, err := a.store.Accept(context.WithoutCancel(ctx), c, rec.ID, a.run)
	switch {
	case err == nil:
		a.settled(c, done)
	case !errors.Is(err, ErrDecided):
		return Outcome{}, err
	}
	return a.outcome(done), nil
}

// progress tells a client that sent a progress token that the call waits
// for the person. A client that cannot take the notification loses only it.
func (a *Approvals) progress(ctx context.Context, started time.Time, id string) {
	// Progress counts the seconds of the call out of the most it waits, and
	// must grow with every notification: it is sent every ProgressEvery.
	err := transport.Progress(ctx, int(time.Since(started).Seconds()), int(maxCallWait.Seconds()), fmt.Sprintf(
		"Waiting for the person to accept or decline in Mattermost: %s (at most %d s; then the call answers with the id for get_pending).",
		a.PageURL(id), int(maxCallWait.Seconds())))
	if err != nil {
		a.opts.MM.Log().Debug("A progress notification was not delivered", "error", err.Error())
	}
}
