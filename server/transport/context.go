package transport

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type callerKey struct{}
type sessionCtxKey struct{}

func withCallerID(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, callerKey{}, userID)
}

func callerIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(callerKey{}).(string)
	return id
}

// CallerID is the Mattermost user a tool call comes from. It is set only from
// the header Mattermost itself writes after checking the token, never from an
// argument. Empty means no authenticated caller: refuse.
func CallerID(ctx context.Context) string { return callerIDFrom(ctx) }

func withSession(ctx context.Context, rec *SessionRecord) context.Context {
	return context.WithValue(ctx, sessionCtxKey{}, rec)
}

func sessionFrom(ctx context.Context) *SessionRecord {
	rec, _ := ctx.Value(sessionCtxKey{}).(*SessionRecord)
	return rec
}

type mmSessionKey struct{}
type clientSessionsKey struct{}

// WithMattermostSession records the id of the Mattermost session a request
// was authenticated with (plugin.Context.SessionId); the plugin's HTTP entry
// sets it on every request.
func WithMattermostSession(ctx context.Context, sessionID string) context.Context {
	return context.WithValue(ctx, mmSessionKey{}, sessionID)
}

// MattermostSession is the id of the Mattermost session of the request, ""
// when it came without one.
func MattermostSession(ctx context.Context) string {
	id, _ := ctx.Value(mmSessionKey{}).(string)
	return id
}

// ClientSessions are the Mattermost sessions the MCP client holds: the one
// of the tool call being handled and the one its MCP session was
// initialised with. Neither may answer a question the client caused.
func ClientSessions(ctx context.Context) []string {
	ids, _ := ctx.Value(clientSessionsKey{}).([]string)
	return ids
}

func withClientSessions(ctx context.Context, rec *SessionRecord, requestSession string) context.Context {
	var ids []string
	if requestSession != "" {
		ids = append(ids, requestSession)
	}
	if rec != nil && rec.MattermostSessionID != "" && rec.MattermostSessionID != requestSession {
		ids = append(ids, rec.MattermostSessionID)
	}
	return context.WithValue(ctx, clientSessionsKey{}, ids)
}

type clientKey struct{}

// ClientInfo is the MCP client a request comes from, as it named itself
// when it opened its session (bounded by the transport).
type ClientInfo struct {
	Name, Version string
}

func withClient(ctx context.Context, rec *SessionRecord) context.Context {
	if rec == nil {
		return ctx
	}
	return context.WithValue(ctx, clientKey{}, ClientInfo{Name: rec.ClientName, Version: rec.ClientVersion})
}

// SessionID is the MCP session a request belongs to; "" for a request of
// a protocol without sessions.
func SessionID(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// Client is the MCP client a call comes from: as its session recorded it
// at initialize, or, for a request of protocol 2026-07-28 and later, which
// has no session, as the request's own _meta names it (cut to the same
// bounds); empty when the client never said.
func Client(ctx context.Context) ClientInfo {
	if c, ok := ctx.Value(clientKey{}).(ClientInfo); ok && (c.Name != "" || c.Version != "") {
		return c
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
		return ClientInfo{Name: truncate(info.ClientInfo.Name, maxClientNameBytes), Version: truncate(info.ClientInfo.Version, maxClientVersionBytes)}
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		i := s.GetClientInfo()
		return ClientInfo{Name: truncate(i.Name, maxClientNameBytes), Version: truncate(i.Version, maxClientVersionBytes)}
	}
	return ClientInfo{}
}

// AppsExtension is the MCP Apps extension's name, under which a client
// that shows views (ui:// resources) declares it.
const AppsExtension = "io.modelcontextprotocol/ui"

// ClientCapabilities are what the client of ctx declared: per request for
// protocol 2026-07-28 and later, at initialize (restored on any node from
// the session record) before that; nil when neither is known.
func ClientCapabilities(ctx context.Context) *mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		return &c
	}
	return nil
}

// ShowsViews reports whether the client of ctx declared that it shows MCP
// Apps views.
func ShowsViews(ctx context.Context) bool {
	caps := ClientCapabilities(ctx)
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[AppsExtension]
	return ok
}
