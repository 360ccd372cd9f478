package main

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/adminpage"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
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
