// Package transport serves MCP over streamable HTTP inside the plugin: it
// authenticates the caller from the header Mattermost sets, answers the OAuth
// challenge and protected-resource metadata, keeps sessions in the KV store so
// any cluster node can serve any request, and logs every call.
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

const (
	// MCPPath is the MCP endpoint under the plugin's route.
	MCPPath = "/mcp"
	// MetadataPath is the RFC 9728 protected-resource metadata document.
	MetadataPath = "/.well-known/oauth-protected-resource"
	// maxRequestBytes bounds one JSON-RPC request: a post carries at most
	// ten 1 MiB text files, which JSON escaping can roughly double.
	maxRequestBytes = 24 << 20
	// OAuthScope is the only scope Mattermost's OAuth provider issues.
	OAuthScope = "user"
)

// Logger is the plugin API's key-value logger.
type Logger interface {
	Debug(msg string, keyValuePairs ...any)
	Info(msg string, keyValuePairs ...any)
	Warn(msg string, keyValuePairs ...any)
	Error(msg string, keyValuePairs ...any)
}

// Options wire the transport to the plugin.
type Options struct {
	// WaitingSessions are the person's MCP sessions that asked a write
	// still waiting for them (nil: none): such a session is in use, and
	// is never ended to make room, so the client can still hear of the
	// answer.
	WaitingSessions func(userID string) (map[string]bool, error)
	PluginID        string
	Version         string
	// ValidateOutput checks every answer against its tool's output schema.
	// The schemas are derived from the result types, so what it catches is
	// an encoding that drifts from its type's schema (a nil list as null):
	// the tests run with it, a production server does not pay for it (it
	// re-encodes each answer: about 8% of the plugin's processor under load).
	ValidateOutput bool
	// Instructions tell the model what this server is for.
	Instructions string
	// SiteURL is Mattermost's configured site URL, read on every request.
	SiteURL func() string
	// OAuthSignIn answers whether Mattermost can register an MCP client and
	// issue it tokens right now (see mattermost.OAuthSignIn); nil means it
	// cannot. Only then do the challenge and the metadata name Mattermost as
	// the authorization server: a client sent to one that cannot register it
	// gives up instead of asking for a token.
	OAuthSignIn func() bool
	// AllowsOrigin answers whether the admin lists a web origin (normalized
	// as config.NormalizeOrigin does) besides the site's own; read on every
	// request, so a change applies without a restart. nil lists none.
	AllowsOrigin func(origin string) bool
	// UserActive answers whether the user exists and is not deactivated.
	UserActive func(userID string) (bool, error)
	// Admits answers whether an active user may connect, by the admin's
	// rule of who may (see admission.Decide); asked on every request, so a
	// change of the setting applies on the next one. nil admits everyone.
	Admits func(userID string) (admission.Verdict, error)
	// Audit records every request of a signed-in person the transport
	// refuses (not admitted, going too fast: once a minute per person and
	// reason); nil records nothing.
	Audit audit.Recorder
	KV    KV
	// Answers is the same store as raw bytes with compare-and-set: it
	// carries clients' answers between nodes (see answers.go), their
	// cancellations (cancel.go) and each person's index of sessions
	// (sessions.go).
	Answers kvstore.KV
	Log     Logger
	// ServerOptions are added to the MCP server (tool filter, middleware...).
	ServerOptions []server.ServerOption

	// NotOffered answers why the configuration does not offer the tool
	// called name to the connection of ctx (ChoiceOf), worded for the model
	// with the next step, or "" when it does (or no tool has that name). A
	// tools/call of a tool not offered is answered with it as a tool error;
	// mcp-go's tool filter, which refuses such a call anyway, would say only
	// "not found". nil: mcp-go answers.
	NotOffered func(ctx context.Context, name string) string
	// Choose reads what a connection loads from the raw toolsets, tools
	// and read_only its client sent (choice.go), or says which names are
	// unknown; nil: every connection loads all the admin allows.
	Choose func(toolsets, tools, readOnly string) (config.Choice, error)
	// InvalidParams answers why a prompts/get's params are malformed,
	// naming the allowed form, or "" when they are not: mcp-go hands its
	// handler the params unchecked and can answer the handler's errors only
	// as internal errors. The request is then answered with a JSON-RPC
	// invalid-params error. nil checks nothing.
	InvalidParams func(ctx context.Context, method string, params json.RawMessage) string
	// MaxCallsPerMinute is the setting of the same name, read on every
	// call so a change applies at once (see rate.go); nil is the default.
	MaxCallsPerMinute func() int
	// Resources reads and lists the person's resources before mcp-go
	// answers (resources.go); nil leaves resources to mcp-go alone.
	Resources Resources
	// SessionsEnded tells the other nodes of sessions this node ended, so
	// that they forget their copies of the records at once (ForgetSessions);
	// nil on a single server.
	SessionsEnded func(ids []string)
	// RelayNotice sends a notification for a session whose stream is not
	// open on this node to the other nodes (a plugin cluster event), whose
	// plugin hands it to RelayedNotice; nil on a single server.
	RelayNotice func(payload []byte)
	// Connected hears of every MCP session opened, once its record is
	// stored, and of every new stateless client of a person (its record
	// has no ID): the audit trail of connections. nil hears nothing.
	Connected func(SessionRecord)
	// Streams answers whether this Mattermost streams a plugin's
	// responses; only then are notice streams served (getstream.go). nil:
	// none are, and a GET is refused with 405 as mcp-go does.
	Streams func() bool
	// Tasks keeps the tasks of calls whose write waits for the person
	// (tasks.go); nil offers no tasks.
	Tasks Tasks
	// Wake wakes a waiting call on any node when its client cancels it
	// (cancel.go); nil: the call reads its mark every wake.SafetyLook.
	Wake *wake.Hub
	// Files serves file transfer (draft SEP-2631, files.go) to clients
	// that declare it; nil offers none.
	Files *filetransfer.Service
	// Subscriptions keeps sessions' resource subscriptions
	// (subscriptions.go); nil leaves them to mcp-go.
	Subscriptions Subscriptions
}

