package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// The plugin's scheduled jobs. Each runs on one node of the cluster at a
// time (gw.Schedule), so a cluster sweeps once, not once per node.

// sweepInterval is how often the cluster looks for expired workspace files.
// Between sweeps an expired file is already invisible (every read checks its
// age), so this only bounds how long its bytes linger in the database.
const sweepInterval = 15 * time.Minute

// dmExpiryInterval is how soon after a write expires unanswered its direct
// message says so.
const dmExpiryInterval = time.Minute

// scheduleJobs starts the workspace sweep and the expiry of the direct
// messages about waiting writes; OnDeactivate closes what it returns.
func scheduleJobs(gw *mattermost.Gateway, ws *workspace.Store, approvals *approval.Approvals) ([]io.Closer, error) {
	sweep, err := gw.Schedule("workspace_sweep", sweepInterval, func() { sweepWorkspaces(gw, ws) })
	if err != nil {
		return nil, fmt.Errorf("the workspace sweep could not be scheduled: %w", err)
	}
	expiry, err := gw.Schedule("pending_dm_expiry", dmExpiryInterval, func() { expireDMs(gw, approvals) })
	if err != nil {
		_ = sweep.Close()
		return nil, fmt.Errorf("the expiry of direct messages could not be scheduled: %w", err)
	}
	return []io.Closer{sweep, expiry}, nil
}

// sweepWorkspaces deletes the workspace files past their retention.
func sweepWorkspaces(gw *mattermost.Gateway, ws *workspace.Store) {
	removed, err := ws.Sweep(time.Now())
	if err != nil {
		gw.Log().Error("The workspace sweep did not finish; the next one retries", "removed", removed, "error", err.Error())
		return
	}
	gw.Log().Info("Workspace sweep", "removed", removed)
}

// expireDMs edits the direct messages of writes that expired unanswered.
func expireDMs(gw *mattermost.Gateway, approvals *approval.Approvals) {
	n, err := approvals.ExpireDMs(time.Now())
	if err != nil {
		gw.Log().Warn("Marking the direct messages of expired writes did not finish; the next run retries", "marked", n, "error", err.Error())
	}
}

// auditSweepInterval is how often the cluster removes the days of the audit
// trail past the admin's retention: the retention counts whole days.
const auditSweepInterval = 24 * time.Hour

// auditExpiryInterval is how soon after a write expires unanswered the
// audit trail says so.
const auditExpiryInterval = time.Minute

// scheduleAuditJobs starts the audit trail's daily sweep (it runs at once on
// a cluster's first activation) and the recording of writes that expired
// unanswered.
func scheduleAuditJobs(gw *mattermost.Gateway, a *auditing, approvals *approval.Approvals, retention func() int) ([]io.Closer, error) {
	sweep, err := gw.Schedule("audit_sweep", auditSweepInterval, func() { a.sweep(gw, retention()) })
	if err != nil {
		return nil, fmt.Errorf("the audit trail's sweep could not be scheduled: %w", err)
	}
	expiry, err := gw.Schedule("audit_write_expiry", auditExpiryInterval, func() {
		if _, err := approvals.ExpireWrites(time.Now()); err != nil {
			gw.Log().Warn("Recording the writes that expired unanswered did not finish; the next run retries", "error", err.Error())
		}
	})
	if err != nil {
		_ = sweep.Close()
		return nil, fmt.Errorf("the audit of expired writes could not be scheduled: %w", err)
	}
	return []io.Closer{sweep, expiry}, nil
}

// closeAll closes what was started before a later step failed.
func closeAll(cs []io.Closer) error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
