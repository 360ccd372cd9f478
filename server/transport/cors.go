package transport

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CORS: a page at an origin that passes (originPasses) may read every
// answer of every route, whatever Mattermost's own *Enable cross-origin
// requests from* says. Mattermost's plugin bridge sends a plugin's answer
// with exactly the headers the plugin's writer holds when it writes: its
// own CORS headers (set only when that setting was on at start) survive
// only where a handler happened to touch the headers, so a 202 or a
// DELETE's 200 went without them and the browser hid the answer. The
// headers are set here, before any handler writes, with Set: a value
// Mattermost put there is replaced, never repeated (browsers refuse two).
//
// No Access-Control-Allow-Credentials: a browser MCP client signs in with
// a bearer token in Authorization, which CORS needs no credentials for;
// allowing them would let a listed page send the person's Mattermost cookie
// instead, a sign-in the person never gave that page. An admin who wants
// that sets it in Mattermost's own CORS settings, which this leaves alone.

const (
	// preflightMaxAge is how long a browser may reuse a preflight's answer:
	// Chromium's cap. It decides nothing the request itself is not checked
	// for again, so an origin taken off the list is refused at once anyway.
	preflightMaxAge = 2 * time.Hour
)

// corsExposed are the answer headers an MCP client in a page must read:
// the session it was given, the protocol version, where OAuth starts, and
// when to come back after a 429 or 503.
var corsExposed = []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "Retry-After"}

// corsRequestHeaders are the headers a page's MCP client sends beyond the
// ones CORS always allows: its token, JSON, its session and protocol
// version, and where a resumed stream starts.
const corsRequestHeaders = "Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept"

// allowOrigin sets the CORS headers of an answer to origin, which passed.
// Names Mattermost already exposes stay exposed.
func allowOrigin(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	if !headerLists(h, "Vary", "Origin") {
		h.Add("Vary", "Origin")
	}
	exposed := slices.Clone(corsExposed)
	for _, v := range h.Values("Access-Control-Expose-Headers") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.ContainsFunc(exposed, func(e string) bool { return strings.EqualFold(e, name) }) {
				exposed = append(exposed, name)
			}
		}
	}
	h.Set("Access-Control-Expose-Headers", strings.Join(exposed, ", "))
}

// headerLists reports whether the comma-separated header name lists value.
func headerLists(h http.Header, name, value string) bool {
	for _, v := range h.Values(name) {
		for _, item := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(item), value) {
				return true
			}
		}
	}
	return false
}

// IsPreflight reports whether r is a CORS preflight: an OPTIONS a browser
// sends before a request of a page at another origin.
func IsPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// Preflight answers a preflight whose Origin passed (CheckOrigins, the
// router's middleware, refused any other with 403 before it): 204 with the
// methods the route at the path takes (methods; none: 404) and the headers
// an MCP client sends. The plugin answers them itself, so its own setting
// is enough without Mattermost's, which only applies after a restart.
func Preflight(methods func(r *http.Request) []string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		allowed := methods(r)
		if len(allowed) == 0 {
			http.Error(w, "Not found: no route of the plugin at this path.", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", strings.Join(append(allowed, http.MethodOptions), ", "))
		h.Set("Access-Control-Allow-Headers", corsRequestHeaders)
		h.Set("Access-Control-Max-Age", strconv.Itoa(int(preflightMaxAge.Seconds())))
		w.WriteHeader(http.StatusNoContent)
	}
}
