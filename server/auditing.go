package main

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/adminpage"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// auditing is the audit trail as the plugin wires it: the store every node
// appends to, the record of who used MCP, and the recorder everyone who
// records is given (which also writes Mattermost's own audit log).
type auditing struct {
	store *audit.Store
	usage *audit.Usage
	trail *audit.Trail
}

func newAuditing(gw *mattermost.Gateway) *auditing {
	a := &auditing{store: audit.NewStore(gw.BytesKV()), usage: &audit.Usage{KV: gw.BytesKV()}}
	a.trail = audit.NewTrail(audit.Options{Store: a.store, Usage: a.usage, Sink: gw.LogAudit, Log: gw.Log()})
	return a
}

// register adds the trail's REST routes and the admin's page; limit counts
// a person's reads of their own entries against their rate of calls
// (transport.LimitRequest).
func (a *auditing) register(r *mux.Router, gw *mattermost.Gateway, manifestID string, retention func() int,
	limit func(w http.ResponseWriter, userID, route string) bool) {
	(&audit.Routes{Store: a.store, IsAdmin: gw.IsSystemAdmin, UserID: gw.UserIDByUsername, Limit: limit, Log: gw.Log()}).Register(r)
	(&adminpage.Routes{IsAdmin: gw.IsSystemAdmin, OAuth: gw.OAuthStatus, Trail: a.store, Usage: a.usage, Retention: retention,
		PluginURL: func() string { return gw.SiteURL() + "/plugins/" + manifestID }, Log: gw.Log()}).Register(r)
}

// sweep removes the days of the trail past the retention.
func (a *auditing) sweep(gw *mattermost.Gateway, retentionDays int) {
	removed, err := a.store.Sweep(time.Now(), retentionDays)
	if err != nil {
		gw.Log().Error("The audit trail's sweep did not finish; the next one retries", "removed_days", removed, "error", err.Error())
		return
	}
	if removed > 0 {
		gw.Log().Info("Audit trail sweep", "removed_days", removed, "retention_days", retentionDays)
	}
}

// fileGiven records the outcome of a person's upload on a file request's
// page (ids and a short reason, never the file's name or bytes), and tells a
// client that showed the page that its question is over (on its stream,
// wherever it is open: the asking call may have returned already).
func fileGiven(trail audit.Recorder, notify func(userID, session, method string, params map[string]any) bool) func(context.Context, filerequest.Request, error) {
	return func(_ context.Context, req filerequest.Request, err error) {
		if err == nil && req.Shown && req.Session != "" && notify != nil {
			notify(req.UserID, req.Session, "notifications/elicitation/complete", map[string]any{"elicitationId": req.ID})
		}
		if trail == nil {
			return
		}
		e := audit.Event{Kind: audit.KindFileRequest, UserID: req.UserID, ClientName: req.Client, Tool: "request_file",
			Targets: map[string]string{"file_request_id": req.ID}, Outcome: audit.OutcomeDone}
		if req.File != nil {
			e.Targets["handle_id"] = req.File.HandleID
		}
		if err != nil {
			e.Outcome, e.Reason = audit.OutcomeRefused, filerequest.Reason(err)
		}
		trail.Record(e)
	}
}
