package filerequest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
)

// The drop URL: where the upload view (ui://mattermost/upload) sends the
// person's file from the MCP client's chat. A host runs the view in a
// sandboxed frame of its own origin (often "null"), which has no
// Mattermost session and must not get one, so here the URL is the whole
// credential: it names the person and the request, and holds the
// request's secret. It takes a PUT of the raw file (name in X-File-Name,
// percent-encoded; its size in X-File-Size, or at least Content-Length)
// from any origin, answers CORS with "*" and never with
// credentials, and refuses a request that carries a Mattermost credential:
// nothing here acts as whoever a cookie or token names. It takes one file,
// while the request waits; a refused attempt stores nothing and may be
// tried again.
const DropPath = "/drop"

const dropRoute = DropPath + "/{user:[a-z0-9]{26}}/{id:[0-9a-f]{32}}/{key:[0-9a-f]{64}}"

// dropMaxAge is how long a browser may reuse the drop URL's preflight: as
// long as a request lives.
const dropMaxAge = Lifetime

// DropURL is req's drop URL under the plugin's URL, or "" for a request
// read back from the store, which keeps only the key's hash: the URL is
// told once, in the answer that created the request.
func DropURL(pluginURL string, req Request) string {
	if req.DropKey == "" {
		return ""
	}
	return pluginURL + DropPath + "/" + req.UserID + "/" + req.ID + "/" + req.DropKey
}

// IsDrop reports whether r is for a drop URL, which answers any origin
// (the router's Origin rule leaves it alone).
func IsDrop(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, DropPath+"/")
}

func (rt *Routes) drop(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "Retry-After")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "PUT, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, X-File-Name, X-File-Size")
		h.Set("Access-Control-Max-Age", strconv.Itoa(int(dropMaxAge/time.Second)))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if carriesCredential(r) {
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: "The drop URL is its own credential: send the file without cookies or an Authorization header (credentials: \"omit\"); nothing was stored."})
		return
	}
	v := mux.Vars(r)
	req, err := rt.Store.Load(v["user"], v["id"])
	if err == nil && !req.DropKeyOpens(v["key"]) {
		err = ErrNotFound
	}
	if err != nil {
		rt.refuse(w, r, err)
		return
	}
	rt.take(w, r, req)
}

// carriesCredential is a request that carries a Mattermost session or
// token: a page that sends one here would be asking to act as its owner.
func carriesCredential(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" || r.Header.Get("Mattermost-User-Id") != "" {
		return true
	}
	for _, name := range []string{"MMAUTHTOKEN", "MMCSRF", "MMUSERID"} {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}
