package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Path is where the confirmation page lives under the plugin's route.
const Path = "/confirm"

// Executed is an accepted post that was sent.
type Executed struct {
	PostID, Permalink string
}

// Routes serve the confirmation page. Mattermost authenticates the person
// (session cookie or token) and passes Mattermost-User-Id; for a cookie
// session and any method but GET it does so only when the request carries
// the session's CSRF token (X-CSRF-Token header or a "csrf" form field),
// otherwise the request arrives without a user and is refused here.
type Routes struct {
	Store *Store
	// Execute posts an accepted plan as its owner.
	Execute func(ctx context.Context, userID string, plan posting.Plan) (Executed, error)
	Log     interface {
		Error(msg string, keyValuePairs ...any)
	}
}

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(Path, rt.list).Methods(http.MethodGet)
	r.HandleFunc(Path+"/{id}", rt.page).Methods(http.MethodGet)
	r.HandleFunc(Path+"/{id}/{answer:accept|decline}", rt.answer).Methods(http.MethodPost)
}

func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

// list answers the person's own records as JSON (pending first), for the
// webapp after a reconnect and for tests.
func (rt *Routes) list(w http.ResponseWriter, r *http.Request) {
	user := r.Header.Get("Mattermost-User-Id")
	if user == "" {
		http.NotFound(w, r)
		return
	}
	recs, err := rt.Store.List(user)
	if err != nil {
		rt.Log.Error("Listing pending posts failed", "error", err.Error())
		http.Error(w, "The pending posts could not be read; try again.", http.StatusInternalServerError)
		return
	}
	type item struct {
		ID, Title, State string
	}
	out := []item{}
	for _, rec := range recs {
		out = append(out, item{rec.ID, rec.Title, rec.State})
	}
	secure(w)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"confirmations": out})
}

type fileView struct {
	posting.Staged
	SizeText, Short, Preview string
}

type pageData struct {
	Rec      Record
	Files    []fileView
	CSRF     string
	Answered bool
}

func (rt *Routes) page(w http.ResponseWriter, r *http.Request) {
	user := r.Header.Get("Mattermost-User-Id")
	rec, err := rt.Store.Load(user, mux.Vars(r)["id"])
	if err != nil {
		rt.missing(w, r, err)
		return
	}
	data := pageData{Rec: rec, Answered: rec.State != StatePending}
	// The CSRF cookie Mattermost set at sign-in reaches the plugin (only
	// the session cookie is removed); the form sends it back as the "csrf"
	// field Mattermost checks. Another site can neither read this page nor
	// the cookie.
	if c, err := r.Cookie("MMCSRF"); err == nil {
		data.CSRF = c.Value
	}
	if rec.Plan != nil {
		for _, f := range rec.Plan.Files {
			fv := fileView{Staged: f, SizeText: present.Size(f.Size), Short: f.SHA256[:12]}
			if f.Kind == posting.KindWritten {
				fv.Preview = firstLines(f.Content, previewLines)
			}
			data.Files = append(data.Files, fv)
		}
	}
	secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, data); err != nil {
		rt.Log.Error("Rendering the confirmation page failed", "error", err.Error())
	}
}

func (rt *Routes) missing(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, ErrNotFound) {
		rt.Log.Error("Reading a pending post failed", "error", err.Error())
		http.Error(w, "The pending post could not be read; try again.", http.StatusInternalServerError)
		return
	}
	secure(w)
	http.Error(w, "Not found: this confirmation does not exist, has expired (they wait 10 minutes), or is not yours.", http.StatusNotFound)
}

func (rt *Routes) answer(w http.ResponseWriter, r *http.Request) {
	user := r.Header.Get("Mattermost-User-Id")
	id := mux.Vars(r)["id"]
	var rec Record
	var err error
	if mux.Vars(r)["answer"] == "decline" {
		rec, err = rt.Store.Decline(user, id)
	} else {
		rec, err = rt.accept(r.Context(), user, id)
	}
	switch {
	case errors.Is(err, ErrDecided):
	case err != nil:
		rt.missing(w, r, err)
		return
	}
	secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, pageData{Rec: rec, Answered: true}); err != nil {
		rt.Log.Error("Rendering the confirmation page failed", "error", err.Error())
	}
}

// accept claims the record (once, cluster-wide), executes the plan and
// records the outcome.
func (rt *Routes) accept(ctx context.Context, user, id string) (Record, error) {
	rec, err := rt.Store.Claim(user, id)
	if err != nil {
		return rec, err
	}
	done, execErr := rt.Execute(ctx, user, *rec.Plan)
	state, outcome := StatePosted, "Posted."
	if execErr != nil {
		state, outcome = StateFailed, "Nothing was posted: "+execErr.Error()
	}
	if err := rt.Store.Settle(rec, state, outcome, done.PostID, done.Permalink); err != nil {
		return rec, err
	}
	return rt.Store.Load(user, id)
}

const previewLines = 12

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

var pageTmpl = template.Must(template.New("confirm").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Confirm a post — MCP Server</title>
<style>body{font-family:sans-serif;max-width:48em;margin:2em auto;padding:0 1em}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}button{font-size:1.1em;margin-right:1em;padding:.4em 1.2em}</style></head>
<body>
<h1>{{.Rec.Title}}</h1>
{{if .Answered}}
<p id="outcome" data-state="{{.Rec.State}}"><strong>{{.Rec.State}}</strong>{{if .Rec.Outcome}}: {{.Rec.Outcome}}{{end}}{{if .Rec.Permalink}} <a href="{{.Rec.Permalink}}" target="_top">Open the post</a>{{end}}</p>
{{else}}{{with .Rec.Plan}}
<p>An AI assistant asks to post this as you, to <strong>{{.Dest.Label}}</strong>.</p>
<h2>Message</h2><pre>{{.Message}}</pre>
{{if .Notes}}<h2>Notifications</h2><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}
{{if .Files}}<h2>Files</h2><table><tr><th>Name</th><th>Size</th><th>Type</th><th>From</th><th>sha256</th></tr>
{{range .Files}}<tr><td>{{.Name}}</td><td>{{.SizeText}}</td><td>{{.Detected}}{{if .Mismatch}} ({{.Mismatch}}){{end}}</td><td>{{.Origin}}</td><td><code>{{.Short}}…</code></td></tr>
{{if .Preview}}<tr><td colspan="5"><pre>{{.Preview}}</pre></td></tr>{{end}}{{end}}</table>
<p>The files are uploaded only if you accept, and only if they are still exactly these bytes.</p>{{end}}
<form method="post" action="{{.Rec.ID}}/accept" style="display:inline"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit">Accept and post</button></form>
<form method="post" action="{{.Rec.ID}}/decline" style="display:inline"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit">Decline</button></form>
{{end}}
</body></html>`))