// Transport is the MCP endpoint and its OAuth metadata.
type Transport struct {
	opts      Options
	MCP       *server.MCPServer
	http      *server.StreamableHTTPServer
	sessions  *sessionStore
	questions questionSlots
	// idStart is where this process numbers its questions to clients from;
	// markedAt is when it last recorded that range for the other nodes.
	idStart  int64
	markedAt atomic.Int64
	// active is which users this node found active lately (active.go).
	active activeUsers
	// refusals is when each refusal was last recorded (admission.go).
	refusals refusalsNoted
	// rate counts each person's calls on this node (rate.go); clock is
	// its time, nil for the wall clock (tests set it).
	rate  rateLimiter
	clock func() time.Time
	// signIns is when this node last noted each stateless client (signins.go).
	signIns signIns
	// notices is the change-notice streams open on this node (notices.go).
	notices noticeStreams
	// inbox carries session notices between nodes through the KV store
	// (inbox.go).
	inbox inboxes
	// waits are each person's held waits on this node (waits.go).
	waits waitShares
}

// New builds the MCP server and its streamable HTTP handler.
func New(opts Options) *Transport {
	t := &Transport{opts: opts, sessions: &sessionStore{kv: opts.KV, index: opts.Answers, log: opts.Log, now: time.Now, opened: opts.Connected, ended: opts.SessionsEnded, renews: true, waiting: opts.WaitingSessions}}
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		t.sessions.remember(ctx, req, res)
	})
	t.resourceHooks(hooks)
	t.listenHooks(hooks)
	serverOpts := append([]server.ServerOption{
		// Clients hear of changed lists (notices.go) and take a log level (logging.go).
		// Change notices need a stream that stays open: a Mattermost that
		// delivers a plugin's responses whole cannot carry one.
		server.WithToolCapabilities(opts.Streams != nil && opts.Streams()),
		server.WithLogging(),
		server.WithInstructions(opts.Instructions),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithLogger(slog.New(mcpLog{log: opts.Log})),
		server.WithToolHandlerMiddleware(t.logToolCall),
		server.WithToolHandlerMiddleware(t.noteUnheld),
	}, opts.ServerOptions...)
	if opts.Tasks != nil {
		// Tasks in core on 2025-11-25, as the extension on 2026-07-28
		// (tasks.go); the core slot is kept out of 2026-07-28's discovery,
		// which the extension replaces.
		serverOpts = append(serverOpts, server.WithTaskCapabilities(true, true, true),
			server.WithExtensions(map[string]any{TasksExtension: struct{}{}}))
		hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
			res.Capabilities.Tasks = nil
		})
	}
	if opts.ValidateOutput {
		// A result that breaks its tool's declared output schema becomes a
		// tool error here rather than a surprise in a client that validates.
		serverOpts = append(serverOpts, server.WithOutputSchemaValidation())
	}
	t.MCP = server.NewMCPServer("Mattermost", opts.Version, serverOpts...)
	t.http = server.NewStreamableHTTPServer(t.MCP,
		server.WithSessionIdManagerResolver(sessionResolver{store: t.sessions}),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			rec := sessionFrom(r.Context())
			restore(ctx, rec)
			ctx = withClientSessions(ctx, rec, MattermostSession(r.Context()))
			ctx = withClient(ctx, rec)
			ctx = context.WithValue(ctx, transportKey{}, t) // for SetChoice
			ctx = WithMattermostSession(ctx, MattermostSession(r.Context()))
			ctx = carryResourceAnswer(ctx, r)
			ctx = t.withReadCounter(ctx, callerIDFrom(r.Context()), rec)
			if s := listenStreamFrom(r.Context()); s != nil {
				ctx = context.WithValue(ctx, listenStreamKey{}, s)
			}
			return withCallerID(ctx, callerIDFrom(r.Context()))
		}),
		// mcp-go's standalone GET stream would tie a session to one node's
		// memory: the transport serves GET streams itself (getstream.go).
		server.WithDisableStreaming(true),
		server.WithStreamableHTTPLogger(slog.New(mcpLog{log: opts.Log})),
		// Reverse proxies on the same host forward with the public Host
		// header, which this check would refuse; hostAllowed checks the
		// Host against the site URL instead (rebinding.go).
		server.WithDisableLocalhostProtection(true),
	)
	start, ok := seedRequestIDs(t.http)
	if !ok {
		opts.Log.Warn("Could not make this node's MCP request ids unique; two nodes asking one session's client at once may mix their answers")
	}
	t.idStart = start
	t.markAsking()
	return t
}

