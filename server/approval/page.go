package approval

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
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
	// ChannelID is the channel a change made or was about.
	ChannelID string
	// FileIDs are a post's files, in the plan's order, and PostedIn the
	// channel it went to (a direct or group message's is made only then),
	// for the answer to a post done at once.
	FileIDs  []string
	PostedIn string
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
	// Location is the person's time zone (from their Mattermost profile),
	// in which the page shows times; UTC when nil.
	Location func(userID string) *time.Location
	Log      interface {
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

const notFoundText = "Not found: this confirmation does not exist, has expired (they wait 10 minutes), or is not yours."

// FileDetail is one file of a pending post as the person is shown it.
type FileDetail struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	SizeText string `json:"size_text"`
	Type     string `json:"type"`
	Mismatch string `json:"mismatch"`
	Origin   string `json:"origin"`
	// OriginText is Origin as a sentence for the person ("Written by the
	// AI"); OriginURL is the post an attachment was copied from.
	OriginText   string `json:"origin_text"`
	OriginURL    string `json:"origin_url,omitempty"`
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
	// Heading is the write in the person's words ("Post in Harbour ops, CEO
	// Team"); Place is where, in their words; Where is where in full,
	// without ids. An answered record keeps none of them.
	Heading string `json:"heading"`
	// HeadingLine is the heading in spans, the values the model chose
	// (an emoji, a new channel's name) apart, so that the page and the
	// modal show them as the model's.
	HeadingLine posting.Line `json:"heading_line,omitempty"`
	Place       string       `json:"place"`
	Where       string       `json:"where"`
	// Attribution is the note the post carries.
	Attribution string `json:"attribution,omitempty"`
	// TimeZone is the person's time zone from their Mattermost profile
	// (an IANA name), in which times are shown.
	TimeZone string `json:"time_zone"`
	// OutcomeText is what happened, in a sentence ("Posted in Harbour ops,
	// CEO Team."); OutcomeReason is why a write failed.
	OutcomeText   string `json:"outcome_text"`
	OutcomeReason string `json:"outcome_reason,omitempty"`
	// Action is "" for a post, else ActionEdit, ActionReact or
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
	// FilesHint says when the files reach Mattermost.
	FilesHint string `json:"files_hint,omitempty"`
	Outcome   string `json:"outcome"`
	Permalink string `json:"permalink"`
	PageURL   string `json:"page_url"`
	// The sentence under the heading, what changes line by line (none for
	// a post, an edit or a reaction), the caption of the post it is about,
	// the heading of the notes and the accept button's label.
	Lede            string         `json:"lede,omitempty"`
	Facts           []posting.Fact `json:"facts,omitempty"`
	PreviousCaption string         `json:"previous_caption,omitempty"`
	NotesHeading    string         `json:"notes_heading,omitempty"`
	AcceptLabel     string         `json:"accept_label,omitempty"`
	// Every word the page and the modal show of a pending write, from the
	// write (they keep no copies): the lede in spans (the model's value
	// apart) and as the modal says it; the heading and caption of the
	// model's message; the page's heading over the post it is about and
	// the modal's; the modal's accept button and its label while it works; and what
	// becomes of the write unanswered.
	LedeLine        posting.Line `json:"lede_line,omitempty"`
	ModalLede       string       `json:"modal_lede,omitempty"`
	MessageHeading  string       `json:"message_heading,omitempty"`
	MessageCaption  string       `json:"message_caption,omitempty"`
	PreviousHeading string       `json:"previous_heading,omitempty"`
	PreviousTitle   string       `json:"previous_title,omitempty"`
	ModalAccept     string       `json:"modal_accept_label,omitempty"`
	WorkingLabel    string       `json:"working_label,omitempty"`
	AfterExpiry     string       `json:"after_expiry,omitempty"`
}

// filesHint says when a post's files reach Mattermost: only on yes, except
// one received from the chat, which already waits there for this post as
// the person's own upload (posting.Receive).
func filesHint(p posting.Plan) string {
	const onYes = "The files are uploaded only if you accept, and only if they are still exactly these bytes."
	if len(p.Uploads()) == 0 {
		return onYes
	}
	return "The files are posted only if you accept, and only if they are still exactly these bytes. " +
		"A file from the chat already waits in Mattermost for this post, seen by nobody else, and is deleted if you decline."
}

