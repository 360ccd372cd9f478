package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/confirm"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/question"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Asking through the client stores the checked write as a pending record
// first. A client of protocol 2026-07-28 or later gets a multi-round-trip
// exchange: the call answers input_required with the question and a signed
// state, and the client asks the person and calls again with the answer and
// the state, on whatever node. An earlier client is sent an elicitation
// request on the call's own stream; the transport carries its answer to the
// node that waits for it.

// askInClient asks the client to put the question about a pending write.
func (d Deps) askInClient(ctx context.Context, c *mattermost.Caller, rec confirm.Record, mode string) (*mcp.CallToolResult, error) {
	if !server.IsModernRequest(ctx) {
		return d.askOnStream(ctx, c, rec, mode)
	}
	call := catalogue.CallOf(ctx)
	state, err := d.Questions.Sign(question.State{UserID: c.UserID(), Tool: call.Tool, Arguments: call.Arguments, RecordID: rec.ID, Mode: mode})
	if err != nil {
		return nil, err
	}
	return d.question(state, mode, *rec.Plan, rec.ID), nil
}

func (d Deps) question(state, mode string, plan posting.Plan, recordID string) *mcp.CallToolResult {
	return server.NewInputRequestBuilder(state).Elicit(question.InputID, d.questionParams(mode, plan, recordID)).ToolResult()
}

func (d Deps) questionParams(mode string, plan posting.Plan, recordID string) mcp.ElicitationParams {
	if mode == question.ModeURL {
		return question.URL(plan, recordID, d.confirmURL(recordID))
	}
	return question.Form(plan, recordID)
}

// askOnStream asks a client of protocol 2025-11-25 or earlier directly, with
// an elicitation request on the call's own stream (its answer may reach any
// node; the transport carries it to this one). A client that declared it can
// ask but then fails to leaves the question to the person in Mattermost.
func (d Deps) askOnStream(ctx context.Context, c *mattermost.Caller, rec confirm.Record, mode string) (*mcp.CallToolResult, error) {
	askCtx, cancel := context.WithTimeout(ctx, question.Lifetime)
	defer cancel()
	// One question at a time per session on this node: the person answers
	// them in turn, and mcp-go routes answers to one call of a session.
	err := transport.HoldQuestionSlot(askCtx)
	var res *mcp.ElicitationResult
	if err == nil {
		res, err = server.ServerFromContext(ctx).RequestElicitation(askCtx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  d.questionParams(mode, *rec.Plan, rec.ID),
		})
	}
	if err != nil {
		if ctx.Err() != nil {
			// The client went away; the question still waits in Mattermost.
			return d.pendingAnswer(rec), nil
		}
		d.MM.Log().Info("The MCP client could not ask the person; the question waits in Mattermost", "user_id", c.UserID(), "error", err.Error())
		if mode != question.ModeURL {
			c.NotifyPending(rec.ID, rec.Title)
		}
		return d.waitForAnswer(ctx, c, rec)
	}
	// The person may have answered in Mattermost meanwhile.
	rec, err = d.Confirm.Load(c.UserID(), rec.ID)
	if errors.Is(err, confirm.ErrNotFound) {
		return mcp.NewToolResultError("The question expired before the answer came back; nothing was sent. Ask again if the person still wants it."), nil
	}
	if err != nil {
		return nil, err
	}
	return d.settle(ctx, c, rec, mode, mcp.InputResponses{question.InputID: mcp.NewElicitationInputResponse(*res)}, "")
}

// resume finishes a call the client retried with the person's answer.
func (d Deps) resume(ctx context.Context, c *mattermost.Caller, call catalogue.Call) (*mcp.CallToolResult, error) {
	st, err := d.Questions.Verify(call.RoundTrip.RequestState, c.UserID(), call.Tool, call.Arguments)
	if errors.Is(err, question.ErrInvalidState) {
		return mcp.NewToolResultError(fmt.Sprintf("This answer cannot be used: its state was altered, belongs to another call or arguments, or is older than %d minutes. Nothing was sent. Call %s again, without requestState, to ask the person anew.",
			int(question.Lifetime.Minutes()), call.Tool)), nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := d.Confirm.Load(c.UserID(), st.RecordID)
	if errors.Is(err, confirm.ErrNotFound) {
		return mcp.NewToolResultError(fmt.Sprintf("The question expired before the answer came back; nothing was sent. Call %s again to ask anew.", call.Tool)), nil
	}
	if err != nil {
		return nil, err
	}
	return d.settle(ctx, c, rec, st.Mode, call.RoundTrip.InputResponses, call.RoundTrip.RequestState)
}

// settle carries out the person's answer to the question about rec. state
// is the multi-round-trip state to ask again with when the answer is
// missing ("" when the question was asked on the stream).
func (d Deps) settle(ctx context.Context, c *mattermost.Caller, rec confirm.Record, mode string, responses mcp.InputResponses, state string) (*mcp.CallToolResult, error) {
	if rec.State != confirm.StatePending {
		// Answered meanwhile, e.g. on the Mattermost page.
		return d.pendingAnswer(rec), nil
	}
	verdict := question.Read(responses, mode, rec.ID)
	if verdict == question.NoAnswer && state != "" {
		// The client came back without the answer: ask the same question
		// again rather than guess.
		return d.question(state, mode, *rec.Plan, rec.ID), nil
	}
	switch verdict {
	case question.NoAnswer, question.Declined, question.Cancelled:
		_, err := d.Confirm.Decline(c.UserID(), rec.ID)
		switch {
		case err == nil:
			// The person's Mattermost may list it; it is answered now.
			c.NotifyAnswered(rec.ID, confirm.StateDeclined)
		case !errors.Is(err, confirm.ErrDecided) && !errors.Is(err, confirm.ErrNotFound):
			return nil, err
		}
		res := structured("The person did not accept; nothing was uploaded, posted or changed. Do not try again unless the person asks you to.",
			PendingResult{ID: rec.ID, State: confirm.StateDeclined})
		res.IsError = true
		return res, nil
	}
	if mode == question.ModeURL {
		// The person went to the page; its answer decides.
		return d.waitForAnswer(ctx, c, rec)
	}
	done, err := d.Confirm.Accept(ctx, c.UserID(), rec.ID, d.ExecutePlan)
	switch {
	case err == nil:
		c.NotifyAnswered(rec.ID, done.State)
	case !errors.Is(err, confirm.ErrDecided):
		return nil, err
	}
	return d.pendingAnswer(done), nil
}