// ResourceURL is the MCP endpoint's public URL, the OAuth resource.
func (t *Transport) ResourceURL(r *http.Request) string {
	return t.pluginURL(r) + MCPPath
}

func (t *Transport) pluginURL(r *http.Request) string {
	return t.siteURL(r) + "/plugins/" + t.opts.PluginID
}

// siteURL is the configured site URL; without one (a misconfigured server)
// the request's own host is the best guess.
func (t *Transport) siteURL(r *http.Request) string {
	if s := strings.TrimRight(t.opts.SiteURL(), "/"); s != "" {
		return s
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// ProtectedResourceMetadata is the RFC 9728 document.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// oauthSignIn reports whether OAuth sign-in is advertised now.
func (t *Transport) oauthSignIn() bool {
	return t.opts.OAuthSignIn != nil && t.opts.OAuthSignIn()
}

// ServeMetadata answers the protected-resource metadata. It needs no sign-in:
// it is how a client learns where to sign in. It names Mattermost as the
// authorization server only while Mattermost can register the client and
// issue it a token; otherwise it names none (RFC 9728 makes the field
// optional), and the 401 says to use a personal access token.
func (t *Transport) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	doc := ProtectedResourceMetadata{
		Resource:               t.ResourceURL(r),
		ScopesSupported:        []string{OAuthScope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Mattermost MCP Server",
	}
	if t.oauthSignIn() {
		doc.AuthorizationServers = []string{t.siteURL(r)}
	}
	w.Header().Set("Content-Type", "application/json")
	// An admin may switch OAuth on or off at any time: clients revalidate.
	w.Header().Set("Cache-Control", "no-cache")
	if err := json.NewEncoder(w).Encode(doc); err != nil {
		t.opts.Log.Warn("Could not write the protected-resource metadata", "error", err.Error())
	}
}

// The 401 bodies: with OAuth sign-in, and without it.
const (
	unauthorizedOAuth = `{"error":"unauthorized","message":"Sign in to Mattermost: send a personal access token, a session token or an OAuth access token as 'Authorization: Bearer <token>'. The WWW-Authenticate header says where OAuth starts."}` + "\n"
	unauthorizedToken = `{"error":"unauthorized","message":"Sign in with a personal access token: create one in Mattermost (Profile > Security > Personal Access Tokens) and send it as 'Authorization: Bearer <token>'. This Mattermost offers MCP clients no OAuth sign-in (it needs Mattermost 11.4 or later with the OAuth 2.0 Service Provider and Dynamic Client Registration on)."}` + "\n"
)

// challenge answers 401. With OAuth sign-in it is the challenge MCP clients
// discover OAuth from (RFC 9728 §5.1); without it, it names no metadata and
// no authorization server, and its body says to use a personal access token.
func (t *Transport) challenge(w http.ResponseWriter, r *http.Request) {
	oauth := t.oauthSignIn()
	value, message := `Bearer realm="Mattermost"`, unauthorizedToken
	if oauth {
		value = fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, t.pluginURL(r)+MetadataPath, OAuthScope)
		message = unauthorizedOAuth
	}
	if r.Header.Get("Authorization") != "" {
		// RFC 6750 §3.1: credentials were sent and were not accepted.
		value += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", value)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, message)
}

// Authenticate returns the signed-in user of a request, from the header
// Mattermost sets only after checking the token (client copies are
// stripped), once its Host passed (see hostAllowed; its Origin passed the
// router's CheckOrigins before). Without an active user it answers the 401
// challenge (or 503 when Mattermost cannot tell), and to a user the admin
// does not let connect 403 (see admitted); then it returns false. Every
// route that takes the Mattermost credential goes through it.
func (t *Transport) Authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	if !t.hostAllowed(w, r) {
		return "", false
	}
	userID := r.Header.Get("Mattermost-User-Id")
	if userID == "" {
		t.challenge(w, r)
		return "", false
	}
	active, err := t.userActive(userID) // see activeFor
	if err != nil {
		t.opts.Log.Error("Could not look up the calling user", "user_id", userID, "error", err.Error())
		http.Error(w, "Mattermost could not look up your account; try again shortly.", http.StatusServiceUnavailable)
		return "", false
	}
	if !active {
		t.noteRefusal(r, userID, reasonDeactivated)
		t.challenge(w, r)
		return "", false
	}
	if !t.admitted(w, r, userID) { // who may connect (admission.go)
		return "", false
	}
	return userID, true
}

// ServeMCP authenticates the caller and hands the request to mcp-go.
func (t *Transport) ServeMCP(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	userID, ok := t.Authenticate(w, r)
	if !ok {
		return
	}

	ctx := withCallerID(r.Context(), userID)
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" {
		rec, err := t.sessions.load(id)
		if err != nil {
			t.opts.Log.Error("Could not read an MCP session", "user_id", userID, "error", err.Error())
			http.Error(w, "Mattermost could not read your MCP session; try again shortly.", http.StatusServiceUnavailable)
			return
		}
		if rec != nil && rec.UserID != userID {
			// Another user's session is no session of this caller's: it is
			// neither ended, nor restored, nor answered through (404, as for
			// an unknown id, so ids cannot be probed).
			http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
			return
		}
		ctx = withSession(ctx, rec)
		if rec != nil && r.Method != http.MethodDelete {
			// In use while it is served, on every node (inuse.go).
			release, open := t.sessions.hold(rec)
			defer release()
			if !open {
				http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
				return
			}
		}
	}

	var body []byte
	var env envelope
	if r.Method == http.MethodPost {
		var err error
		body, err = readBody(w, r, maxRequestBytes)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("The request is larger than %d MiB; send large files through request_upload instead.", maxRequestBytes>>20), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "The request body could not be read.", http.StatusBadRequest)
			return
		}
		if isBatch(body) {
			t.serveBatch(ctx, w, r, body)
			t.opts.Log.Debug("MCP request", "user_id", userID, "http_method", r.Method, "method", "batch",
				"duration_ms", time.Since(started).Milliseconds())
			return
		}
		env = parseEnvelope(body)
	}
	t.serveMessage(ctx, w, r, env, started)
}
