package transport

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// DNS rebinding (docs/adr/0014-the-host-a-browser-names.md): a page of
// evil.example makes its own name resolve to this server, so the browser
// takes the server for evil.example and sends it the page's requests as
// same-origin ones (a GET with no Origin at all). The Host header still
// says evil.example. So a request made by a browser must name this
// Mattermost in its Host: the site URL's host name (any port: proxies
// forward "$host" without one), an IP address, or localhost. An IP or
// localhost is no name an attacker can rebind, and it is what cluster nodes,
// health checks and proxies that forward to an upstream address send.
//
// Requests not made by a browser are not checked: rebinding is an attack
// through a person's browser, and programs (desktop and command-line
// clients, agents inside a cluster calling the service's internal name,
// proxies that rewrite Host to their upstream's name) must keep working
// whatever Host they send. A browser marks its requests with Origin (every
// request but a same-origin GET or HEAD) or Sec-Fetch-Site (every request
// of current browsers), headers a page's script cannot set.
//
// mcp-go's own localhost protection is off (see New): it refuses any Host
// but localhost on a loopback connection, which is exactly what a reverse
// proxy on the same machine sends.

// hostAllowed answers 403 to a browser's request whose Host names another
// site, and reports whether the request may go on.
func (t *Transport) hostAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
		return true
	}
	site, err := url.Parse(strings.TrimRight(t.opts.SiteURL(), "/"))
	if err != nil || site.Hostname() == "" {
		return true // no site URL to compare with (Mattermost warns about it itself)
	}
	host := requestHostname(r)
	if host == strings.ToLower(site.Hostname()) || host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	t.opts.Log.Info("Refused a browser's MCP request naming another host", "host", truncate(r.Host, 200), "path", r.URL.Path)
	refuse(w, r, fmt.Sprintf("This request names the host %.200q, but this Mattermost is %s: it may be a page that rebinds its own name to this server. Use %s, or, behind a reverse proxy, forward the Host header the browser sent (nginx: proxy_set_header Host $host) and set the site URL in System Console > Environment > Web Server to the address people use.",
		r.Host, site.Hostname(), site.Scheme+"://"+site.Host))
	return false
}

// requestHostname is the Host header's name, lower case, without port,
// brackets or a final dot.
func requestHostname(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// loopbackSameOrigin reports whether origin (normalized) is the address the
// request came to on this machine's loopback: a page that this server (or a
// proxy on the same machine) served itself at that address, which no other
// site can serve. It is how a server addressed as localhost or 127.0.0.1
// accepts its own pages without the admin listing them.
func loopbackSameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || !strings.EqualFold(u.Host, r.Host) {
		return false
	}
	host := requestHostname(r)
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// refuse answers 403 with the reason in one line: as a JSON-RPC error
// without id on the MCP endpoint, as text elsewhere.
func refuse(w http.ResponseWriter, r *http.Request, message string) {
	if strings.HasSuffix(r.URL.Path, MCPPath) {
		writeRPCError(w, http.StatusForbidden, json.RawMessage("null"), mcp.INVALID_REQUEST, message)
		return
	}
	http.Error(w, message, http.StatusForbidden)
}
