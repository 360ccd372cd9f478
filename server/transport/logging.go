package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Logging: a client of 2025-11-25 and earlier sets the level of the log
// messages it wants with logging/setLevel; the level is kept in its session
// record, so every node honours it (mcp-go would keep it in one node's
// memory). A client of 2026-07-28 names the level in each request's _meta.
// The server's notices of a request (it waits for memory, for the person,
// a setting refused it) then go out as notifications/message on that
// request's stream, beside its progress notifications. A notice never
// carries content: no message text, no file contents, no file names.

const (
	// maxNoticeBytes bounds one log message's text: notices are one or two
	// sentences; a longer one is cut.
	maxNoticeBytes = 1 << 10
	// noticeLogger names this server as the source of its log messages.
	noticeLogger = "mattermost"
)

// levels is every level logging/setLevel takes, lowest first.
var levels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

func knownLevel(l mcp.LoggingLevel) bool {
	for _, k := range levels {
		if k == l {
			return true
		}
	}
	return false
}

// wantsNotice reports whether the client of the request in ctx asked for
// log messages at level: by logging/setLevel in its session, or by the
// request's _meta from 2026-07-28. A client that asked for none gets none.
func wantsNotice(ctx context.Context, level mcp.LoggingLevel) bool {
	want := mcp.LoggingLevel("")
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		want = info.LogLevel
	} else if rec := sessionFrom(ctx); rec != nil {
		want = mcp.LoggingLevel(rec.LogLevel)
	}
	return knownLevel(want) && level.ShouldSendTo(want)
}

// noticeMessage is the notifications/message a notice goes out as.
func noticeMessage(level mcp.LoggingLevel, text string) map[string]any {
	return map[string]any{"level": level, "logger": noticeLogger, "data": truncate(text, maxNoticeBytes)}
}

// Tell sends the client of the request in ctx a log message at level on
// the request's stream, when it asked for that level. text is a notice of
// the server (waiting, busy, refused), never content: no message text, no
// file contents, no file names. A client that cannot take it loses only it.
func Tell(ctx context.Context, level mcp.LoggingLevel, text string) {
	srv := server.ServerFromContext(ctx)
	if srv == nil || !wantsNotice(ctx, level) {
		return
	}
	// Not delivered only when the client went away or its stream is full.
	_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationMessage), noticeMessage(level, text))
}

// serveNotices serves what is the notices' part of a request: a GET
// stream, logging/setLevel (both answered here), and the bound on
// subscriptions/listen streams. It returns the context mcp-go serves the
// request in and what to run once it has; env's message becomes the one
// mcp-go is handed.
func (t *Transport) serveNotices(ctx context.Context, w http.ResponseWriter, r *http.Request, env *envelope) (context.Context, func(), bool) {
	method := env.method
	userID := callerIDFrom(ctx)
	rec := sessionFrom(ctx)
	mine := rec != nil && rec.UserID == userID
	switch {
	case t.servesStream(r, rec, userID):
		t.serveStream(ctx, w, rec)
		return ctx, nil, true
	case r.Method == http.MethodGet && mine && !t.streams():
		// 405 is how a server says it offers no stream (clients go on
		// without one); the text says why to a person reading a log.
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, noStream("hold a GET stream of notices", "every request works without one; list tools, prompts and resources again to see changes"), http.StatusMethodNotAllowed)
		return ctx, nil, true
	case r.Method == http.MethodPost && mine && method == string(mcp.MethodSetLogLevel):
		t.setLevel(w, rec, *env)
		return ctx, nil, true
	case r.Method == http.MethodPost && method == string(mcp.MethodSubscriptionsListen):
		if want, tasks := asksForTasks(*env); tasks && t.opts.Tasks != nil {
			t.serveTaskListen(ctx, w, r, userID, *env, want)
			return ctx, nil, true
		}
		listening, release, ok := t.holdListen(ctx, w, r, userID, env, true)
		return listening, release, !ok
	case r.Method == http.MethodDelete && mine:
		return ctx, func() { t.endStreams(userID, rec.ID) }, false
	}
	return ctx, func() {}, false
}

// setLevel answers logging/setLevel: the level is stored in the session
// record (one of eight names, so the record stays bounded).
func (t *Transport) setLevel(w http.ResponseWriter, rec *SessionRecord, env envelope) {
	var level mcp.LoggingLevel
	id := env.requestID()
	if json.Unmarshal(env.params.Level, &level) != nil || !knownLevel(level) {
		writeRPCError(w, http.StatusOK, id, mcp.INVALID_PARAMS, fmt.Sprintf(
			"Unknown log level %.40q: send logging/setLevel with one of %v.", level, levels))
		return
	}
	if !t.sessions.touch(rec) {
		http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
		return
	}
	// The record as stored now, so a concurrent change of it is kept.
	fresh, err := t.sessions.load(rec.ID)
	if err == nil && fresh == nil {
		http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
		return
	}
	if err == nil {
		fresh.LogLevel = string(level)
		err = t.sessions.save(fresh)
	}
	if err != nil {
		t.opts.Log.Error("Could not store an MCP session's log level", "user_id", rec.UserID, "error", err.Error())
		writeRPCError(w, http.StatusServiceUnavailable, id, mcp.INTERNAL_ERROR, "Mattermost could not store the log level just now: send logging/setLevel again in a moment.")
		return
	}
	t.opts.Log.Info("MCP request", "user_id", rec.UserID, "method", string(mcp.MethodSetLogLevel), "level", string(level))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{}}) // the client went away
}

// writeRefusal answers a tools/call the transport refuses itself, as
// writeToolError does, and, when the client asked for warnings, with a log
// message of the refusal before it: then the answer is an SSE stream of the
// two, as the client of a POST must accept.
func writeRefusal(w http.ResponseWriter, rec *SessionRecord, id json.RawMessage, text, notice string) {
	if rec == nil || !knownLevel(mcp.LoggingLevel(rec.LogLevel)) || !mcp.LoggingLevelWarning.ShouldSendTo(mcp.LoggingLevel(rec.LogLevel)) {
		writeToolError(w, id, text)
		return
	}
	res := mcp.NewToolResultError(text)
	res.ResultType = mcp.ResultTypeComplete
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, msg := range []any{
		map[string]any{"jsonrpc": "2.0", "method": string(mcp.MethodNotificationMessage), "params": noticeMessage(mcp.LoggingLevelWarning, notice)},
		map[string]any{"jsonrpc": "2.0", "id": id, "result": res},
	} {
		raw, err := json.Marshal(msg)
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", raw); err != nil {
			return // the client went away
		}
	}
}
