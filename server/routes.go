package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paths"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// routes are the plugin's HTTP routes under /plugins/<id>: the MCP endpoint
// and its sign-in metadata, the workspace's side channel, and the pages and
// API where the person answers a pending write.
func routes(manifestID string, gw *mattermost.Gateway, t *transport.Transport, ws *workspace.Store, approvals *approval.Approvals, conn *connect.Service,
	files *filerequest.Store, received func(context.Context, filerequest.Request, error), withheld func(tool string) string, current func() config.Configuration) *mux.Router {
	r := mux.NewRouter()
	// The side channel stands for the workspace toolset as a whole: its
	// URLs are handed out by several of its tools (package paths).
	workspaceOff := func() bool { return current != nil && !current().HasToolset(config.ToolsetWorkspace) }
	// The Origin rule holds on every route, also those added after this,
	// but the drop URL: a view sends a file there from its host's frame,
	// of any origin, and the URL is the only credential it takes.
	r.Use(func(next http.Handler) http.Handler {
		checked := t.CheckOrigins(next)
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if filerequest.IsDrop(req) {
				next.ServeHTTP(w, req)
				return
			}
			checked.ServeHTTP(w, req)
		})
	})
	// First, so that no route taking every method catches a preflight; the
	// drop URL answers its own, to any origin.
	r.Methods(http.MethodOptions).MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
		return transport.IsPreflight(req) && !filerequest.IsDrop(req)
	}).
		Handler(transport.Preflight(func(req *http.Request) []string { return routeMethods(r, req) }))
	r.HandleFunc(transport.MCPPath, noteClientSession(approvals, gw.Log(), t.ServeMCP)).Methods(http.MethodPost, http.MethodGet, http.MethodDelete)
	r.HandleFunc(transport.MetadataPath, t.ServeMetadata).Methods(http.MethodGet)
	r.HandleFunc(transport.MetadataPath+transport.MCPPath, t.ServeMetadata).Methods(http.MethodGet)
	(&workspace.Routes{Store: ws, Authenticate: t.Authenticate, Limit: t.LimitRequest, Log: gw.Log(), Off: workspaceOff}).Register(r)
	(&approval.Routes{Approvals: approvals, Base: "/plugins/" + manifestID, Log: gw.Log(),
		Session: func(r *http.Request) (mattermost.Session, error) {
			return gw.Session(transport.MattermostSession(r.Context()))
		},
		Location: func(userID string) *time.Location { return gw.As(userID).LocationNow() },
	}).Register(r)
	(&filerequest.Routes{Store: files, Workspace: ws, Log: gw.Log(), Received: received, Admits: t.Admitted,
		Withheld: func() string {
			if withheld == nil {
				return ""
			}
			return withheld(paths.FileRequest)
		},
		Person: func(r *http.Request, userID, csrf string) error {
			session, err := gw.Session(transport.MattermostSession(r.Context()))
			if errors.Is(err, mattermost.ErrNotFound) {
				return filerequest.ErrNotThePerson
			}
			if err != nil {
				return err
			}
			err = approvals.ThePerson(userID, approval.Answerer{Session: session, CSRF: csrf})
			if errors.Is(err, approval.ErrNotThePerson) {
				return filerequest.ErrNotThePerson
			}
			return err
		}}).Register(r)
	(&connect.Routes{Service: conn, Log: gw.Log(), Person: func(r *http.Request) (string, error) {
		return thePerson(gw, approvals, r)
	}}).Register(r)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Not found. The MCP endpoint is /plugins/"+manifestID+transport.MCPPath, http.StatusNotFound)
	})
	return r
}

// thePerson is the request's Mattermost session when it is the person's own
// interactive session with its CSRF token, by the rule answers to pending
// writes follow (approval.ThePerson); else connect.ErrNotThePerson.
func thePerson(gw *mattermost.Gateway, approvals *approval.Approvals, r *http.Request) (string, error) {
	session, err := gw.Session(transport.MattermostSession(r.Context()))
	if errors.Is(err, mattermost.ErrNotFound) {
		return "", connect.ErrNotThePerson
	}
	if err != nil {
		return "", err
	}
	err = approvals.ThePerson(r.Header.Get("Mattermost-User-Id"), approval.Answerer{Session: session, CSRF: r.Header.Get("X-CSRF-Token")})
	if errors.Is(err, approval.ErrNotThePerson) {
		return "", connect.ErrNotThePerson
	}
	return session.ID, err
}

// noteClientSession notes the Mattermost session of every authenticated
// /mcp request as one of the person's MCP clients, which never answer their
// pending writes (approval.NoteClientSession). Mattermost sets
// Mattermost-User-Id only after checking the request's token. A session
// that cannot be noted is not served: it could otherwise answer.
func noteClientSession(approvals *approval.Approvals, log mattermost.Logger, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		userID := r.Header.Get("Mattermost-User-Id")
		if err := approvals.NoteClientSession(userID, transport.MattermostSession(r.Context())); err != nil {
			log.Error("Could not note an MCP client's Mattermost session", "user_id", userID, "error", err.Error())
			http.Error(w, "Mattermost could not record this MCP client's session; try again shortly.", http.StatusServiceUnavailable)
			return
		}
		next(w, r)
	}
}

// routeMethods are the methods a route of r takes at req's path, as a
// preflight names them.
func routeMethods(r *mux.Router, req *http.Request) []string {
	var methods []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := req.Clone(req.Context())
		probe.Method = m
		var match mux.RouteMatch
		if r.Match(probe, &match) && match.MatchErr == nil {
			methods = append(methods, m)
		}
	}
	return methods
}