// detail is what the person is shown of a record: while it is pending, the
// whole plan; after the answer, its outcome. Times are shown in loc.
func (rt *Routes) detail(rec Record, loc *time.Location) Detail {
	d := Detail{ID: rec.ID, Title: rec.Title, State: rec.State, CreatedAt: rec.CreatedAt.In(loc), ExpiresAt: rec.ExpiresAt().In(loc),
		Destination: rec.Destination, Notes: []string{}, Files: []FileDetail{}, Outcome: rec.Outcome, Action: rec.Action,
		Permalink: rec.Permalink, PageURL: rt.base() + Path + "/" + rec.ID, TimeZone: loc.String(), Place: rec.Place}
	if p := rec.Plan; p != nil {
		d.Destination = p.Dest.Label
		d.Heading, d.HeadingLine, d.Place, d.Where, d.Attribution = Heading(*p), HeadingLine(*p), p.Dest.PlaceText(), p.Dest.Where, p.Attribution
		if d.Where == "" {
			d.Where = d.Place
		}
		d.Message, d.MessageHTML = p.Message, RenderMarkdown(p.Message)
		d.Action, d.Emoji = p.Action, EmojiOf(*p)
		if shown := shown(*p); shown != "" {
			d.Previous, d.PreviousHTML = shown, RenderMarkdown(shown)
		}
		d.Notes = append(d.Notes, p.Notes...)
		w := writeOf(p.Action)
		d.LedeLine, d.ModalLede = w.ledeLine(*p), w.modalLede(*p)
		d.Lede, d.Facts, d.NotesHeading, d.AcceptLabel = ledeText(d.LedeLine), w.facts(*p), w.notesHeading(), w.Accept
		shownWords := w.shownWords(*p)
		d.PreviousHeading, d.PreviousCaption, d.PreviousTitle = shownWords.Heading, shownWords.Caption, shownWords.ModalHeading
		d.MessageHeading, d.MessageCaption = w.MessageHeading, w.MessageCaption
		d.ModalAccept = or(w.ModalAccept, w.Accept)
		d.WorkingLabel, d.AfterExpiry = or(w.Working, "Working…"), or(w.AfterExpiry, "nothing is changed")
		d.FilesHint = filesHint(*p)
		for i, f := range p.Files {
			fd := FileDetail{Index: i, Name: f.Name, Size: f.Size, SizeText: present.Size(f.Size), Type: f.Detected,
				Mismatch: f.Mismatch, Origin: f.Origin, SHA256: shortSum(f.SHA256), Preview: f.Preview}
			fd.OriginText, fd.OriginURL = originText(f.Origin)
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
	d.OutcomeText, d.OutcomeReason = outcomeText(rec.State, rec.Action, d.Place, rec.Outcome)
	return d
}

// location is the person's time zone, UTC when unknown.
func (rt *Routes) location(userID string) *time.Location {
	if rt.Location == nil || userID == "" {
		return time.UTC
	}
	if loc := rt.Location(userID); loc != nil {
		return loc
	}
	return time.UTC
}

// originText words where a file comes from as a sentence of its own (the
// origins themselves are fragments: "written by the model", "attachment x
// from <link>"), with the link of an attachment's post apart.
func originText(origin string) (text, link string) {
	switch {
	case origin == "written by the model":
		return "Written by the AI", ""
	case strings.HasPrefix(origin, "attachment "):
		rest := strings.TrimPrefix(origin, "attachment ")
		if i := strings.LastIndex(rest, " from "); i >= 0 {
			if url := rest[i+len(" from "):]; strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
				return "A copy of the attachment " + rest[:i], url
			}
		}
		return "A copy of the attachment " + rest, ""
	case strings.HasPrefix(origin, "your workspace file "):
		return "From " + origin, ""
	case chatfile.IsOrigin(origin):
		return "A" + origin[1:], ""
	case strings.HasPrefix(origin, "upload handle for "):
		return "Uploaded through an upload link the AI asked for (" + strings.TrimPrefix(origin, "upload handle for ") + ")", ""
	case origin == "":
		return "", ""
	}
	return "From " + origin, ""
}

func shortSum(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// apiJSON answers the JSON API as data, and without a referrer as the
// page is: the API's addresses carry a confirmation's id.
func apiJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	response.JSON(w, code, v)
}

// notThePersonText is the one line an answer from anything but the
// person's own Mattermost gets.
const notThePersonText = "Nothing was changed: only the person can answer this, signed in to Mattermost in the web or desktop app (not with a token, and not with the MCP client's own session). Open the confirmation in Mattermost to answer it."

// apiError answers a failed read or answer: "not found" for a missing,
// expired or another user's record (indistinguishable), 403 for an answer
// that is not the person's, a 500 otherwise.
func (rt *Routes) apiError(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) {
		apiJSON(w, http.StatusNotFound, map[string]string{"error": notFoundText})
		return
	}
	if errors.Is(err, ErrNotThePerson) {
		apiJSON(w, http.StatusForbidden, map[string]string{"error": notThePersonText})
		return
	}
	rt.Log.Error("Reading a pending post failed", "error", err.Error())
	apiJSON(w, http.StatusInternalServerError, map[string]string{"error": "The pending post could not be read; try again."})
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
	loc := rt.location(user)
	for _, rec := range recs {
		out = append(out, rt.detail(rec, loc))
	}
	apiJSON(w, http.StatusOK, map[string]any{"confirmations": out})
}

