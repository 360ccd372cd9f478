package transport

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// Origins: one rule for every route of the plugin.
// MCP's transport requires servers to validate Origin: a web page of another
// site must not reach the plugin with the person's credentials through
// their browser. That holds for every route a browser can reach, not only
// the MCP endpoint: the workspace API, the confirmation pages and their API,
// the connect and audit APIs, the admin's page and the sign-in metadata.

// originPasses is the rule, decided for every route by this one function:
// a request without Origin (desktop, command-line and server clients, a
// browser's same-origin GET) passes; one from the site's own origin (the
// plugin's pages, loaded by Mattermost's web app), from the loopback
// address the request came to (loopbackSameOrigin) or from one the admin
// lists passes; any other does not. site is the site's origin, which a
// refusal names.
//
// A page whose referrer policy is no-referrer (the confirmation page's)
// has the browser send "null" as the Origin of its own form posts; then
// Sec-Fetch-Site, which no page can set, says whether the request is the
// site's own. A "null" from anywhere else (a sandboxed frame of another
// site) does not pass.
func (t *Transport) originPasses(r *http.Request) (ok bool, site string) {
	origin := r.Header.Get("Origin")
	if u, err := url.Parse(t.siteURL(r)); err == nil {
		// The site's origin, whatever path Mattermost is served under.
		site, _ = config.NormalizeOrigin(u.Scheme + "://" + u.Host)
	}
	if origin == "" || origin == "null" && r.Header.Get("Sec-Fetch-Site") == "same-origin" {
		return true, site
	}
	normalized, ok := config.NormalizeOrigin(origin)
	return ok && (normalized == site || loopbackSameOrigin(normalized, r) || (t.opts.AllowsOrigin != nil && t.opts.AllowsOrigin(normalized))), site
}

// CheckOrigins is the router's middleware that applies originPasses to
// every route: a request from another origin gets 403 with the reason in
// one line (as a JSON-RPC error without id on the MCP endpoint) and
// reaches no handler. Every answer to a page whose origin passes carries
// the CORS headers (cors.go), set before the handler writes anything, and
// a preflight is answered by the route Preflight serves, behind this too.
func (t *Transport) CheckOrigins(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !t.originAllowed(w, r) {
			return
		}
		// "null" passes only as the site's own form post, which reads no answer.
		if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
			allowOrigin(w.Header(), origin)
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed answers 403 to a request whose Origin does not pass, and
// reports whether the request may go on. A page of another origin that also
// names another host is told of the host (a rebound name; see hostAllowed),
// whose fix is the more useful one.
func (t *Transport) originAllowed(w http.ResponseWriter, r *http.Request) bool {
	ok, site := t.originPasses(r)
	if ok {
		return true
	}
	if !t.hostAllowed(w, r) {
		return false
	}
	origin := r.Header.Get("Origin")
	message := fmt.Sprintf("Requests from web pages at %.200q may not use Mattermost's MCP server: only %s and the origins a system admin lists in the plugin's setting \"Allowed origins for browser-based MCP clients\" may.", origin, site)
	t.opts.Log.Info("Refused a request from a web page of another origin", "origin", truncate(origin, 200), "path", r.URL.Path)
	refuse(w, r, message)
	return false
}
