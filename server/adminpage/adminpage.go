// Package adminpage is what a system admin sees of MCP on this Mattermost:
// whether OAuth sign-in works and what to turn on if not, how many people
// used MCP lately and with which clients, and the writes per day by outcome
// from the audit trail. One page, server-rendered in the site's look, and
// the same facts as JSON for scripts.
package adminpage

import (
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
)

const (
	// Path is the page; StatusPath its JSON.
	Path       = "/admin"
	StatusPath = "/api/v1/admin/status"
	// usageDays is how far back "people who used MCP" looks.
	usageDays = 7
	// The writes per day cover the last week by default, or a month.
	defaultWriteDays = 7
	maxWriteDays     = 30
)

// Routes serve the page and its JSON.
type Routes struct {
	IsAdmin func(userID string) bool
	OAuth   func() mattermost.OAuthStatus
	Trail   *audit.Store
	Usage   *audit.Usage
	// Retention is the admin's AuditRetentionDays now; PluginURL the
	// plugin's public URL (the MCP endpoint and the routes hang off it).
	Retention func() int
	PluginURL func() string
	Log       interface {
		Error(msg string, keyValuePairs ...any)
	}
	Now func() time.Time
}

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(Path, rt.page).Methods(http.MethodGet)
	r.HandleFunc(StatusPath, rt.status).Methods(http.MethodGet)
}

// Status is everything the page shows.
type Status struct {
	MCPURL string  `json:"mcp_url"`
	OAuth  OAuth   `json:"oauth"`
	Usage  Usage   `json:"usage"`
	Writes []Day   `json:"writes"`
	Audit  Trail   `json:"audit"`
	Asof   string  `json:"as_of"`
	Totals []Total `json:"write_totals"`
}

// OAuth is whether MCP clients can sign in with Mattermost's OAuth, and
// where each setting it needs is in the System Console.
type OAuth struct {
	mattermost.OAuthStatus
	Steps []Step `json:"steps"`
}

// Step is one setting sign-in rests on: on or not, and where to change it.
type Step struct {
	Setting string `json:"setting"`
	On      bool   `json:"on"`
	Value   string `json:"value,omitempty"`
	Where   string `json:"where"`
}

// Usage is who used MCP over the last days.
type Usage = audit.UsageSummary

// Day is one day's writes by outcome.
type Day struct {
	Day      string         `json:"day"`
	Outcomes map[string]int `json:"outcomes"`
	// Dropped entries went past the day's cap: counted here, kept only in
	// Mattermost's audit log and the server log.
	Dropped int `json:"dropped,omitempty"`
}

// Total is one outcome over the days shown.
type Total struct {
	Outcome string `json:"outcome"`
	Count   int    `json:"count"`
}

// Trail is what the audit trail keeps.
type Trail struct {
	RetentionDays int    `json:"retention_days"`
	API           string `json:"api"`
}

const (
	signInText = "Sign in to Mattermost as a system admin to see this page."
	notAdmin   = "Only a system admin can see the MCP Server's status."
)

func (rt *Routes) allowed(w http.ResponseWriter, r *http.Request, html bool) bool {
	userID := r.Header.Get("Mattermost-User-Id")
	code, line := 0, ""
	switch {
	case userID == "":
		code, line = http.StatusUnauthorized, signInText
	case !rt.IsAdmin(userID):
		code, line = http.StatusForbidden, notAdmin
	default:
		return true
	}
	if html {
		response.SecurePage(w)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(line + "\n"))
		return false
	}
	response.JSON(w, code, map[string]string{"error": line})
	return false
}

func (rt *Routes) status(w http.ResponseWriter, r *http.Request) {
	if !rt.allowed(w, r, false) {
		return
	}
	s, err := rt.read(r)
	if err != nil {
		rt.Log.Error("Reading the MCP status for the admin failed", "error", err.Error())
		response.JSON(w, http.StatusInternalServerError, map[string]string{"error": "The status could not be read; try again shortly."})
		return
	}
	response.JSON(w, http.StatusOK, s)
}

// writeDays is the days=7|30 of the request.
func writeDays(r *http.Request) int {
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && n == maxWriteDays {
		return maxWriteDays
	}
	return defaultWriteDays
}

func (rt *Routes) read(r *http.Request) (Status, error) {
	now := time.Now()
	if rt.Now != nil {
		now = rt.Now()
	}
	s := Status{MCPURL: rt.PluginURL() + "/mcp", OAuth: oauthSteps(rt.OAuth()), Asof: now.UTC().Format(time.RFC3339),
		Audit: Trail{RetentionDays: rt.Retention(), API: rt.PluginURL() + audit.APIPath}}
	var err error
	if s.Usage, err = rt.Usage.Summary(now, usageDays); err != nil {
		return Status{}, err
	}
	days := writeDays(r)
	sum, err := rt.Trail.Summary(now.AddDate(0, 0, -(days-1)), now)
	if err != nil {
		return Status{}, err
	}
	totals := map[string]int{}
	for i := len(sum) - 1; i >= 0; i-- {
		d := Day{Day: sum[i].Day, Outcomes: map[string]int{}, Dropped: sum[i].Dropped}
		for _, o := range audit.Outcomes {
			if n := sum[i].Counts[string(audit.KindWrite)+"/"+o]; n > 0 {
				d.Outcomes[o] = n
				totals[o] += n
			}
		}
		s.Writes = append(s.Writes, d)
	}
	for _, o := range audit.Outcomes {
		if totals[o] > 0 {
			s.Totals = append(s.Totals, Total{Outcome: o, Count: totals[o]})
		}
	}
	sort.SliceStable(s.Totals, func(i, j int) bool { return s.Totals[i].Count > s.Totals[j].Count })
	return s, nil
}

// oauthSteps are the settings OAuth sign-in for MCP clients rests on, in
// the order an admin turns them on.
func oauthSteps(st mattermost.OAuthStatus) OAuth {
	return OAuth{OAuthStatus: st, Steps: []Step{
		{Setting: "Site URL", On: st.SiteURL != "", Value: st.SiteURL, Where: "System Console > Environment > Web Server > Site URL"},
		{Setting: "OAuth 2.0 Service Provider", On: st.Provider, Where: "System Console > Integrations > Integration Management > Enable OAuth 2.0 Service Provider"},
		{Setting: "Dynamic Client Registration", On: st.DynamicRegistration, Where: "System Console > Integrations > Integration Management > Enable Dynamic Client Registration (Mattermost 11.4 and later)"},
	}}
}
