package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Path is where the confirmation page lives under the plugin's route.
const Path = "/confirm"

// APIPath is the JSON API the webapp uses, under the plugin's route.
const APIPath = "/api/v1/confirmations"

// DefaultBase is the site-relative path of the plugin's routes.
const DefaultBase = "/plugins/mcp-server"

// Executed is an accepted write that was carried out.
type Executed struct {
	PostID, Permalink string
}

// Routes serve the confirmation page and its JSON API. Mattermost
// authenticates the request (session cookie or token) and passes
// Mattermost-User-Id. Reading (the page, the list, a detail, a thumbnail)
// takes any of the person's credentials: the model already knows what it
// asked. Answering takes the person's own Mattermost session (see
// answer.go); anything else is told, in one line, where the person answers.
type Routes struct {
	Approvals *Approvals
	// Session is the Mattermost session a request came with.
	Session func(r *http.Request) (mattermost.Session, error)
	// Base is the site-relative path of the plugin (DefaultBase when empty).
	Base string
	Log  interface {
		Error(msg string, keyValuePairs ...any)
	}
}

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(Path+"/{id}", rt.page).Methods(http.MethodGet)
	r.HandleFunc(Path+"/{id}/{answer:accept|decline}", rt.pageAnswer).Methods(http.MethodPost)

	r.HandleFunc(APIPath, rt.apiList).Methods(http.MethodGet)
	r.HandleFunc(APIPath+"/{id}", rt.apiDetail).Methods(http.MethodGet)
	r.HandleFunc(APIPath+"/{id}/{answer:accept|decline}", rt.apiAnswer).Methods(http.MethodPost)
	r.HandleFunc(APIPath+"/{id}/files/{n:[0-9]+}/thumbnail", rt.thumbnail).Methods(http.MethodGet)
}

func (rt *Routes) base() string {
	if rt.Base != "" {
		return rt.Base
	}
	return DefaultBase
}

func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

const notFoundText = "Not found: this confirmation does not exist, has expired (they wait 10 minutes), or is not yours."

// FileDetail is one file of a pending post as the person is shown it.
type FileDetail struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	SizeText     string `json:"size_text"`
	Type         string `json:"type"`
	Mismatch     string `json:"mismatch"`
	Origin       string `json:"origin"`
	SHA256       string `json:"sha256"`
	Preview      string `json:"preview"`
	ThumbnailURL string `json:"thumbnail_url"`
}

