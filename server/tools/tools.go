// Package tools defines every MCP tool the plugin offers, as catalogue data.
// Handlers reach Mattermost only through a Caller bound to the signed-in user.
package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Deps is what the tools need from the plugin.
type Deps struct {
	MM     *mattermost.Gateway
	Config func() config.Configuration
	// Workspace is every user's file workspace; tools reach only the
	// caller's own.
	Workspace *workspace.Store
	// URLs builds the workspace's presigned download and upload URLs.
	URLs workspace.URLs
	// Approvals stage, ask, carry out and keep every write the person must
	// say yes to.
	Approvals *approval.Approvals
	// Conversions is the process's memory for reading files; every read
	// takes its share before fetching or decoding (see files.go).
	Conversions *budget.Budget
	// Views keeps the whole text of files already converted, so paging a
	// long file converts it once (nil: every window converts).
	Views *viewcache.Cache
	// Files keeps the files asked of the person (request_file), and
	// FilePageURL is the page where they give one.
	Files *filerequest.Store
	// Wake wakes a wait held here when what it waits for happened on any
	// node (a reply posted, a file given); nil: waits look every
	// wake.SafetyLook alone.
	Wake        *wake.Hub
	FilePageURL func(id string) string
	// Audit records every presigned URL and upload handle handed out (nil:
	// none).
	Audit audit.Recorder
	// Withheld is why the tool called name is not offered to the
	// connection of ctx (catalogue.Why: a clause, such as "the admin left
	// this tool out ..."), "" when it is: what a tool that stands for
	// others (search, fetch: package paths) asks before it reads what they
	// would. nil: every tool is offered.
	Withheld func(ctx context.Context, tool string) string
	// callerOf is who a call comes from; nil is transport.CallerID (tests
	// and benches name the person directly).
	callerOf func(context.Context) string
}

// withheld is why tool is not offered to the connection of ctx, or "".
func (d Deps) withheld(ctx context.Context, tool string) string {
	if d.Withheld == nil {
		return ""
	}
	return d.Withheld(ctx, tool)
}

var errNoCaller = errors.New("no signed-in Mattermost user on this request")

// caller is Mattermost as seen by the user Mattermost authenticated. It never
// comes from an argument.
func (d Deps) caller(ctx context.Context) (*mattermost.Caller, error) {
	callerOf := d.callerOf
	if callerOf == nil {
		callerOf = transport.CallerID
	}
	id := callerOf(ctx)
	if id == "" {
		return nil, errNoCaller
	}
	return d.MM.AsSession(id, transport.MattermostSession(ctx)), nil
}

// limitOf is a page size argument: def when left out, else it must be within
// 1 and max, or the answer is a refusal that says so.
func limitOf(given, def, max int) (int, error) {
	if given == 0 {
		return def, nil
	}
	if given < 1 || given > max {
		return 0, &refusal.Error{What: fmt.Sprintf("limit must be between 1 and %d (default %d).", max, def), Next: "Call again with a limit in that range."}
	}
	return given, nil
}

// answer is a tool's answer: text for the model and the same facts as
// structured content.
func answer[Out any](text string, data Out) (catalogue.Result[Out], error) {
	return catalogue.Result[Out]{Text: text, Data: data}, nil
}
