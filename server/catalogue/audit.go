package catalogue

import (
	"context"
	"regexp"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// idForm is a Mattermost id: the only argument values an audit entry keeps.
var idForm = regexp.MustCompile(`^[a-z0-9]{26}$`)

// maxArgumentTargets bounds the ids taken from one call's arguments (a
// tool takes two or three).
const maxArgumentTargets = 6

// Audited is the middleware that records, for every tool by its Effect,
// what the audit trail keeps of a call: a change to the person's own view
// (ChangesOwnView) with its outcome and the ids among its arguments; and,
// for every call, that the person used MCP with this client today (used;
// nil: not counted). Writes others see are recorded by the approval path,
// which knows their steps.
func (c *Catalogue) Audited(rec audit.Recorder, used func(userID, client string)) server.ToolHandlerMiddleware {
	if rec == nil {
		rec = audit.Nop{}
	}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			userID := transport.CallerID(ctx)
			client := transport.Client(ctx)
			if used != nil && userID != "" {
				used(userID, client.Name)
			}
			t, ok := c.byName[req.Params.Name]
			if !ok || t.Effect != ChangesOwnView {
				return next(ctx, req)
			}
			res, err := next(ctx, req)
			outcome := audit.OutcomeDone
			switch {
			case err != nil:
				outcome = audit.OutcomeFailed
			case res != nil && res.IsError:
				outcome = audit.OutcomeRefused
			}
			rec.Record(audit.Event{Kind: audit.KindOwnView, UserID: userID, ClientName: client.Name, ClientVersion: client.Version,
				Tool: t.Name, Targets: argumentIDs(req.GetArguments()), Outcome: outcome})
			return res, err
		}
	}
}

// argumentIDs are the arguments whose values are Mattermost ids, by name:
// names and texts stay out.
func argumentIDs(args map[string]any) map[string]string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := args[k].(string); ok && idForm.MatchString(v) && len(out) < maxArgumentTargets {
			out[k] = v
		}
	}
	return out
}
