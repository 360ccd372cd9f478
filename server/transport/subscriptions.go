package transport

import (
	"context"
	"errors"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// Resource subscriptions (MCP 2025-11-25's resources/subscribe and
// resources/unsubscribe): the transport answers them for a session before
// mcp-go, whose subscriptions live in one node's memory, and hands them to
// Options.Subscriptions, which keeps them in the KV store; the notices
// travel as any notification to the session does (NotifySession).

// Subscriptions keeps sessions' subscriptions to resources.
type Subscriptions interface {
	// Subscribe subscribes the caller's session to uri. An error wrapping
	// ErrResourceNotFound says why the person cannot read it; one wrapping
	// ErrTooManySubscriptions names the bound.
	Subscribe(ctx context.Context, userID, session, uri string) error
	// Unsubscribe ends it (none: no change).
	Unsubscribe(ctx context.Context, userID, session, uri string) error
}

// ErrTooManySubscriptions is a subscription past a bound.
var ErrTooManySubscriptions = errors.New("too many subscriptions")

// serveSubscription answers resources/subscribe or resources/unsubscribe of
// a session; it reports whether it answered (a request without a session
// is left to mcp-go, which answers as its revision says).
func (t *Transport) serveSubscription(ctx context.Context, w http.ResponseWriter, env envelope) bool {
	method := env.method
	rec := sessionFrom(ctx)
	if t.opts.Subscriptions == nil || rec == nil {
		return false
	}
	id := env.requestID()
	if env.params.URI == "" {
		writeRPCError(w, http.StatusOK, id, mcp.INVALID_PARAMS, "params.uri is missing: give the URI of a channel or thread resource (resources/templates/list).")
		return true
	}
	userID := callerIDFrom(ctx)
	if !t.streams() {
		// A subscription nothing can ever be heard of is not taken: the
		// client is told to read again instead (resources.subscribe is not
		// declared here either).
		writeRPCError(w, http.StatusOK, id, mcp.METHOD_NOT_FOUND, noStream("tell your client when a resource changes",
			"read the resource again (resources/read) when you want it fresh"))
		return true
	}
	var err error
	if method == string(mcp.MethodResourcesSubscribe) {
		err = t.opts.Subscriptions.Subscribe(withClient(ctx, rec), userID, rec.ID, env.params.URI)
	} else {
		err = t.opts.Subscriptions.Unsubscribe(ctx, userID, rec.ID, env.params.URI)
	}
	switch {
	case errors.Is(err, ErrResourceNotFound):
		writeRPCErrorData(w, http.StatusOK, id, mcp.RESOURCE_NOT_FOUND, err.Error(), map[string]string{"uri": env.params.URI})
	case errors.Is(err, ErrTooManySubscriptions):
		writeRPCError(w, http.StatusOK, id, sessionsInUseCode, err.Error())
	case err != nil:
		t.opts.Log.Error("Could not change a resource subscription", "user_id", userID, "error", err.Error())
		writeRPCError(w, http.StatusOK, id, mcp.INTERNAL_ERROR, "Mattermost could not change your subscription just now; try again shortly.")
	default:
		writeRPCResult(w, id, map[string]any{})
	}
	t.opts.Log.Debug("MCP request", "user_id", userID, "method", method, "ok", err == nil)
	return true
}

// sessionExists is whether the caller's session, or listen stream, is
// still open somewhere; a store that cannot say is taken as yes.
func (t *Transport) sessionExists(userID, sessionID string) bool {
	if isListenID(sessionID) {
		node, err := t.listenNode(sessionID)
		return err != nil || node != ""
	}
	rec, err := t.sessions.load(sessionID)
	return err != nil || rec != nil && rec.UserID == userID
}

// SessionOpen is whether the person's session, or listen stream, is still
// open somewhere (a store that cannot say counts as open).
func (t *Transport) SessionOpen(userID, sessionID string) bool {
	return t.sessionExists(userID, sessionID)
}

// NotifyResourceUpdated tells a session that the resource uri changed
// (notifications/resources/updated), wherever its stream is open, and says
// whether the session still exists.
func (t *Transport) NotifyResourceUpdated(userID, sessionID, uri string) bool {
	return t.NotifySession(userID, sessionID, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri})
}
