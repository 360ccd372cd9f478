package transport

import "context"

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

// Client is the MCP client of the call's session, empty outside a session.
func Client(ctx context.Context) ClientInfo {
	c, _ := ctx.Value(clientKey{}).(ClientInfo)
	return c
}