func (rt *Routes) apiDetail(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	if err != nil {
		rt.apiError(w, err)
		return
	}
	apiJSON(w, http.StatusOK, rt.detail(rec, rt.location(rec.UserID)))
}

func (rt *Routes) apiAnswer(w http.ResponseWriter, r *http.Request) {
	// Read before the answer: an answered record keeps no plan, and the
	// answer is worded with where the write went.
	before, _ := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	rec, err := rt.answer(r, r.Header.Get("X-CSRF-Token"))
	if err != nil {
		rt.apiError(w, err)
		return
	}
	d := rt.detail(rec, rt.location(rec.UserID))
	if p := before.Plan; p != nil && rec.Plan == nil {
		d.Heading, d.HeadingLine, d.Place, d.Where = Heading(*p), HeadingLine(*p), p.Dest.PlaceText(), p.Dest.Where
		d.OutcomeText, d.OutcomeReason = outcomeText(rec.State, rec.Action, d.Place, rec.Outcome)
	}
	apiJSON(w, http.StatusOK, d)
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
	response.SecurePage(w)
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
	// Expires and AnsweredText are times as the person reads them:
	// "14:32 (Europe/Berlin)".
	Expires, AnsweredText string
}

// clock is a time of day in its zone, named the way the person set it.
func clock(t time.Time) string {
	zone := t.Location().String()
	if zone == "Local" || zone == "" {
		zone, _ = t.Zone()
	}
	return t.Format("15:04") + " (" + zone + ")"
}

func (rt *Routes) page(w http.ResponseWriter, r *http.Request) {
	rec, err := rt.Approvals.store.Load(r.Header.Get("Mattermost-User-Id"), mux.Vars(r)["id"])
	if err != nil {
		rt.missing(w, err)
		return
	}
	d := rt.detail(rec, rt.location(rec.UserID))
	data := pageData{Detail: d, Answered: rec.State != StatePending, Expires: clock(d.ExpiresAt)}
	if !rec.AnsweredAt.IsZero() {
		data.AnsweredText = clock(rec.AnsweredAt.In(d.ExpiresAt.Location()))
	}
	// The CSRF cookie Mattermost set at sign-in reaches the plugin (only
	// the session cookie is removed); the form sends it back as the "csrf"
	// field Mattermost checks. Another site can neither read this page nor
	// the cookie.
	if c, err := r.Cookie("MMCSRF"); err == nil {
		data.CSRF = c.Value
	}
	response.SecurePage(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, data); err != nil {
		rt.Log.Error("Rendering the confirmation page failed", "error", err.Error())
	}
}

func (rt *Routes) missing(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotThePerson) {
		response.SecurePage(w)
		http.Error(w, notThePersonText, http.StatusForbidden)
		return
	}
	if !errors.Is(err, ErrNotFound) {
		rt.Log.Error("Reading a pending post failed", "error", err.Error())
		response.SecurePage(w)
		http.Error(w, "The pending post could not be read; try again.", http.StatusInternalServerError)
		return
	}
	response.SecurePage(w)
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
	response.SecurePage(w)
	// Relative to .../confirm/<id>/accept, so it holds under any site path
	// (http.Redirect would resolve it against the path the plugin sees,
	// which lacks /plugins/<id>).
	w.Header().Set("Location", "../"+id)
	w.WriteHeader(http.StatusSeeOther)
}

