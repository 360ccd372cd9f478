package harness

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// What the Mattermost the harness started can do for a plugin. A test that
// needs one of these asks here, so the suite runs unchanged on every version
// the plugin claims, and no list of test names says which version lacks what.

// Version is the version the running Mattermost reports in X-Version-Id
// ("9.11.0.…"), read when the harness signed its first user up.
func (s *Server) Version() string { return s.version }

// Streams reports whether this Mattermost delivers what the plugin writes on
// a response before the response ends, by the plugin's own rule
// (mattermost.StreamsResponses): only then are progress, questions on a
// call's stream, GET and subscriptions/listen streams possible.
func (s *Server) Streams() bool { return mattermost.StreamsResponses(s.version) }

// OAuthForClients reports whether this Mattermost can sign an MCP client in
// with OAuth at all: its configuration has dynamic client registration
// (ServiceSettings.EnableDynamicClientRegistration, which 9.11 lacks). Whether
// it is switched on is the tests' own business.
func (s *Server) OAuthForClients() bool {
	s.oauthOnce.Do(func() {
		// The raw answer: this package's model fills in every field it
		// knows, whatever the server sent.
		resp, err := s.Client(s.Admin).DoAPIGet(context.Background(), "/config", "")
		if err != nil {
			return
		}
		defer resp.Body.Close()
		var cfg struct {
			ServiceSettings map[string]json.RawMessage
		}
		if json.NewDecoder(resp.Body).Decode(&cfg) == nil {
			_, s.oauth = cfg.ServiceSettings["EnableDynamicClientRegistration"]
		}
	})
	return s.oauth
}

// abilities is what Server keeps of the above.
type abilities struct {
	version   string
	oauthOnce sync.Once
	oauth     bool
}

// versionOf is the major.minor.patch of an X-Version-Id.
func versionOf(header string) string {
	parts := strings.SplitN(header, ".", 4)
	return strings.Join(parts[:min(len(parts), 3)], ".")
}
