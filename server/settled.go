package main

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
)

// writeSettled hears of every write that reached its end, on the node where
// it did (approval.Options.Settled). A client still showing the url-mode
// question about it, its call long returned, is told the question is over
// (notifications/elicitation/complete, as MCP 2025-11-25 says a server
// should), on whichever node its session's stream is open; a call that
// still waits tells its own client itself.
func (p *Plugin) writeSettled(rec approval.Record) {
	session, elicitationID, ok := rec.OpenQuestion()
	if !ok {
		return
	}
	t := p.transport.Load()
	if t == nil {
		return
	}
	n := mcp.NewElicitationCompleteNotification(elicitationID)
	t.NotifySession(rec.UserID, session, n.Method, n.Params.AdditionalFields)
}
