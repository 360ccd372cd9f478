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
)

// Asking through the client is a multi-round-trip exchange: the first call
// stores the checked post as a pending record and answers input_required
// with the question and a signed state; the client asks the person and calls
// again with the answer and the state, on whatever node. Clients of protocol
// versions before 2026-07-28 get the same exchange from mcp-go as an
// elicitation request on the call's stream; the transport carries their
// answer to the node that waits for it.

// askInClient stores the plan and asks the client to put the question.
func (d Deps) askInClient(ctx context.Context, c *mattermost.Caller, plan posting.Plan, mode string) (*mcp.CallToolResult, error) {
	title := pendingTitle(plan)
	rec, err := d.Confirm.Create(c.UserID(), title, plan)
	if err != nil {
		return nil, err
	}
	if mode == question.ModeURL {
		// The question is Mattermost's own page: the person's open
		// Mattermost shows it too.
		c.NotifyPending([]map[string]any{{"id": rec.ID, "title": title}})
	}
	call := catalogue.CallOf(ctx)
	state, err := d.Questions.Sign(question.State{UserID: c.UserID(), Tool: call.Tool, Arguments: call.Arguments, RecordID: rec.ID, Mode: mode})
	if err != nil {
		return nil, err
	}
	return d.question(state, mode, plan, rec.ID), nil
}

func (d Deps) question(state, mode string, plan posting.Plan, recordID string) *mcp.CallToolResult {
	params := question.Form(plan, recordID)
	if mode == question.ModeURL {
		params = question.URL(plan, recordID, d.confirmURL(recordID))
	}
	return server.NewInputRequestBuilder(state).Elicit(question.InputID, params).ToolResult()
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
	if rec.State != confirm.StatePending {
		// Answered meanwhile, e.g. on the Mattermost page.
		return d.pendingAnswer(rec), nil
	}
	switch question.Read(call.RoundTrip.InputResponses, st.Mode, st.RecordID) {
	case question.NoAnswer:
		// The client came back without the answer: ask the same question
		// again rather than guess.
		return d.question(call.RoundTrip.RequestState, st.Mode, *rec.Plan, rec.ID), nil
	case question.Declined, question.Cancelled:
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
	if st.Mode == question.ModeURL {
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
