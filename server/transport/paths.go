package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paths"
)

// The methods that are not tool calls pass the decision of the tools they
// stand for (package paths). The transport answers only the methods named
// there, counts the rated ones, and refuses a file transfer whose tools
// are withheld, recording it as the tool would be recorded.

// methodNamed refuses a request of a method no path names: a method
// mcp-go or a concern here starts to answer is reached only once it is
// named with what it stands for. Answers and notifications pass.
func (t *Transport) methodNamed(m *inbound) bool {
	if m.env.answer || m.env.id == nil || m.env.method == "" {
		return true
	}
	if _, ok := paths.Of(m.env.method); ok {
		return true
	}
	writeRPCError(m.w, errorStatus(m.r, m.env, mcp.METHOD_NOT_FOUND), m.env.requestID(), mcp.METHOD_NOT_FOUND, fmt.Sprintf(
		"Method not found: %.64q is not a method of this server. initialize lists its capabilities; tools/list, prompts/list and resources/list list what it offers.", m.env.method))
	m.logged(t.opts.Log.Debug, http.StatusOK, "unknown_method", true)
	return false
}

// errorStatus is the HTTP status of a JSON-RPC error the transport answers
// itself: 2026-07-28 maps error codes onto HTTP statuses, as mcp-go answers
// its own, so intermediaries act without reading the body; earlier
// revisions answer every error 200.
func errorStatus(r *http.Request, env envelope, code int) int {
	if !isModern(r, env) {
		return http.StatusOK
	}
	return ModernErrorStatus(code)
}

// ModernErrorStatus is the HTTP status 2026-07-28 answers a JSON-RPC error
// code with.
func ModernErrorStatus(code int) int {
	switch code {
	case mcp.METHOD_NOT_FOUND:
		return http.StatusNotFound
	case mcp.INVALID_PARAMS, mcp.INVALID_REQUEST, mcp.PARSE_ERROR:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// rated is whether a method (not tools/call, which counts its own) counts
// against the person's rate as one tool call.
func rated(method string) bool {
	p, ok := paths.Of(method)
	return ok && p.Rated
}

// standsFor is the tools a file transfer request stands for: by its path,
// and for a download by the kind of file its URI names (a URI that names
// nothing stands for the workspace's files_presign, the least it could).
func standsFor(p paths.Path, params json.RawMessage) []string {
	if p.By != paths.FileURIKind {
		return p.Tools
	}
	var q struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(params, &q) // a malformed request is the service's to refuse
	if ref, err := filetransfer.ParseURI(q.URI); err == nil && ref.Kind == filetransfer.KindAttachment {
		return paths.Attachment
	}
	return paths.Workspace
}

// withheld is why one of tools is not offered to the connection of ctx,
// "" when all are.
func (t *Transport) withheld(ctx context.Context, tools []string) string {
	if t.opts.NotOffered == nil {
		return ""
	}
	for _, tool := range tools {
		if why := t.opts.NotOffered(ctx, tool); why != "" {
			return why
		}
	}
	return ""
}

// refuseWithheldFiles answers a file transfer request whose tools the
// admin's settings or the connection's choice withhold, before anything
// is read or copied, and records the refusal as the tool's kind in the
// audit trail. It reports whether it answered.
func (t *Transport) refuseWithheldFiles(m *inbound) bool {
	p, ok := paths.Of(m.env.method)
	if !ok {
		return false
	}
	tools := standsFor(p, m.env.rawParams())
	why := t.withheld(m.ctx, tools)
	if why == "" {
		return false
	}
	if p.Audit != "" {
		ev := audit.Event{At: t.now(), Kind: p.Audit, UserID: m.userID, Tool: m.env.method,
			Outcome: audit.OutcomeRefused, Reason: "not_offered"}
		if rec := m.session(); rec != nil {
			ev.ClientName, ev.ClientVersion = rec.ClientName, rec.ClientVersion
		}
		t.recorder().Record(ev)
	}
	writeRPCErrorData(m.w, errorStatus(m.r, m.env, mcp.METHOD_NOT_FOUND), m.env.requestID(), mcp.METHOD_NOT_FOUND, fmt.Sprintf(
		"%s is not offered here: it moves what %s would, and %s", m.env.method, strings.Join(tools, " then "), why),
		map[string]any{"reason": "notOffered", "tools": tools})
	m.logged(t.opts.Log.Info, http.StatusOK, "outcome", "not_offered")
	return true
}
