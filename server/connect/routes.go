package connect

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
)

// APIPath is the connect dialog's JSON API, under the plugin's route.
const APIPath = "/api/v1/connect"

// Logger is the plugin API's key-value logger.
type Logger interface {
	Error(msg string, keyValuePairs ...any)
}

// ErrNotThePerson refuses what only the person may do from anything else.
var ErrNotThePerson = errors.New("only you, signed in to Mattermost in the web or desktop app, can make a token or disconnect a client here: an AI client's own token, an OAuth token or a personal access token cannot; nothing was changed")

// Routes serve the dialog's API.
type Routes struct {
	Service *Service
	// Person answers the request's Mattermost session id when the request
	// comes from the person's own interactive session with its CSRF token
	// (the rule answers to pending writes follow), else an error
	// (ErrNotThePerson, or one saying why it could not tell).
	Person func(r *http.Request) (string, error)
	Log    Logger
}

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(APIPath, rt.overview).Methods(http.MethodGet)
	r.HandleFunc(APIPath+"/token", rt.token).Methods(http.MethodPost)
	r.HandleFunc(APIPath+"/clients", rt.clients).Methods(http.MethodGet)
	r.HandleFunc(APIPath+"/clients/{id:[0-9a-f]{1,64}}/disconnect", rt.disconnect).Methods(http.MethodPost)
}

func (rt *Routes) overview(w http.ResponseWriter, r *http.Request) {
	user, ok := rt.user(w, r)
	if !ok {
		return
	}
	o, err := rt.Service.Overview(user)
	if err != nil {
		rt.fail(w, err, "read the connect overview")
		return
	}
	response.JSON(w, http.StatusOK, o)
}

func (rt *Routes) clients(w http.ResponseWriter, r *http.Request) {
	user, ok := rt.user(w, r)
	if !ok {
		return
	}
	clients, more, err := rt.Service.Clients(user)
	if err != nil {
		rt.fail(w, err, "list connected clients")
		return
	}
	response.JSON(w, http.StatusOK, map[string]any{"clients": clients, "more_clients": more})
}

func (rt *Routes) token(w http.ResponseWriter, r *http.Request) {
	user, ok := rt.user(w, r)
	if !ok {
		return
	}
	if _, ok := rt.person(w, r); !ok {
		return
	}
	tok, err := rt.Service.MakeToken(user)
	var no *ErrNoTokens
	if errors.As(err, &no) {
		response.JSON(w, http.StatusForbidden, map[string]string{"error": no.Reason})
		return
	}
	if err != nil {
		rt.fail(w, err, "make a personal access token")
		return
	}
	response.JSON(w, http.StatusCreated, tok)
}

func (rt *Routes) disconnect(w http.ResponseWriter, r *http.Request) {
	user, ok := rt.user(w, r)
	if !ok {
		return
	}
	session, ok := rt.person(w, r)
	if !ok {
		return
	}
	d, err := rt.Service.Disconnect(user, session, mux.Vars(r)["id"])
	if errors.Is(err, ErrNotFound) {
		response.JSON(w, http.StatusNotFound, map[string]string{"error": "This client is not connected any more (it may have been disconnected in another window): nothing was changed."})
		return
	}
	if err != nil {
		rt.fail(w, err, "disconnect a client")
		return
	}
	response.JSON(w, http.StatusOK, d)
}

func (rt *Routes) user(w http.ResponseWriter, r *http.Request) (string, bool) {
	user := r.Header.Get("Mattermost-User-Id")
	if user == "" {
		response.JSON(w, http.StatusUnauthorized, map[string]string{"error": "Sign in to Mattermost first."})
		return "", false
	}
	return user, true
}

func (rt *Routes) person(w http.ResponseWriter, r *http.Request) (string, bool) {
	session, err := rt.Person(r)
	if errors.Is(err, ErrNotThePerson) {
		response.JSON(w, http.StatusForbidden, map[string]string{"error": capitalized(ErrNotThePerson.Error())})
		return "", false
	}
	if err != nil {
		rt.fail(w, err, "check the request's session")
		return "", false
	}
	return session, true
}

func (rt *Routes) fail(w http.ResponseWriter, err error, what string) {
	rt.Log.Error("Connect: could not "+what, "error", err.Error())
	response.JSON(w, http.StatusInternalServerError, map[string]string{"error": "Mattermost could not " + what + " just now; try again in a moment."})
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
