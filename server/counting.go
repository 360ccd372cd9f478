package main

import (
	"encoding/json"
	"net/http"
	"os"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// countCallsEnv, set to 1 in Mattermost's environment (the e2e harness sets
// it), has the plugin count every plugin API and database driver call it
// makes and serve the counts at CountsPath: the e2e test of round trips per
// tool (docs/performance.md) and fastbench read them. The shipped plugin
// counts nothing.
const countCallsEnv = "MCP_PLUGIN_COUNT_CALLS"

// CountsPath, under the plugin's path, answers a signed-in person with the
// counts so far as a JSON object of method name to calls (see
// mattermost.Counts).
const CountsPath = "/debug/round-trips"

// countCalls wraps the plugin API and the driver in counters once, before
// anything else of the plugin uses them, when Mattermost's environment
// asks.
func (p *Plugin) countCalls() {
	if p.counts != nil || os.Getenv(countCallsEnv) != "1" {
		return
	}
	p.API, p.Driver, p.counts = mattermost.Counted(p.API, p.Driver)
}

// registerCounts adds CountsPath to the routes where the plugin counts;
// elsewhere the path is not found.
func (p *Plugin) registerCounts(r *mux.Router) {
	if p.counts != nil {
		r.HandleFunc(CountsPath, p.serveCounts).Methods(http.MethodGet)
	}
}

// serveCounts answers a signed-in person with the counts so far.
func (p *Plugin) serveCounts(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mattermost-User-Id") == "" {
		http.Error(w, "Sign in to Mattermost to read the plugin's counts of round trips.", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(p.counts.Snapshot()); err != nil {
		p.API.LogDebug("The counts of round trips could not be sent; the client went away", "error", err.Error())
	}
}
