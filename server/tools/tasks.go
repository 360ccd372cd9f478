package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tasks"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// TaskWrites are the pending writes as tasks follow them (tasks.Writes):
// a task's result is worded exactly as the call that asked would have
// answered it, from the same outcome.
type TaskWrites struct {
	Approvals *approval.Approvals
	// Replies follows a wait for a reply (Deps.FollowReply).
	Replies func(ctx context.Context, userID string, wait transport.ReplyWait) (tasks.Write, error)
	// Files follows the person's file requests (request_file), named
	// among the writes' ids with fileTaskPrefix.
	Files *Deps
}

// fileTaskPrefix marks a file request among the ids of what tasks follow.
const fileTaskPrefix = "file:"

// fileTask is the file request a task's id names, if it names one.
func (w TaskWrites) fileTask(writeID string) (string, bool) {
	id, ok := strings.CutPrefix(writeID, fileTaskPrefix)
	return id, ok && w.Files != nil
}

var _ tasks.Writes = TaskWrites{}

// expiredUnanswered is a write gone from the store while it waited, worded
// as a waiting call words it.
const expiredUnanswered = "The question expired without an answer; nothing was sent."

// Follow is where the person's write stands.
func (w TaskWrites) Follow(_ context.Context, userID, _ string, writeID string) (tasks.Write, error) {
	if id, ok := w.fileTask(writeID); ok {
		return w.Files.followFile(userID, id)
	}
	o, err := w.Approvals.Follow(userID, writeID)
	if errors.Is(err, approval.ErrNotFound) {
		res, _ := notDone(expiredUnanswered, WriteResult{ID: writeID, State: "expired"})
		return tasks.Write{State: tasks.Done, Result: res.ToolResult()}, nil
	}
	if err != nil {
		return tasks.Write{}, err
	}
	switch o.Record.State {
	case approval.StatePending:
		q := w.Approvals.PageQuestion(o)
		return tasks.Write{State: tasks.Waiting, Question: &q, Message: fmt.Sprintf(
			"Waiting for the person to accept or decline in Mattermost, at %s or from the bot's direct message; nothing is sent until they do. It expires at %s.",
			o.PageURL, o.Record.ExpiresAt().UTC().Format(time.TimeOnly+" UTC"))}, nil
	case approval.StateExecuting:
		return tasks.Write{State: tasks.Working, Message: "The person accepted; it is being done now."}, nil
	}
	res, err := outcomeAnswer(o, nil, nil)
	if err != nil {
		return tasks.Write{}, err
	}
	state := tasks.Done
	if o.Record.State == approval.StateWithdrawn {
		state = tasks.Withdrawn
	}
	return tasks.Write{State: state, Result: res.ToolResult()}, nil
}

// FollowReply is where a wait for a reply stands (wait_for_reply's task).
func (w TaskWrites) FollowReply(ctx context.Context, userID string, wait transport.ReplyWait) (tasks.Write, error) {
	if w.Replies == nil {
		return tasks.Write{}, errors.New("replies are not followed here")
	}
	return w.Replies(ctx, userID, wait)
}

// Withdraw takes back the write of a cancelled task; one answered or
// expired first stays as it is.
func (w TaskWrites) Withdraw(ctx context.Context, userID, writeID string) error {
	if id, ok := w.fileTask(writeID); ok {
		return w.Files.endFileRequest(ctx, userID, id, audit.OutcomeWithdrawn)
	}
	_, err := w.Approvals.WithdrawTask(userID, writeID)
	if errors.Is(err, approval.ErrDecided) || errors.Is(err, approval.ErrNotFound) {
		return nil
	}
	return err
}

// Decline declines the write for a client that declined to show its page.
func (w TaskWrites) Decline(ctx context.Context, userID, writeID string) error {
	if id, ok := w.fileTask(writeID); ok {
		return w.Files.endFileRequest(ctx, userID, id, audit.OutcomeDeclined)
	}
	_, err := w.Approvals.DeclineTask(userID, writeID)
	if errors.Is(err, approval.ErrNotFound) {
		return nil
	}
	return err
}
