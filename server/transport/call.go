package transport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The tools/call being served travels with its context: the transport's
// part of a request, as the Mattermost session and the cancellation are.
// The catalogue puts it there when it decodes a call; approval and the
// tools read it.

type callKey struct{}
type progressKey struct{}

// Call is what a handler may need of the request beyond its arguments: which
// tool it is, a digest of the arguments exactly as sent, the answers of a
// multi-round-trip retry (empty on a first call), and when the call began
// (a call that waits counts its bound from there).
type Call struct {
	Tool      string
	Arguments string
	RoundTrip mcp.MultiRoundTripParams
	Started   time.Time
}

// WithCall is ctx carrying the call req to tool, begun at started, and its
// progress token when the client sent one.
func WithCall(ctx context.Context, tool string, req mcp.CallToolRequest, started time.Time) context.Context {
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		ctx = context.WithValue(ctx, progressKey{}, req.Params.Meta.ProgressToken)
	}
	return context.WithValue(ctx, callKey{}, Call{Tool: tool, Arguments: argumentsDigest(req), RoundTrip: req.Params.MultiRoundTripParams, Started: started})
}

// CallOf is the tool call being handled.
func CallOf(ctx context.Context) Call {
	c, _ := ctx.Value(callKey{}).(Call)
	return c
}

// ProgressToken is the call's progress token, nil when the client sent
// none (then no progress notifications may be sent).
func ProgressToken(ctx context.Context) mcp.ProgressToken {
	return ctx.Value(progressKey{})
}

// Progress sends the call's client a progress notification, when it sent
// a progress token (else nothing): progress out of total, with a message.
// A client that cannot take it loses only the notice (the error says so).
func Progress(ctx context.Context, progress, total int, message string) error {
	tok := ProgressToken(ctx)
	srv := server.ServerFromContext(ctx)
	if tok == nil || srv == nil {
		return nil
	}
	return srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
		"progressToken": tok, "progress": progress, "total": total, "message": message,
	})
}

// argumentsDigest is a sha256 of the arguments as canonical JSON (maps
// marshal with sorted keys), so a retry can be bound to the very arguments a
// question was asked about.
func argumentsDigest(req mcp.CallToolRequest) string {
	raw, err := json.Marshal(req.GetArguments())
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// refuseCall answers a tools/call the transport refuses before mcp-go sees
// it: a person over their rate (rate.go), or a tool the configuration does
// not offer, with the reason and the next step. It reports whether it
// answered. A call in an unknown session is left to mcp-go, whose 404 tells
// the client to initialize again.
func (t *Transport) refuseCall(m *inbound) bool {
	if m.unknownSession() {
		return false
	}
	rec, tool, userID := m.session(), m.env.tool, m.userID
	if t.refuseFastCall(m.w, userID, tool, m.env.requestID(), rec) {
		return true
	}
	if t.opts.NotOffered == nil {
		return false
	}
	why := t.opts.NotOffered(m.ctx, tool)
	if why == "" {
		return false
	}
	t.opts.Log.Info("MCP tool call", "user_id", userID, "tool", truncate(tool, 64), "outcome", "not_offered")
	writeRefusal(m.w, rec, m.env.requestID(), why, fmt.Sprintf("The admin's settings or this connection's choice do not offer the tool %.64q, so the call was refused without running it.", tool))
	return true
}

// logToolCall logs every tool call at debug: who, which tool, how long, how it ended.
// Never arguments or results: they carry file contents and messages.
func (t *Transport) logToolCall(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started := time.Now()
		res, err := next(ctx, req)
		outcome := "ok"
		switch {
		case err != nil:
			outcome = "failed"
			t.opts.Log.Error("MCP tool failed", "user_id", CallerID(ctx), "tool", req.Params.Name, "error", err.Error())
			// The model gets a usable answer rather than a protocol error.
			res, err = mcp.NewToolResultError(fmt.Sprintf(
				"%s failed inside Mattermost. Try again; if it keeps failing, tell the person and ask them to check the Mattermost server log.", req.Params.Name)), nil
		case res != nil && res.NeedsInput():
			outcome = "asked"
		case res != nil && res.IsError:
			outcome = "refused"
		}
		if task := TaskOf(ctx); task != nil {
			task.answered(res)
		}
		// At debug, as Mattermost logs its own API calls: the audit trail
		// keeps who used which tool, and failures are logged above.
		t.opts.Log.Debug("MCP tool call", "user_id", CallerID(ctx), "tool", req.Params.Name,
			"duration_ms", time.Since(started).Milliseconds(), "outcome", outcome)
		return res, err
	}
}
