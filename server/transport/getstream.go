package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"

	"github.com/mark3labs/mcp-go/mcp"
)

// The standalone GET stream of a 2025-11-25 session carries only change
// notices, and the transport serves it itself rather than mcp-go: mcp-go
// would register the session in this node's memory, and a POST of that
// session reaching this node would then share its channels with the stream.
// Here the stream knows the session only by id; every request of the
// session is still served from its KV record by any node.

const (
	// streamHeartbeat is how often a quiet stream sends an SSE comment:
	// proxies close a response silent for a minute (nginx's default
	// proxy_read_timeout is 60 s).
	streamHeartbeat = 25 * time.Second
	// streamRecheck is how often an open stream reads its session record
	// again: a session ended on another node, or a person the admin no
	// longer lets connect, loses the stream within this.
	streamRecheck = time.Minute
)

// servesStream reports whether a GET is one this transport serves as a
// notice stream: a signed-in caller's own session, on a Mattermost that
// streams a plugin's responses. Any other GET goes to mcp-go, which
// refuses it as before.
func (t *Transport) servesStream(r *http.Request, rec *SessionRecord, userID string) bool {
	return r.Method == http.MethodGet && rec != nil && rec.UserID == userID && t.streams()
}

// serveStream holds a GET stream of the caller's session open, writing
// each change notice as it comes, until the client goes, the session
// ends, or the stream is ended to make room.
func (t *Transport) serveStream(ctx context.Context, w http.ResponseWriter, rec *SessionRecord) {
	if !t.sessions.touch(rec) {
		http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
		return
	}
	s, err := t.notices.open(rec.UserID, rec.ID, false)
	if errors.Is(err, errStreamsFull) {
		t.opts.Log.Warn("Refused an MCP notice stream: this node holds the most it may", "user_id", rec.UserID, "max_streams", maxStreamsPerNode)
		w.Header().Set("Retry-After", strconv.Itoa(int(streamsFullRetry/time.Second)))
		// 405 is how a server says it offers no stream, which clients take
		// in their stride; some end the whole session on a 5xx.
		http.Error(w, fmt.Sprintf("This Mattermost server holds %d notice streams, the most it may; everything else works without one. Open the stream again after Retry-After.", maxStreamsPerNode), http.StatusMethodNotAllowed)
		return
	}
	defer t.notices.close(s)
	// Notices for the session sent from other nodes come through this
	// node's inbox too (inbox.go).
	t.pollInbox()
	opened := time.Now()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	// A proxy that buffers (nginx does by default) would hold notices back.
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush := http.NewResponseController(w)
	if flush.Flush() != nil {
		return
	}
	t.opts.Log.Info("MCP notice stream opened", "user_id", rec.UserID, "streams", t.OpenStreams())
	reason := t.holdStream(ctx, w, flush, s, rec)
	t.opts.Log.Info("MCP notice stream closed", "user_id", rec.UserID, "reason", reason,
		"duration_s", int(time.Since(opened).Seconds()))
}

// holdStream is serveStream's loop; it returns why the stream ended.
func (t *Transport) holdStream(ctx context.Context, w io.Writer, flush *http.ResponseController, s *stream, rec *SessionRecord) string {
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	check := time.NewTicker(streamRecheck)
	defer check.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return "client_gone"
		case <-s.end:
			return "replaced_or_ended"
		case <-s.wake:
			err = writeNotices(w, s.take(), s.takeQueued())
		case <-beat.C:
			_, err = io.WriteString(w, ": keep-alive\n\n")
		case <-check.C:
			if why := t.streamStillOpen(rec); why != "" {
				return why
			}
			continue
		}
		if err == nil {
			err = flush.Flush()
		}
		if err != nil {
			return "write_failed"
		}
	}
}

// streamStillOpen is "" while the stream's session is open and its person
// may connect, else why not.
func (t *Transport) streamStillOpen(rec *SessionRecord) string {
	now, err := t.sessions.load(rec.ID)
	switch {
	case err != nil:
		return "" // the store is unwell: keep the stream, ask again later
	case now == nil || now.UserID != rec.UserID || !t.sessions.touch(now):
		return "session_ended"
	}
	if t.opts.Admits != nil {
		if v, err := t.opts.Admits(rec.UserID); err == nil && !v.Allowed {
			return "not_admitted"
		}
	}
	return ""
}