// Detail is a record as the webapp and the page show it.
type Detail struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	State       string    `json:"state"`
	CreatedAt   time.Time `json:"created_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	Destination string    `json:"destination"`
	// Action is "" for a post, else posting.ActionEdit, ActionReact or
	// ActionUnreact; Previous is the message an edit replaces or the post
	// a reaction is on.
	Action       string        `json:"action"`
	Emoji        string        `json:"emoji,omitempty"`
	Message      string        `json:"message"`
	MessageHTML  template.HTML `json:"message_html"`
	Previous     string        `json:"previous,omitempty"`
	PreviousHTML template.HTML `json:"previous_html,omitempty"`
	Notes        []string      `json:"notes"`
	Files        []FileDetail  `json:"files"`
	Outcome      string        `json:"outcome"`
	Permalink    string        `json:"permalink"`
	PageURL      string        `json:"page_url"`
}

// detail is what the person is shown of a record: while it is pending, the
// whole plan; after the answer, its outcome.
func (rt *Routes) detail(rec Record) Detail {
	d := Detail{ID: rec.ID, Title: rec.Title, State: rec.State, CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt(),
		Destination: rec.Destination, Notes: []string{}, Files: []FileDetail{}, Outcome: rec.Outcome,
		Permalink: rec.Permalink, PageURL: rt.base() + Path + "/" + rec.ID}
	if p := rec.Plan; p != nil {
		d.Destination = p.Dest.Label
		d.Message, d.MessageHTML = p.Message, RenderMarkdown(p.Message)
		d.Action, d.Emoji = p.Action, p.Emoji
		if p.Previous != "" {
			d.Previous, d.PreviousHTML = p.Previous, RenderMarkdown(p.Previous)
		}
		d.Notes = append(d.Notes, p.Notes...)
		for i, f := range p.Files {
			fd := FileDetail{Index: i, Name: f.Name, Size: f.Size, SizeText: present.Size(f.Size), Type: f.Detected,
				Mismatch: f.Mismatch, Origin: f.Origin, SHA256: shortSum(f.SHA256), Preview: f.Preview}
			if fd.Preview == "" && f.Kind == posting.KindWritten {
				// A record staged before previews were kept.
				fd.Preview = posting.TextPreview([]byte(f.Content))
			}
			if len(f.Thumbnail) > 0 {
				fd.ThumbnailURL = fmt.Sprintf("%s%s/%s/files/%d/thumbnail", rt.base(), APIPath, rec.ID, i)
			}
			d.Files = append(d.Files, fd)
		}
	}
	return d
}

func shortSum(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	secure(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// notThePersonText is the one line an answer from anything but the
// person's own Mattermost gets.
const notThePersonText = "Nothing was changed: only the person can answer this, signed in to Mattermost in the web or desktop app (not with a token, and not with the MCP client's own session). Open the confirmation in Mattermost to answer it."

// apiError answers a failed read or answer: "not found" for a missing,
// expired or another user's record (indistinguishable), 403 for an answer
// that is not the person's, a 500 otherwise.
func (rt *Routes) apiError(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": notFoundText})
		return
	}
	if errors.Is(err, ErrNotThePerson) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": notThePersonText})
		return
	}
	rt.Log.Error("Reading a pending post failed", "error", err.Error())
	writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "The pending post could not be read; try again."})
}

func (rt *Routes) apiList(w http.ResponseWriter, r *http.Request) {
	user := r.Header.Get("Mattermost-User-Id")
	if user == "" {
		rt.apiError(w, ErrNotFound)
		return
	}
	recs, err := rt.Approvals.store.Sorted(user)
	if err != nil {
		rt.apiError(w, err)
		return
	}
	out := []Detail{}
	for _, rec := range recs {
		out = append(out, rt.detail(rec))
	}
	writeJSON(w, http.StatusOK, map[string]any{"confirmations": out})
}

func (rt *Routes) apiDetail(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	if err != nil {
		rt.apiError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rt.detail(rec))
}

func (rt *Routes) apiAnswer(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.answer(r, r.Header.Get("X-CSRF-Token"))
	if err != nil {
		rt.apiError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rt.detail(rec))
}

// thumbnail serves a stored thumbnail to the record's owner only.
func (rt *Routes) thumbnail(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	if err != nil {
		rt.apiError(w, err)
		return
	}
	n, err := strconv.Atoi(mux.Vars(r)["n"])
	if err != nil || rec.Plan == nil || n < 0 || n >= len(rec.Plan.Files) || len(rec.Plan.Files[n].Thumbnail) == 0 {
		rt.apiError(w, ErrNotFound)
		return
	}
	f := rec.Plan.Files[n]
	if f.ThumbnailType != "image/jpeg" && f.ThumbnailType != "image/png" {
		rt.apiError(w, ErrNotFound)
		return
	}
	secure(w)
	w.Header().Set("Content-Type", f.ThumbnailType)
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Thumbnail)))
	_, _ = w.Write(f.Thumbnail)
}

// answer takes the person's answer from the request's own Mattermost
// session, with the CSRF token it carried.
func (rt *Routes) answer(r *http.Request, csrf string) (Record, error) {
	user := r.Header.Get("Mattermost-User-Id")
	if user == "" {
		return Record{}, ErrNotFound
	}
	session, err := rt.Session(r)
	if errors.Is(err, mattermost.ErrNotFound) {
		return Record{}, ErrNotThePerson
	}
	if err != nil {
		return Record{}, err
	}
	return rt.Approvals.Answer(r.Context(), Answerer{Session: session, CSRF: csrf}, mux.Vars(r)["id"], mux.Vars(r)["answer"])
}

type pageData struct {
	Detail
	CSRF     string
	Answered bool
}

func (rt *Routes) page(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	if err != nil {
		rt.missing(w, err)
		return
	}
	data := pageData{Detail: rt.detail(rec), Answered: rec.State != StatePending}
	// The CSRF cookie Mattermost set at sign-in reaches the plugin (only
	// the session cookie is removed); the form sends it back as the "csrf"
	// field Mattermost checks. Another site can neither read this page nor
	// the cookie.
	if c, err := r.Cookie("MMCSRF"); err == nil {
		data.CSRF = c.Value
	}
	secure(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, data); err != nil {
		rt.Log.Error("Rendering the confirmation page failed", "error", err.Error())
	}
}

func (rt *Routes) missing(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotThePerson) {
		secure(w)
		http.Error(w, notThePersonText, http.StatusForbidden)
		return
	}
	if !errors.Is(err, ErrNotFound) {
		rt.Log.Error("Reading a pending post failed", "error", err.Error())
		secure(w)
		http.Error(w, "The pending post could not be read; try again.", http.StatusInternalServerError)
		return
	}
	secure(w)
	http.Error(w, notFoundText, http.StatusNotFound)
}

// pageAnswer takes the form's answer and shows the page again (a GET, so
// reloading it does not post the form twice).
func (rt *Routes) pageAnswer(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	csrf := r.Header.Get("X-CSRF-Token")
	if csrf == "" {
		csrf = r.PostFormValue("csrf")
	}
	if _, err := rt.answer(r, csrf); err != nil {
		rt.missing(w, err)
		return
	}
	secure(w)
	// Relative to .../confirm/<id>/accept, so it holds under any site path
	// (http.Redirect would resolve it against the path the plugin sees,
	// which lacks /plugins/<id>).
	w.Header().Set("Location", "../"+id)
	w.WriteHeader(http.StatusSeeOther)
}

var pageTmpl = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confirm a post — MCP Server</title>
<style>
body{font-family:system-ui,sans-serif;line-height:1.45;max-width:48em;margin:2em auto;padding:0 1em;color:#1b1d22}
pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;word-break:break-word;margin:.4em 0}
.message{border:1px solid #ccc;border-radius:4px;padding:.2em 1em}
.message blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1em;color:#444}
.message code{background:#f4f4f4;padding:0 .2em}
.file{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;margin:.6em 0}
.file h3{margin:.2em 0;font-size:1.05em;word-break:break-all}
.meta{margin:.2em 0;color:#333}.warn{color:#9a3b00;font-weight:600}
img.thumbnail{display:block;max-width:320px;max-height:320px;border:1px solid #ddd;margin:.4em 0}
.actions{margin:1.5em 0}
button{font-size:1.1em;margin-right:1em;padding:.5em 1.4em;border-radius:4px;border:1px solid #888;cursor:pointer}
button.accept{background:#1c58d9;color:#fff;border-color:#1c58d9}
</style></head>
<body>
<main id="confirmation" data-id="{{.ID}}" data-state="{{.State}}">
<h1>{{.Title}}</h1>
{{if .Answered}}
<p id="outcome" data-state="{{.State}}" role="status"><strong>{{.State}}</strong>{{if .Outcome}}: {{.Outcome}}{{end}}{{if .Permalink}} <a id="permalink" href="{{.Permalink}}" target="_top">Open the post</a>{{end}}</p>
{{else}}
{{if eq .Action "edit"}}<p>An AI assistant asks to replace the message of your post in <strong id="destination">{{.Destination}}</strong>. Nothing changes until you accept.</p>
<h2>New message</h2><div id="message" class="message">{{.MessageHTML}}</div>
<h2>It replaces</h2><div id="previous" class="message">{{.PreviousHTML}}</div>
{{else if .Emoji}}<p>An AI assistant asks to {{if eq .Action "unreact"}}take back your{{else}}add your{{end}} <strong>:{{.Emoji}}:</strong> reaction on this post in <strong id="destination">{{.Destination}}</strong>. Nothing changes until you accept.</p>
<div id="previous" class="message">{{.PreviousHTML}}</div>
{{else}}<p>An AI assistant asks to post this as you, to <strong id="destination">{{.Destination}}</strong>. Nothing is sent until you accept.</p>
<h2>Message</h2>
{{if .Message}}<div id="message" class="message">{{.MessageHTML}}</div>{{else}}<p id="message"><em>No message, only files.</em></p>{{end}}{{end}}
{{if .Notes}}<h2>Notifications</h2><ul id="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Files}}<h2>Files ({{len .Files}})</h2>
{{range .Files}}<section class="file" data-file-index="{{.Index}}" aria-label="{{.Name}}">
<h3 class="file-name">{{.Name}}</h3>
<p class="meta"><span class="file-size">{{.SizeText}}</span> · <span class="file-type">{{.Type}}</span> · from <span class="file-origin">{{.Origin}}</span> · sha256 <code class="file-sha256">{{.SHA256}}…</code></p>
{{if .Mismatch}}<p class="warn file-mismatch">Type mismatch: {{.Mismatch}}</p>{{end}}
{{if .ThumbnailURL}}<img class="thumbnail" src="{{.ThumbnailURL}}" alt="Thumbnail of {{.Name}}">{{end}}
{{if .Preview}}<pre class="preview" aria-label="First lines of {{.Name}}">{{.Preview}}</pre>{{end}}
</section>
{{end}}
<p>The files are uploaded only if you accept, and only if they are still exactly these bytes.</p>{{end}}
<div class="actions">
<form method="post" action="{{.ID}}/accept" style="display:inline"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" id="accept" class="accept">{{if .Action}}Accept{{else}}Accept and post{{end}}</button></form>
<form method="post" action="{{.ID}}/decline" style="display:inline"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" id="decline">Decline</button></form>
</div>
<p class="meta">This question expires at <time datetime="{{.ExpiresAt.Format "2006-01-02T15:04:05Z07:00"}}">{{.ExpiresAt.Format "15:04 MST"}}</time>.</p>
{{end}}
</main>
</body></html>`))
