package connect

import (
	"net"
	"net/url"
	"strings"
)

// The chat apps (ChatGPT, claude.ai and Claude Desktop) add a remote MCP
// server as a connector: they reach it from their own cloud, not from the
// person's machine, and sign in only with OAuth (dynamic client
// registration); none of them sends a header the person types. So each
// has two things the admin may have to change, which the dialog says.

// Host is how one chat app adds this server: the steps in the person's
// words, and, when it cannot connect as this server is set up, why and
// what the admin should change.
type Host struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Steps []string `json:"steps"`
	// Blocked is what stops this host now, said for the admin; empty
	// when nothing does.
	Blocked []string `json:"blocked,omitempty"`
}

// HostsFor is the chat apps' setup for the MCP endpoint at mcpURL. oauth
// and oauthReason are how this server signs clients in now.
func HostsFor(mcpURL string, oauth bool, oauthReason string) []Host {
	var blocked []string
	if !oauth {
		why := "This server does not sign AI clients in with OAuth"
		if oauthReason != "" {
			why += " (" + oauthReason + ")"
		}
		blocked = append(blocked, why+": chat apps sign in only with OAuth. The admin turns on the OAuth 2.0 Service Provider and Dynamic Client Registration in the System Console (Integrations > Integration Management).")
	}
	if why := unreachableFromTheInternet(mcpURL); why != "" {
		blocked = append(blocked, why+": chat apps connect from their own servers on the internet. The admin sets the Site URL to the https address people reach Mattermost at from outside.")
	}
	return []Host{
		{
			ID:   "chatgpt",
			Name: "ChatGPT",
			Steps: []string{
				"In ChatGPT, open Settings > Apps & Connectors > Advanced settings and turn on Developer mode (in a workspace, an admin may have to allow custom connectors).",
				"Create a connector: name it Mattermost, paste the MCP URL above, and choose OAuth.",
				"ChatGPT opens Mattermost: sign in and allow it.",
				"To research your Mattermost, choose Deep research (or company knowledge) in a chat and pick Mattermost among its sources: it uses the search and fetch tools.",
			},
			Blocked: blocked,
		},
		{
			ID:   "claude",
			Name: "Claude (claude.ai and Claude Desktop)",
			Steps: []string{
				"In Claude, open Settings > Connectors and click Add custom connector (on a Team or Enterprise plan, an owner adds it for the organisation).",
				"Name it Mattermost and paste the MCP URL above; leave the OAuth client fields under Advanced settings empty.",
				"Click Connect: Claude opens Mattermost for you to allow it. Claude Desktop uses the same connectors as claude.ai.",
			},
			Blocked: blocked,
		},
	}
}

// unreachableFromTheInternet says why a service on the internet cannot
// reach mcpURL, or "" when it may: the URL is https on a name or address
// that is not local. A public name may still resolve to a private
// address; only a request from outside would tell.
func unreachableFromTheInternet(mcpURL string) string {
	u, err := url.Parse(mcpURL)
	if err != nil || u.Hostname() == "" {
		return "The MCP URL is not a full address (the Site URL is not set)"
	}
	host := strings.ToLower(u.Hostname())
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()) ||
		host == "localhost" || !strings.Contains(host, ".") ||
		strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".lan") {
		return "The MCP URL's address, " + host + ", is not reachable from the internet"
	}
	if u.Scheme != "https" {
		return "The MCP URL is not https"
	}
	return ""
}
