package transport

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Resources. mcp-go answers a resource handler's error as an internal error
// (-32603) and lists only resources registered up front, while a resource
// the person cannot read must be "not found" (-32002, or -32602 from
// 2026-07-28, as mcp-go itself answers a URI of no template) and
// resources/list is each person's own. So the transport reads and lists
// before mcp-go sees the request, as it refuses tool calls (call.go):
// a refusal it answers itself; what it read travels with the request, and
// mcp-go answers with it in the form of the request's protocol.

// Resources reads and lists the signed-in person's resources.
type Resources interface {
	// Read reads uri; an error wrapping ErrResourceNotFound says why the
	// person cannot read it, with the next step.
	Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error)
	// List is the page of resources at cursor and the next cursor; an
	// error wrapping ErrBadResourceCursor is a cursor it did not make.
	List(ctx context.Context, cursor string) ([]mcp.Resource, string, error)
	// Templates are the URI templates offered now to the connection of ctx.
	Templates(ctx context.Context) []string
}

// ErrResourceNotFound is a resource the person cannot read or that is not
// there, never told apart.
var ErrResourceNotFound = errors.New("resource not found")

// ResourceNotFound is ErrResourceNotFound with the message the client
// reads: why, and the next step.
type ResourceNotFound struct{ Message string }

func (e *ResourceNotFound) Error() string { return e.Message }

// Is makes a ResourceNotFound an ErrResourceNotFound.
func (e *ResourceNotFound) Is(target error) bool { return target == ErrResourceNotFound }

// ErrBadResourceCursor is a resources/list cursor the server did not make.
var ErrBadResourceCursor = errors.New("bad cursor")

// rateLimitedCode is the JSON-RPC error of a request of a rated method over
// the person's rate: a server error at a bound, as sessionsInUseCode.
const rateLimitedCode = -32000

type resourceAnswerKey struct{}

// resourceAnswer is what the transport read or listed for the request.
type resourceAnswer struct {
	contents []mcp.ResourceContents
	listed   []mcp.Resource
	next     string
}

// ReadResource is the mcp-go handler of every resource template: it hands
// over what the transport read for this request.
func ReadResource(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	if a, ok := ctx.Value(resourceAnswerKey{}).(*resourceAnswer); ok && a.contents != nil {
		return a.contents, nil
	}
	return nil, errors.New("this resource was not read: the transport serves resources")
}

// carryResourceAnswer puts what the transport read for the request r onto
// the context mcp-go serves it with.
func carryResourceAnswer(ctx context.Context, r *http.Request) context.Context {
	if a, ok := r.Context().Value(resourceAnswerKey{}).(*resourceAnswer); ok {
		return context.WithValue(ctx, resourceAnswerKey{}, a)
	}
	return ctx
}

// resourceHooks let mcp-go's lists show what the transport decided: the
// person's page of resources, and only the templates offered now.
func (t *Transport) resourceHooks(hooks *server.Hooks) {
	hooks.AddAfterListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		if a, ok := ctx.Value(resourceAnswerKey{}).(*resourceAnswer); ok && res != nil {
			res.Resources, res.NextCursor = a.listed, mcp.Cursor(a.next)
		}
	})
	hooks.AddAfterListResourceTemplates(func(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		if t.opts.Resources == nil || res == nil {
			return
		}
		offered := t.opts.Resources.Templates(ctx)
		kept := res.ResourceTemplates[:0:0]
		for _, tpl := range res.ResourceTemplates {
			if tpl.URITemplate != nil && slices.Contains(offered, tpl.URITemplate.Raw()) {
				kept = append(kept, tpl)
			}
		}
		res.ResourceTemplates = kept
	})
}

// serveResource reads or lists for a resources/read or resources/list
// request before mcp-go answers it. It answers a refusal itself and reports
// handled; otherwise it returns the context carrying what it read.
func (t *Transport) serveResource(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope) (context.Context, bool) {
	method := env.method
	res := t.opts.Resources
	if res == nil || method != string(mcp.MethodResourcesRead) && method != string(mcp.MethodResourcesList) {
		return ctx, false
	}
	if r.Header.Get(server.HeaderKeySessionID) != "" && sessionFrom(ctx) == nil {
		return ctx, false // mcp-go's 404 tells the client to initialize again
	}
	if env.paramsMalformed {
		return ctx, false // mcp-go answers a malformed request
	}
	if !env.metaIsObject() {
		return ctx, false // mcp-go answers a _meta that is no object
	}
	id := env.requestID()
	userID := callerIDFrom(ctx)
	// Who reads is known to Resources as to a tool (Client): by the
	// session, or by the request's own _meta without one.
	if rec := sessionFrom(ctx); rec != nil {
		ctx = withClient(ctx, rec)
	} else if ci, ok := env.clientInfo(); ok {
		ctx = context.WithValue(ctx, clientKey{}, ClientInfo{Name: truncate(ci.Name, maxClientNameBytes), Version: truncate(ci.Version, maxClientVersionBytes)})
	}
	a := &resourceAnswer{}
	if method == string(mcp.MethodResourcesList) {
		listed, next, err := res.List(ctx, env.params.Cursor)
		switch {
		case errors.Is(err, ErrBadResourceCursor):
			writeRPCError(w, http.StatusOK, id, mcp.INVALID_PARAMS, err.Error())
			return ctx, true
		case err != nil:
			t.opts.Log.Error("Could not list a person's resources", "user_id", userID, "error", err.Error())
			writeRPCError(w, http.StatusOK, id, mcp.INTERNAL_ERROR, "Mattermost could not list your resources just now; try again shortly.")
			return ctx, true
		}
		a.listed, a.next = listed, next
		return context.WithValue(ctx, resourceAnswerKey{}, a), false
	}
	if env.params.URI == "" {
		return ctx, false // mcp-go answers "uri is required"
	}
	contents, err := res.Read(ctx, env.params.URI)
	switch {
	case errors.Is(err, ErrResourceNotFound):
		code := mcp.RESOURCE_NOT_FOUND
		if mcp.IsModernProtocol(env.metaProtocolVersion()) {
			code = mcp.INVALID_PARAMS // as 2026-07-28 answers a missing resource
		}
		t.opts.Log.Info("MCP resource read", "user_id", userID, "outcome", "not_found")
		// data.uri names what was asked for, as both revisions' example of
		// a missing resource has it.
		writeRPCErrorData(w, http.StatusOK, id, code, err.Error(), map[string]string{"uri": env.params.URI})
		return ctx, true
	case err != nil:
		t.opts.Log.Error("Could not read a resource", "user_id", userID, "error", err.Error())
		writeRPCError(w, http.StatusOK, id, mcp.INTERNAL_ERROR, "Mattermost could not read this resource just now; try again shortly.")
		return ctx, true
	}
	a.contents = contents
	return context.WithValue(ctx, resourceAnswerKey{}, a), false
}
