package main

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
)

// writeSettled hears of every write that reached its end, on the node where
// it did (approval.Options.Settled). A client still showing the url-mode
// question about it, its call long returned, is told the question is over
// (notifications/elicitation/complete, as MCP 2025-11-25 says a server
// should), on whichever node its session's stream is open; a call that
// still waits tells its own client itself.
//
// A write followed as a task tells its session's client the task's new
// status (notifications/tasks/status, protocol 2025-11-25; a client of
// 2026-07-28 polls tasks/get, since mcp-go's subscriptions/listen carries
// no task notices).
func (p *Plugin) writeSettled(rec approval.Record) {
	t := p.transport.Load()
	if t == nil {
		return
	}
	if session, elicitationID, ok := rec.OpenQuestion(); ok {
		n := mcp.NewElicitationCompleteNotification(elicitationID)
		t.NotifySession(rec.UserID, session, n.Method, n.Params.AdditionalFields)
	}
	followed := p.tasks.Load()
	if followed == nil || rec.Task == "" {
		return
	}
	if rec.MCPSession != "" {
		status, err := followed.Status(context.Background(), rec.UserID, rec.Task)
		if err != nil {
			p.gateway.Load().Log().Debug("The status of a task whose write ended could not be read", "task_id", rec.Task, "error", err.Error())
			return
		}
		t.NotifySession(rec.UserID, rec.MCPSession, string(mcp.MethodNotificationTasksStatus), status)
	}
	if stream, task, err := followed.ListenNotice(context.Background(), rec.UserID, rec.Task); err == nil && stream != "" {
		t.NotifySession(rec.UserID, stream, "notifications/tasks", task)
	}
}
