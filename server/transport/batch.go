package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC batches. MCP 2025-03-26 requires a server to take a JSON array
// of messages in one POST; 2025-06-18 removed batches again. mcp-go's
// streamable HTTP server reads every body as one message and answers an
// array -32700 "request body is not valid json", so the transport splits a
// batch of a session that may send one into its messages, serves each as
// the POST it would have been (sessions, answers, questions and logs
// alike), and answers them together.

// maxBatchMessages bounds one batch: its messages run at once, each as the
// request it would have been, so a batch may not stand in for more requests
// than a client would sensibly have in flight.
const maxBatchMessages = 32

// batchVersions are the protocol revisions whose JSON-RPC includes batches.
var batchVersions = []string{mcp.ProtocolVersion20250326, mcp.ProtocolVersion20241105}

// isBatch tells a JSON array from anything else.
func isBatch(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '['
}

// serveBatch answers a JSON-RPC batch: on a session of a revision with
// batches, every message in it; otherwise -32600 saying how to send them.
func (t *Transport) serveBatch(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte) {
	rec := sessionFrom(ctx)
	if r.Header.Get("Mcp-Session-Id") != "" && rec == nil {
		http.Error(w, "Unknown MCP session: initialize a new one.", http.StatusNotFound)
		return
	}
	if rec == nil || !batchAllowed(rec.ProtocolVersion) {
		speaks := "this request belongs to no MCP session"
		if rec != nil {
			speaks = "this session speaks " + rec.ProtocolVersion
		}
		writeRPCError(w, http.StatusBadRequest, json.RawMessage("null"), mcp.INVALID_REQUEST, fmt.Sprintf(
			"This request is a JSON-RPC batch (a JSON array); batches belong to MCP protocol %s only, and %s. Send each message in a request of its own.",
			mcp.ProtocolVersion20250326, speaks))
		return
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &msgs); err != nil {
		writeRPCError(w, http.StatusBadRequest, json.RawMessage("null"), mcp.PARSE_ERROR,
			"This batch is not valid JSON: send a JSON array of JSON-RPC messages.")
		return
	}
	switch {
	case len(msgs) == 0:
		writeRPCError(w, http.StatusBadRequest, json.RawMessage("null"), mcp.INVALID_REQUEST,
			"This batch is empty: send at least one JSON-RPC message in it.")
		return
	case len(msgs) > maxBatchMessages:
		writeRPCError(w, http.StatusBadRequest, json.RawMessage("null"), mcp.INVALID_REQUEST, fmt.Sprintf(
			"This batch holds %d messages; one batch holds at most %d. Send the rest in further requests.", len(msgs), maxBatchMessages))
		return
	}

	answers := make([][]json.RawMessage, len(msgs))
	var wg sync.WaitGroup
	for i, msg := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = t.serveInBatch(ctx, r, rec, msg)
		}()
	}
	wg.Wait()
	var out []json.RawMessage
	for _, a := range answers {
		out = append(out, a...)
	}
	if len(out) == 0 {
		// Only notifications and answers: nothing to say (spec: 202).
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	raw, err := json.Marshal(out)
	if err != nil {
		t.opts.Log.Error("Could not write the answer to a JSON-RPC batch", "user_id", rec.UserID, "error", err.Error())
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(raw)
}

func batchAllowed(version string) bool { return slices.Contains(batchVersions, version) }

// serveInBatch serves one message of a batch as the POST it would have
// been, and returns the JSON-RPC responses it produced (none for a
// notification or an answer). Notifications sent while it runs (progress,
// logs) have no place in a batch's JSON answer and are left out.
func (t *Transport) serveInBatch(ctx context.Context, r *http.Request, rec *SessionRecord, msg json.RawMessage) []json.RawMessage {
	env := parseEnvelope(msg)
	if env.method == string(mcp.MethodInitialize) {
		return []json.RawMessage{rpcErrorJSON(env.requestID(), mcp.INVALID_REQUEST,
			"initialize cannot be part of a JSON-RPC batch: send it alone, then use the session it opens.")}
	}
	// Each message marks its own copy of the session as seen.
	own := *rec
	req := r.Clone(withSession(ctx, &own))
	cw := &captureWriter{header: http.Header{}, status: http.StatusOK}
	t.serveMessage(req.Context(), cw, req, env, time.Now())
	return cw.responses(env.requestID())
}

// rpcErrorJSON is one JSON-RPC error response.
func rpcErrorJSON(id json.RawMessage, code int, message string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return raw
}

// captureWriter takes what mcp-go answers one message of a batch.
type captureWriter struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(code int) {
	if !c.wrote {
		c.status, c.wrote = code, true
	}
}

func (c *captureWriter) Write(b []byte) (int, error) {
	c.wrote = true
	return c.body.Write(b)
}

// responses are the JSON-RPC responses in what was captured: the JSON
// answer, or the responses among the events of a stream; an HTTP error
// (a plain-text refusal) becomes a JSON-RPC error naming it.
func (c *captureWriter) responses(id json.RawMessage) []json.RawMessage {
	switch {
	case c.status == http.StatusAccepted:
		return nil
	case strings.HasPrefix(c.header.Get("Content-Type"), "text/event-stream"):
		var out []json.RawMessage
		for _, event := range strings.Split(c.body.String(), "\n\n") {
			var data []string
			for _, line := range strings.Split(event, "\n") {
				if d, ok := strings.CutPrefix(line, "data:"); ok {
					data = append(data, strings.TrimPrefix(d, " "))
				}
			}
			if msg := json.RawMessage(strings.Join(data, "\n")); isResponse(msg) {
				out = append(out, msg)
			}
		}
		return out
	case strings.HasPrefix(c.header.Get("Content-Type"), "application/json"):
		if msg := json.RawMessage(bytes.TrimSpace(c.body.Bytes())); json.Valid(msg) {
			return []json.RawMessage{msg}
		}
	}
	if c.status >= http.StatusBadRequest {
		return []json.RawMessage{rpcErrorJSON(id, mcp.INVALID_REQUEST, strings.TrimSpace(c.body.String()))}
	}
	return nil
}

// isResponse tells a JSON-RPC response from a notification or a request.
func isResponse(msg json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == "" && len(m.ID) > 0
}
