package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
	"github.com/mattermost/mattermost/server/public/plugin"

	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// routesSeen is a router whose every route records the request it got.
func routesSeen(got *[]string) *mux.Router {
	r := mux.NewRouter()
	r.PathPrefix("/").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = append(*got, r.URL.Path+" session="+transport.MattermostSession(r.Context()))
		w.WriteHeader(http.StatusOK)
	})
	return r
}

func TestARequestFromAnotherPluginReachesNoRoute(t *testing.T) {
	var got []string
	routes := routesSeen(&got)
	for _, path := range []string{"/mcp", "/confirm/0123/accept", "/api/v1/confirmations", "/api/v1/files", "/files/d/tok", "/.well-known/oauth-protected-resource"} {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		req.Header.Set("Mattermost-Plugin-ID", "some-other-plugin")
		req.Header.Set("Mattermost-User-Id", "alice")
		w := httptest.NewRecorder()
		serve(routes, &plugin.Context{SessionId: "s1"}, w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("%s: %d", path, w.Code)
		}
	}
	if len(got) != 0 {
		t.Fatalf("routes were reached: %v", got)
	}
}

func TestEveryRouteLearnsTheMattermostSessionOfItsRequest(t *testing.T) {
	var got []string
	routes := routesSeen(&got)
	serve(routes, &plugin.Context{SessionId: "s1"}, httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/confirm/x", nil))
	serve(routes, nil, httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if len(got) != 2 || got[0] != "/confirm/x session=s1" || got[1] != "/mcp session=" {
		t.Fatalf("routes saw %v", got)
	}
}