// writeNotices writes one SSE event per list changed, then each
// notification queued for the session, in one write: each write of a
// plugin's response is a round trip through Mattermost.
func writeNotices(w io.Writer, changed List, queued [][]byte) error {
	var b bytes.Buffer
	for _, l := range lists {
		if changed&l.list == 0 {
			continue
		}
		raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": l.method})
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "event: message\ndata: %s\n\n", raw)
	}
	for _, raw := range queued {
		fmt.Fprintf(&b, "event: message\ndata: %s\n\n", raw)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// streams reports whether this Mattermost streams a plugin's responses.
func (t *Transport) streams() bool { return t.opts.Streams != nil && t.opts.Streams() }

// noStream is the answer to a request for what only a stream held open can
// carry, on a Mattermost that delivers a plugin's responses whole: what
// cannot be done, which version can, and what to do instead.
func noStream(what, instead string) string {
	return fmt.Sprintf("This Mattermost delivers a plugin's responses whole, when they end, so this server cannot %s (Mattermost %s and later can): %s.",
		what, mattermost.FirstStreamingVersion, instead)
}

// holdListen counts a subscriptions/listen stream of a 2026-07-28 client
// against the same bounds as GET streams, and returns the context mcp-go
// serves it in, ended when the stream is ended to make room, with the
// function that uncounts it. ok is false when the node is full: then the
// request was answered. byMCPGo is a stream mcp-go serves, whose message
// (env's) is rewritten to acknowledge what was subscribed.
func (t *Transport) holdListen(ctx context.Context, w http.ResponseWriter, r *http.Request, userID string, env *envelope, byMCPGo bool) (context.Context, func(), bool) {
	if !t.streams() {
		writeRPCError(w, http.StatusOK, env.requestID(), mcp.METHOD_NOT_FOUND,
			noStream("hold a subscriptions/listen stream", "list tools, prompts and resources again to see changes, and poll a task with tasks/get"))
		return ctx, nil, false
	}
	s, err := t.notices.open(userID, listenIDPrefix+newTaskID(), true)
	if err != nil {
		t.opts.Log.Warn("Refused an MCP subscriptions/listen stream: this node holds the most it may", "user_id", userID, "max_streams", maxStreamsPerNode)
		w.Header().Set("Retry-After", strconv.Itoa(int(streamsFullRetry/time.Second)))
		writeRPCError(w, http.StatusServiceUnavailable, env.requestID(), sessionsInUseCode, fmt.Sprintf(
			"This Mattermost server holds %d notice streams, the most it may; every other request works without one. Listen again after Retry-After.", maxStreamsPerNode))
		return ctx, nil, false
	}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, listenStreamKey{}, s))
	go func() {
		select {
		case <-s.end:
			cancel()
		case <-ctx.Done():
		}
	}()
	closeListen := func() {}
	if byMCPGo {
		closeListen = t.openListen(ctx, s, env)
	} else if err := t.sessions.index.Set(listenKey(s.sessionID), []byte(t.sessions.nodeID()), listenLease); err == nil {
		// A stream the transport serves (tasklisten.go) is named too, so
		// notices from other nodes reach it.
		t.pollInbox()
		closeListen = func() { _ = t.sessions.index.Delete(listenKey(s.sessionID)) }
	}
	return ctx, func() { cancel(); t.notices.close(s); closeListen() }, true
}

// EndStreams ends every notice stream open on this node, and the reading
// of its inbox (the plugin stops); clients open them again on the next
// process.
func (t *Transport) EndStreams() {
	t.notices.endWhere(func(*stream) bool { return true })
	t.stopPolling()
}

// endStreams ends this node's streams of a session (ended by DELETE) or of
// a person (deactivated).
func (t *Transport) endStreams(userID, sessionID string) {
	t.notices.endWhere(func(s *stream) bool {
		return s.userID == userID && (sessionID == "" || s.sessionID == sessionID)
	})
}
