package audit

import (
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
)

// The REST routes of the trail, under the plugin's route. A system admin
// reads everyone's entries with any Mattermost credential (a personal access
// token too, so it can be scripted); a person reads their own.
const (
	APIPath  = "/api/v1/audit"
	MinePath = APIPath + "/mine"
)

// Routes serve the trail.
type Routes struct {
	Store *Store
	// IsAdmin answers whether the user may manage the system.
	IsAdmin func(userID string) bool
	// UserID resolves a username to the user's id ("" and no error: there
	// is no such user).
	UserID func(username string) (string, error)
	// Limit counts a request of a person for their own entries against the
	// person's rate of calls (transport.LimitRequest); over it, it answers
	// 429 with Retry-After and reports false. nil: no limit.
	Limit func(w http.ResponseWriter, userID, route string) bool
	Log   Logger
}

// mineRoute names /mine in the rate's log lines.
const mineRoute = "audit_mine"

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(APIPath, rt.all).Methods(http.MethodGet)
	r.HandleFunc(MinePath, rt.mine).Methods(http.MethodGet)
}

const (
	signInText  = "Sign in to Mattermost (a session or a personal access token) to read the audit trail."
	notAdmin    = "Only a system admin can read everyone's audit entries; your own are at " + MinePath + "."
	readFailure = "The audit trail could not be read; try again shortly."
)

func (rt *Routes) all(w http.ResponseWriter, r *http.Request) {
	userID := r.Header.Get("Mattermost-User-Id")
	if userID == "" {
		writeError(w, http.StatusUnauthorized, signInText)
		return
	}
	if !rt.IsAdmin(userID) {
		writeError(w, http.StatusForbidden, notAdmin)
		return
	}
	rt.serve(w, r, "", true)
}

func (rt *Routes) mine(w http.ResponseWriter, r *http.Request) {
	userID := r.Header.Get("Mattermost-User-Id")
	if userID == "" {
		writeError(w, http.StatusUnauthorized, signInText)
		return
	}
	if rt.Limit != nil && !rt.Limit(w, userID, mineRoute) {
		return
	}
	rt.serve(w, r, userID, false)
}

// serve answers one page; owner, when set, is the only person whose
// entries are read (and the filter user is not taken).
func (rt *Routes) serve(w http.ResponseWriter, r *http.Request, owner string, byUser bool) {
	q := r.URL.Query()
	f, format, err := rt.parse(q, byUser)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if owner != "" {
		f.UserID = owner
	}
	page, err := rt.Store.Query(f)
	if errors.Is(err, errBadFilter) {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		rt.Log.Error("Reading the audit trail failed", "error", err.Error())
		writeError(w, http.StatusInternalServerError, readFailure)
		return
	}
	if format == "csv" {
		writeCSV(w, page)
		return
	}
	response.JSON(w, http.StatusOK, page)
}

var toolName = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// Kinds and Outcomes are every kind and outcome an entry may have, for
// filters and their refusals.
var (
	Kinds    = []Kind{KindWrite, KindOwnView, KindPresignedURL, KindUploadHandle, KindFileRequest, KindChatFile, KindSignIn, KindConnection}
	Outcomes = []string{OutcomeAsked, OutcomeAccepted, OutcomeDeclined, OutcomeExpired, OutcomeFailed, OutcomeWithdrawn, OutcomeDone, OutcomeRefused, OutcomeIssued}
)

