package mattermost

import (
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// OAuthSignIn reports whether Mattermost, configured as cfg, can register
// an MCP client and issue it tokens, and when it cannot, why (for the log).
//
// MCP clients register themselves (RFC 7591) after reading the authorization
// server's metadata (RFC 8414). Mattermost serves both from 11.4 on (11.1 has
// neither; 11.2 and 11.3 are not on the Go module proxy to check) and only
// with both settings on: /.well-known/oauth-authorization-server answers 501
// without the OAuth 2.0 Service Provider, and /api/v4/oauth/apps/register
// refuses without Dynamic Client Registration. A server too old to have the
// feature does not know the setting, and a setting that is off arrives empty
// as well (see Setting), so the two read alike and the reason names both.
func OAuthSignIn(cfg *model.Config) (bool, string) {
	switch {
	case cfg == nil:
		return false, "the server configuration could not be read"
	case !Setting(cfg.ServiceSettings.EnableOAuthServiceProvider):
		return false, "the OAuth 2.0 Service Provider is off (ServiceSettings.EnableOAuthServiceProvider)"
	case !Setting(cfg.ServiceSettings.EnableDynamicClientRegistration):
		return false, "Dynamic Client Registration is off (ServiceSettings.EnableDynamicClientRegistration), or this Mattermost version does not have it (11.4 or later has it)"
	}
	return true, ""
}

// StreamsResponses reports whether a Mattermost of this version delivers what
// a plugin writes on an HTTP response as it is flushed, before the response
// ends. The plugin RPC bridge got its Flush call after 11.1 (server/public
// v0.1.22; 9.11 and 11.1 have none): before, a plugin's response reaches the
// client whole, when ServeHTTP returns. 11.4 is the first version checked
// to stream; 11.2 and 11.3 are counted out, as they cannot be checked.
func StreamsResponses(serverVersion string) bool {
	return AtLeast(serverVersion, firstStreamingMajor, firstStreamingMinor)
}

// The first version that streams a plugin's responses, for StreamsResponses
// and for what the plugin tells clients on a version that does not.
const (
	firstStreamingMajor = 11
	firstStreamingMinor = 4
	// FirstStreamingVersion names it in answers.
	FirstStreamingVersion = "11.4"
)

// AtLeast reports whether a Mattermost version ("11.4.0", "10.10.1-rc1")
// is major.minor or later; one that does not read as a version is not.
func AtLeast(serverVersion string, major, minor int) bool {
	parts := strings.SplitN(serverVersion, ".", 3)
	if len(parts) < 2 {
		return false
	}
	gotMajor, err1 := strconv.Atoi(parts[0])
	gotMinor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return gotMajor > major || (gotMajor == major && gotMinor >= minor)
}
