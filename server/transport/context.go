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