// parse reads the filters; each bad value is refused naming the form it
// must take.
func (rt *Routes) parse(q url.Values, byUser bool) (Filter, string, error) {
	var f Filter
	allowed := []string{"tool", "outcome", "kind", "since", "until", "page", "per_page", "format"}
	if byUser {
		allowed = append(allowed, "user")
	}
	for k := range q {
		if !slices.Contains(allowed, k) {
			sort.Strings(allowed)
			return f, "", fmt.Errorf("unknown filter %q; the filters are %s", k, strings.Join(allowed, ", "))
		}
	}
	if u := q.Get("user"); u != "" {
		id, err := rt.user(u)
		if err != nil {
			return f, "", err
		}
		f.UserID = id
	}
	if t := q.Get("tool"); t != "" {
		if !toolName.MatchString(t) {
			return f, "", errors.New("tool must be a tool's name, such as create_post (lowercase letters, digits and _)")
		}
		f.Tool = t
	}
	if o := q.Get("outcome"); o != "" {
		if !slices.Contains(Outcomes, o) {
			return f, "", fmt.Errorf("outcome must be one of %s", strings.Join(Outcomes, ", "))
		}
		f.Outcome = o
	}
	if k := q.Get("kind"); k != "" {
		if !slices.Contains(Kinds, Kind(k)) {
			names := make([]string, len(Kinds))
			for i, k := range Kinds {
				names[i] = string(k)
			}
			return f, "", fmt.Errorf("kind must be one of %s", strings.Join(names, ", "))
		}
		f.Kind = Kind(k)
	}
	var err error
	if f.Since, err = parseTime("since", q.Get("since")); err != nil {
		return f, "", err
	}
	if f.Until, err = parseTime("until", q.Get("until")); err != nil {
		return f, "", err
	}
	if f.Page, err = parseInt("page", q.Get("page"), 0, MaxPage, 0); err != nil {
		return f, "", err
	}
	if f.PerPage, err = parseInt("per_page", q.Get("per_page"), 1, MaxPerPage, DefaultPerPage); err != nil {
		return f, "", err
	}
	format := q.Get("format")
	switch format {
	case "", "json":
		format = "json"
	case "csv":
	default:
		return f, "", errors.New("format must be json (the default) or csv")
	}
	return f, format, nil
}

var userIDForm = regexp.MustCompile(`^[a-z0-9]{26}$`)

func (rt *Routes) user(u string) (string, error) {
	if userIDForm.MatchString(u) {
		return u, nil
	}
	name := strings.TrimPrefix(u, "@")
	if len(name) > 64 {
		return "", errors.New("user must be a user id (26 characters) or a username")
	}
	id, err := rt.UserID(name)
	if err != nil {
		return "", fmt.Errorf("the user %q could not be looked up; give their user id (26 characters) instead", name)
	}
	if id == "" {
		return "", fmt.Errorf("there is no user named %q; give a username or a user id (26 characters)", name)
	}
	return id, nil
}

// parseTime reads a time as RFC 3339 or as Unix milliseconds.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 && ms < 1<<53 {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s must be a time in RFC 3339 (2026-01-31T09:00:00Z) or Unix milliseconds (1769850000000)", name)
	}
	return t.UTC(), nil
}

func parseInt(name, v string, lo, hi, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be a whole number from %d to %d", name, lo, hi)
	}
	return n, nil
}

func writeError(w http.ResponseWriter, code int, line string) {
	response.JSON(w, code, map[string]string{"error": line})
}

// csvHeader names the CSV columns; targets are "key=id" pairs joined by
// spaces, sorted by key.
var csvHeader = []string{"at", "kind", "user_id", "client_name", "client_version", "tool", "outcome", "reason", "targets"}

func writeCSV(w http.ResponseWriter, page Page) {
	response.SecureData(w)
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="mcp-audit.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, ev := range page.Entries {
		_ = cw.Write(csvRow(ev))
	}
	cw.Flush()
}

func csvRow(ev Event) []string {
	keys := make([]string, 0, len(ev.Targets))
	for k := range ev.Targets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + "=" + ev.Targets[k]
	}
	row := []string{ev.At.UTC().Format(time.RFC3339Nano), string(ev.Kind), ev.UserID, ev.ClientName, ev.ClientVersion, ev.Tool, ev.Outcome, ev.Reason, strings.Join(pairs, " ")}
	for i, cell := range row {
		row[i] = CSVCell(cell)
	}
	return row
}

// CSVCell is a cell a spreadsheet reads as text: one that starts like a
// formula (= + - @, or a tab or carriage return that some strip first) gets
// a leading apostrophe. A client's name is the client's to choose.
func CSVCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
