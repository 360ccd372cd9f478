package approval

import (
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
)

// A write asked in a call the client handles as a task (transport.TaskOf)
// waits in Mattermost, and the call answers at once: the client's host
// follows the task, whose state is the pending record's, on any node. What
// the task needs of the record is here: where it stands, its withdrawal
// (tasks/cancel) and a client's no to the page it was shown.

// Follow is where the person's write id stands, for the task that follows
// it: ErrNotFound once the write expired unanswered (or its outcome aged
// out).
func (a *Approvals) Follow(userID, id string) (Outcome, error) {
	rec, err := a.store.Load(userID, id)
	if err != nil {
		return Outcome{}, err
	}
	return a.outcome(rec), nil
}

// PageQuestion is the url-mode question that shows the person the page
// of the pending write o, as a task's input request.
func (a *Approvals) PageQuestion(o Outcome) mcp.ElicitationParams {
	return urlQuestion(o.Plan, o.Record.ID, o.PageURL)
}

// WithdrawTask withdraws the person's pending write id whose task the
// client cancelled: the page, the modal and the direct message say the
// assistant withdrew it. A write answered first stays as it is
// (ErrDecided, with its outcome).
func (a *Approvals) WithdrawTask(userID, id string) (Outcome, error) {
	done, err := a.store.Withdraw(userID, id)
	if err != nil {
		return a.outcome(done), err
	}
	a.opts.MM.Log().Info("The MCP client cancelled the task of a write waiting for the person; the write was withdrawn", "user_id", userID, "id", id)
	a.settled(a.opts.MM.As(userID), done)
	return a.outcome(done), nil
}

// DeclineTask declines the person's pending write id for a client that
// answered no (declined or dismissed) to the page its task showed: as for
// a call's url question, the person chose not to go there.
func (a *Approvals) DeclineTask(userID, id string) (Outcome, error) {
	done, err := a.store.Decline(userID, id)
	if errors.Is(err, ErrDecided) {
		return a.outcome(done), nil
	}
	if err != nil {
		return Outcome{}, err
	}
	a.settled(a.opts.MM.As(userID), done)
	return a.outcome(done), nil
}
