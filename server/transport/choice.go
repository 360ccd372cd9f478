package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// What a connection loads (config.Choice) is named by its client in the MCP
// URL's query, or in headers for a client that cannot change its URL. A
// session of 2025-11-25 and earlier names it at initialize and keeps it in
// its record, so every node serves it the same, and load_tools widens it
// there (SetChoice). A request of 2026-07-28 has no session: it sends its
// choice with every request.

// The query parameters and headers that name a connection's choice.
const (
	QueryToolsets  = "toolsets"
	QueryTools     = "tools"
	QueryReadOnly  = "read_only"
	HeaderToolsets = "X-MCP-Toolsets"
	HeaderTools    = "X-MCP-Tools"
	HeaderReadOnly = "X-MCP-Read-Only"
)

type choiceKey struct{}
type transportKey struct{}

// WithChoice is ctx carrying the choice of the request's connection.
func WithChoice(ctx context.Context, ch config.Choice) context.Context {
	return context.WithValue(ctx, choiceKey{}, ch)
}

// ChoiceOf is what the request's connection loads; the zero Choice (all the
// admin allows) when it named nothing.
func ChoiceOf(ctx context.Context) config.Choice {
	ch, _ := ctx.Value(choiceKey{}).(config.Choice)
	return ch
}

// requestedChoice reads the choice a request names, the query before the
// headers.
func (t *Transport) requestedChoice(r *http.Request) (config.Choice, error) {
	if t.opts.Choose == nil {
		return config.Choice{}, nil
	}
	q := r.URL.Query()
	value := func(param, header string) string {
		if q.Has(param) {
			return q.Get(param)
		}
		return r.Header.Get(header)
	}
	return t.opts.Choose(value(QueryToolsets, HeaderToolsets), value(QueryTools, HeaderTools), value(QueryReadOnly, HeaderReadOnly))
}

// ErrNoSession is SetChoice's answer for a request without a session (of
// 2026-07-28): there is nothing to keep a choice in, its client names the
// choice in every request.
var ErrNoSession = errors.New("this request has no MCP session to keep what it loads in")

// SetChoice keeps ch as what the session of the request in ctx loads, on
// every node, and tells its client that its tool list changed (on its GET
// stream, wherever it is open).
func SetChoice(ctx context.Context, ch config.Choice) error {
	t, _ := ctx.Value(transportKey{}).(*Transport)
	rec := sessionFrom(ctx)
	if t == nil || rec == nil {
		return ErrNoSession
	}
	// The record as stored now, so a concurrent change of it is kept.
	fresh, err := t.sessions.load(rec.ID)
	if err != nil {
		return err
	}
	if fresh == nil {
		return ErrNoSession
	}
	fresh.Choice = ch
	if err := t.sessions.save(fresh); err != nil {
		return err
	}
	// The other nodes drop their copies of the record (sessioncache.go),
	// so the client's next list there reads what it loaded.
	if t.opts.SessionsEnded != nil {
		t.opts.SessionsEnded([]string{rec.ID})
	}
	t.NotifySession(rec.UserID, rec.ID, "notifications/tools/list_changed", nil)
	return nil
}

// HearsListChanges reports whether the client of ctx's request can hear
// that a list changed: only where Mattermost streams a plugin's responses
// can a notice reach it (a GET or subscriptions/listen stream).
func HearsListChanges(ctx context.Context) bool {
	t, _ := ctx.Value(transportKey{}).(*Transport)
	return t != nil && t.streams()
}

// withRequestChoice is ctx carrying the choice of the request's
// connection: its session's, or, for a request without a session (an
// initialize, a request of 2026-07-28), what the request names. A request
// naming an unknown toolset or tool is answered here with an invalid-params
// error naming the valid ones; then it reports true.
func (t *Transport) withRequestChoice(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope) (context.Context, bool) {
	if rec := sessionFrom(ctx); rec != nil {
		return WithChoice(ctx, rec.Choice), false
	}
	if r.Header.Get(server.HeaderKeySessionID) != "" {
		return ctx, false // an unknown session: mcp-go's 404 tells the client to initialize again
	}
	ch, err := t.requestedChoice(r)
	if err != nil {
		writeRPCError(w, http.StatusOK, env.requestID(), mcp.INVALID_PARAMS,
			fmt.Sprintf("The MCP URL or headers name %s. Fix the URL or header and connect again.", err))
		return ctx, true
	}
	return WithChoice(ctx, ch), false
}
