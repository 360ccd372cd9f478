package filerequest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
)

// The drop URL: where the upload view (ui://mattermost/upload) sends the
// person's file from the MCP client's chat. A host runs the view in a
// sandboxed frame of its own origin (often "null"), which has no
// Mattermost session and must not get one, so here the URL is the whole
// credential: it names the person and the request, and holds the
// request's secret. It takes a PUT of the raw file (name in X-File-Name,
// percent-encoded; its size in X-File-Size, or at least Content-Length)
// from any origin, answers CORS with "*" and never with
// credentials, and refuses a request that shows it was sent with a
// Mattermost credential (see carriesCredential): nothing here acts as
// whoever a cookie or token names. It takes a file only while its person
// may use MCP at all (Routes.Admits): the URL outlives neither their
// account nor the admin's leave. It takes one file, while the request
// waits; a refused attempt stores nothing and may be tried again.
const DropPath = "/drop"

const dropRoute = DropPath + "/{user:[a-z0-9]{26}}/{id:[0-9a-f]{32}}/{key:[0-9a-f]{64}}"

// dropMaxAge is how long a browser may reuse the drop URL's preflight: as
// long as a request lives.
const dropMaxAge = Lifetime

// DropURL is req's drop URL under the plugin's URL, or "" for a request
// read back from the store, which keeps only the key's hash: the URL is
// told once, in the answer that created the request.
func DropURL(pluginURL string, req Request) string {
	if req.DropKey == "" {
		return ""
	}
	return pluginURL + DropPath + "/" + req.UserID + "/" + req.ID + "/" + req.DropKey
}

// IsDrop reports whether r is for a drop URL, which answers any origin
// (the router's Origin rule leaves it alone).
func IsDrop(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, DropPath+"/")
}

func (rt *Routes) drop(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "Retry-After")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "PUT, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, X-File-Name, X-File-Size")
		h.Set("Access-Control-Max-Age", strconv.Itoa(int(dropMaxAge/time.Second)))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if carriesCredential(r) {
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: "The drop URL is its own credential: send the file without cookies or an Authorization header (credentials: \"omit\"); nothing was stored."})
		return
	}
	v := mux.Vars(r)
	req, err := rt.Store.Load(v["user"], v["id"])
	if err == nil && !req.DropKeyOpens(v["key"]) {
		err = ErrNotFound
	}
	if err != nil {
		rt.refuse(w, r, err)
		return
	}
	// Only once the key opened the request: a made-up URL is not found
	// whoever it names, so it tells nothing of their account.
	if !rt.admitted(w, r, req) {
		return
	}
	rt.take(w, r, req)
}

// carriesCredential is a request that shows it was sent with a Mattermost
// credential. Mattermost's plugin bridge deletes the MMAUTHTOKEN cookie and
// the access_token parameter before a plugin sees a request, and the
// Authorization header once it named a valid session (9.11 and 11.4; 11.1
// always): a token that reaches the plugin names no one, so it is not
// checked. What the bridge leaves to see a credential by is
// Mattermost-User-Id, which it sets (deleting the client's) only for a
// valid session, and the MMUSERID and MMCSRF cookies, which it passes on
// and which a browser sends beside MMAUTHTOKEN: a page that sent its
// session. Neither names who the file is for (the URL does); refusing them
// keeps the URL the only credential, and tells the sender to omit
// credentials, which also spares Mattermost reading a PUT with the session
// cookie and no CSRF header whole into memory for its CSRF check.
func carriesCredential(r *http.Request) bool {
	if r.Header.Get("Mattermost-User-Id") != "" {
		return true
	}
	for _, name := range []string{"MMUSERID", "MMCSRF"} {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}

// errNotAdmitted refuses a file sent to the drop URL of a person who may
// no longer use MCP: their account is deactivated or gone, or the admin's
// rule no longer admits them. reason is the audit's code (admission's).
type errNotAdmitted struct{ reason, message string }

func (e errNotAdmitted) Error() string { return e.message }

// deactivatedText is what a drop URL of a deactivated account answers.
const deactivatedText = "This file request's Mattermost account is deactivated, so its drop URL takes no files; nothing was stored. Once a Mattermost admin reactivates the account, send the file again."

// withheldText is what a file for a request answers once the admin has
// turned off what asked for it.
const withheldText = "The admin has turned off asking for files (request_file) on this Mattermost, so this request takes no files now; nothing was stored. The file can be shared in Mattermost directly instead."

// admitted reports whether req's person may still receive files at the
// drop URL or the page, asked on every request as the MCP endpoint asks
// (Admits), and whether the admin still offers what asked for the file
// (Withheld). A
// refusal is answered 403, recorded as the drop URL's other outcomes are
// (Received), and keeps nothing; the request waits on, so the file is
// taken once the person may use MCP again.
func (rt *Routes) admitted(w http.ResponseWriter, r *http.Request, req Request) bool {
	v, err := rt.Admits(req.UserID)
	if err != nil {
		rt.Log.Error("Could not look up whether a drop URL's person may receive files", "user_id", req.UserID, "error", err.Error())
		rt.answer(w, http.StatusServiceUnavailable, Outcome{Message: "Mattermost could not look up whether this file request's account may receive files; nothing was stored. Send the file again shortly."})
		return false
	}
	var refusal errNotAdmitted
	switch {
	case !v.Allowed && v.Reason == admission.ReasonDeactivated:
		refusal = errNotAdmitted{reason: v.Reason, message: deactivatedText}
	case !v.Allowed:
		refusal = errNotAdmitted{reason: v.Reason, message: v.Message + " Nothing was stored."}
	case rt.Withheld != nil && rt.Withheld() != "":
		// The admin's settings reach this path as they reach the tool
		// that asked for the file (package paths).
		refusal = errNotAdmitted{reason: "not_offered", message: withheldText}
	default:
		return true
	}
	rt.Received(r.Context(), req, refusal)
	rt.answer(w, http.StatusForbidden, Outcome{Message: refusal.message})
	return false
}