// PageStyle is the look the plugin's pages for the person share: the page,
// its headings, the cards of facts, and the frame that sets apart what the
// AI wrote (the file request's page shows the AI's words in the same frame).
const PageStyle = `body{margin:0;background:#f3f4f6;color:#1b1d22;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.kicker{margin:0 0 .2rem;font-size:.8rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#5d6068}
h1{margin:0 0 .4rem;font-size:1.6rem;line-height:1.25;overflow-wrap:anywhere}
h2{margin:1.6rem 0 .5rem;font-size:.8rem;font-weight:700;letter-spacing:.05em;text-transform:uppercase;color:#5d6068}
.card{background:#fff;border:1px solid #dcdee2;border-radius:8px;padding:.9rem 1.1rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.4rem 1.2rem;margin:0}
dl.facts dt{color:#5d6068}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.ai{margin:0;border:1px solid #c8c2e6;border-radius:8px;background:#fff;overflow:hidden}
.ai figcaption{padding:.35rem 1rem;background:#efecfb;color:#4a3a99;font-size:.85rem;font-weight:600;border-bottom:1px solid #c8c2e6}
`

var pageTmpl = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Answered}}{{.OutcomeText}}{{else}}{{.Heading}}{{end}} — AI confirmation</title>
<style>
*{box-sizing:border-box}
` + PageStyle + `.lede{margin:0 0 1.2rem;color:#3f4350}
.theirs{border-color:#dcdee2}.theirs figcaption{background:#f0f1f3;color:#3f4350;border-color:#dcdee2}
.message{padding:.1rem 1rem;overflow-wrap:anywhere}
.message blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1em;color:#444}
.message code{background:#f4f4f4;padding:0 .2em}
.message pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}
.message img{max-width:100%}
.message table{display:block;overflow-x:auto}
.empty{padding:.6rem 1rem;margin:0;color:#5d6068;font-style:italic}
ul.notes{margin:0;padding-left:1.2rem}
ul.notes li+li{margin-top:.3rem}
.file{background:#fff;border:1px solid #dcdee2;border-radius:8px;padding:.8rem 1.1rem;margin:0 0 .7rem}
.file h3{margin:0 0 .15rem;font-size:1.05rem;overflow-wrap:anywhere}
.file p{margin:.15rem 0;overflow-wrap:anywhere}
.sub{color:#5d6068;font-size:.9rem}
.file-sha256{font-size:.85rem}
.warn{color:#9a3b00;font-weight:600}
.by-ai{background:#efecfb;border-radius:4px;padding:0 .3rem;white-space:pre-wrap}
h1 code.by-ai{font-size:.9em}.ai-mark{color:#4a3a99;font-size:.85rem;font-weight:600}
.thumb{display:block;width:fit-content;max-width:100%;margin:.6rem 0 .2rem;padding:4px;border:1px solid #dcdee2;border-radius:6px;background:#fafafa}
img.thumbnail{display:block;max-width:100%;height:auto}
pre.preview{margin:.6rem 0 .2rem;padding:.6rem .8rem;max-height:16rem;overflow:auto;background:#f6f7f8;border:1px solid #e3e4e7;border-radius:6px;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}
.hint{margin:.4rem 0 0;color:#5d6068;font-size:.9rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.8rem 0 .8rem}
.actions form{margin:0}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.5rem;border-radius:6px;border:1px solid #9a9da4;background:#fff;color:#1b1d22;cursor:pointer;text-decoration:none}
button.accept,.button.primary{background:#1c58d9;border-color:#1c58d9;color:#fff}
.meta{margin:.4rem 0;color:#5d6068;font-size:.9rem}
.outcome{margin:.4rem 0 1rem;padding:1rem 1.2rem;border-radius:8px;border:1px solid #dcdee2;border-left-width:6px;background:#fff}
.outcome h1{font-size:1.4rem;margin:0}
.outcome p{margin:.6rem 0 0;overflow-wrap:anywhere}
.outcome[data-state=posted]{border-left-color:#2a8a4a}
.outcome[data-state=declined],.outcome[data-state=withdrawn]{border-left-color:#8a8d93}
.outcome[data-state=failed]{border-left-color:#c43d3d}
.outcome[data-state=executing]{border-left-color:#1c58d9}
@media (max-width:32rem){
main{padding:1rem .75rem 2rem}
h1{font-size:1.35rem}
dl.facts{grid-template-columns:minmax(0,1fr);gap:0}
dl.facts dd{margin-bottom:.5rem}
.actions form{flex:1 1 100%}
.actions button{width:100%}
}
</style></head>
<body>
<main id="confirmation" data-id="{{.ID}}" data-state="{{.State}}">
{{if .Answered}}
<p class="kicker">AI assistant confirmation</p>
<div id="outcome" data-state="{{.State}}" class="outcome" role="status">
<h1>{{.OutcomeText}}</h1>
{{if .OutcomeReason}}<p class="reason">{{.OutcomeReason}}</p>{{end}}
{{if .Permalink}}<p><a id="permalink" class="button primary" href="{{.Permalink}}" target="_top">Open the post in Mattermost</a></p>{{end}}
</div>
<p class="meta">{{if .AnsweredText}}{{if eq .State "withdrawn"}}Withdrawn at{{else}}You answered at{{end}} {{.AnsweredText}}. {{end}}You can close this page.</p>
{{else}}
<p class="kicker">An AI assistant asks you to confirm</p>
<h1 id="heading">{{if .HeadingLine}}{{range .HeadingLine}}{{if .AI}}<code class="by-ai" title="Written by the AI">{{.Text}}</code>{{else}}{{.Text}}{{end}}{{end}}{{else}}{{.Heading}}{{end}}</h1>
<p class="lede">{{range .LedeLine}}{{if .AI}}<strong>{{.Text}}</strong>{{else}}{{.Text}}{{end}}{{end}}</p>
<dl class="facts card">
{{if .Facts}}{{range .Facts}}<dt>{{.Label}}</dt><dd{{if .AI}} class="by-ai"{{end}}>{{if .AI}}<span class="ai-mark">Written by the AI:</span> {{end}}{{.Value}}</dd>{{end}}
{{else}}<dt>Where</dt><dd id="destination">{{.Where}}</dd>{{end}}
{{if and .Attribution (eq .Action "")}}<dt>Marked</dt><dd>“{{.Attribution}}”, shown under the post</dd>{{end}}
<dt>Answer by</dt><dd><time datetime="{{.ExpiresAt.Format "2006-01-02T15:04:05Z07:00"}}">{{.Expires}}</time>; after that {{.AfterExpiry}}.</dd>
</dl>
{{if .MessageCaption}}
<h2 id="message-label">{{.MessageHeading}}</h2>
<figure class="ai" aria-labelledby="message-label"><figcaption>{{.MessageCaption}}</figcaption>{{if .Message}}<div id="message" class="message">{{.MessageHTML}}</div>{{else}}<p id="message" class="empty">No message, only files.</p>{{end}}</figure>
{{end}}
{{if and .PreviousCaption (or .Previous (eq .Action "edit" "react" "unreact"))}}<h2 id="previous-label">{{.PreviousHeading}}</h2>
<figure class="ai theirs" aria-labelledby="previous-label"><figcaption>{{.PreviousCaption}}</figcaption><div id="previous" class="message">{{.PreviousHTML}}</div></figure>{{end}}
{{if .Notes}}<h2>{{.NotesHeading}}</h2>
<div class="card"><ul id="notes" class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
{{if .Files}}<h2>Files ({{len .Files}})</h2>
{{range .Files}}<section class="file" data-file-index="{{.Index}}" aria-label="{{.Name}}">
<h3 class="file-name">{{.Name}}</h3>
<p class="sub"><span class="file-size">{{.SizeText}}</span> · <span class="file-type">{{.Type}}</span></p>
{{if .Mismatch}}<p class="warn file-mismatch">Type mismatch: {{.Mismatch}}</p>{{end}}
<p class="sub"><span class="file-origin">{{.OriginText}}</span>{{if .OriginURL}}, from <a href="{{.OriginURL}}" target="_top">this post</a>{{end}}.</p>
<p class="sub">sha256 <code class="file-sha256">{{.SHA256}}…</code></p>
{{if .ThumbnailURL}}<div class="thumb"><img class="thumbnail" src="{{.ThumbnailURL}}" alt="Thumbnail of {{.Name}}"></div>{{end}}
{{if .Preview}}<pre class="preview" aria-label="First lines of {{.Name}}">{{.Preview}}</pre>{{end}}
</section>
{{end}}
<p class="hint" id="files-hint">{{.FilesHint}}</p>{{end}}
<div class="actions">
<form method="post" action="{{.ID}}/accept"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" id="accept" class="accept">{{.AcceptLabel}}</button></form>
<form method="post" action="{{.ID}}/decline"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" id="decline">Decline</button></form>
</div>
{{end}}
</main>
</body></html>`))
