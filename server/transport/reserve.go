package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// An initialize counts the session it opens before mcp-go answers it, and
// ends it when nothing was stored; the copy mcp-go keeps is dropped.

// sessionsInUseCode is the JSON-RPC error of an initialize refused while
// every session of the person is in use: the first of JSON-RPC's
// implementation-defined server errors, since the server is at a bound,
// not broken (-32603) and the request is not malformed (-32600).
const sessionsInUseCode = -32000

// reserveSession counts the session an initialize opens before mcp-go
// answers it, so that a person whose every session is in use is refused
// before a session id is handed out: with 503, Retry-After and a JSON-RPC
// error saying why and what to do.
func (t *Transport) reserveSession(w http.ResponseWriter, userID string, id json.RawMessage) (*reservation, bool) {
	sessionID, release, err := t.sessions.open(userID)
	var full *errSessionsInUse
	switch {
	case errors.As(err, &full):
		retry := max(1, int((full.RetryAfter+time.Second-1)/time.Second))
		t.opts.Log.Warn("Refused a new MCP session: all of the person's sessions are in use", "user_id", userID,
			"max_sessions", MaxSessionsPerPerson, "retry_after_seconds", retry)
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		writeRPCError(w, http.StatusServiceUnavailable, id, sessionsInUseCode, fmt.Sprintf(
			"No new MCP session now: you have %d MCP sessions open, the most one person may keep, and every one is in use right now (a request of it is being answered, a call of it waits for you, or its stream is open); none was ended, because a session in use is never ended to make room. Try again in %d seconds (Retry-After), or end sessions you no longer use (an HTTP DELETE of /mcp with their Mcp-Session-Id).",
			MaxSessionsPerPerson, retry))
		return nil, false
	case err != nil:
		t.opts.Log.Error("Could not count a new MCP session among the person's sessions", "user_id", userID, "error", err.Error())
		w.Header().Set("Retry-After", "1")
		writeRPCError(w, http.StatusServiceUnavailable, id, mcp.INTERNAL_ERROR,
			"Mattermost could not open your MCP session just now: initialize again in a moment.")
		return nil, false
	}
	return &reservation{id: sessionID, release: release}, true
}

// releaseUnstored ends the initialize's hold of its session and then ends
// the session when no record was stored (mcp-go refused it, or the store
// failed): its client never learned a usable id.
func (t *Transport) releaseUnstored(userID string, held *reservation) {
	held.release()
	if held.stored.Load() {
		return
	}
	if err := t.sessions.close(userID, held.id); err != nil {
		t.opts.Log.Warn("Could not uncount a failed MCP initialize; it leaves the index when idle", "user_id", userID, "error", err.Error())
	}
}

// forgetHere drops this process's copy of a session mcp-go keeps after
// initialize. Every request is served from the session's KV record on any
// node (restore), exactly as on a node that never saw the initialize, so
// the copy only held memory: one per initialize, for the life of the
// process. A DELETE from no caller and without a session record ends
// nothing in the KV store (Terminate finds no record of the caller's) and
// clears mcp-go's state.
func (t *Transport) forgetHere(id string) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, MCPPath, nil)
	if err != nil {
		t.opts.Log.Warn("Could not drop this node's copy of an MCP session", "error", err.Error())
		return
	}
	req.Header.Set(server.HeaderKeySessionID, id)
	t.http.ServeHTTP(&discardWriter{header: http.Header{}, status: http.StatusOK}, req)
}
