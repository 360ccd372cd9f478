package filerequest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Path is where the person gives a file, under the plugin's route:
// GET shows the request, POST of the raw file (with the session's CSRF
// token in X-CSRF-Token, the file's name in X-File-Name and its size in
// X-File-Size) answers it.
const Path = "/upload"

// ErrNotThePerson refuses a request that does not come from the person's
// own interactive Mattermost session.
var ErrNotThePerson = errors.New("only the person, signed in to Mattermost in the web or desktop app, can give a file here; nothing was stored")

// headBytes is how much of a received file its type is told from: what
// fileview reads to tell a format (Ogg and WebM markers lie within the
// first 4 KiB; http.DetectContentType reads 512).
const headBytes = 4096

// Routes serve the page. Mattermost authenticates the request and passes
// Mattermost-User-Id; Person decides whether the session is the person's
// own interactive one (not a token, not an MCP client's, with its CSRF
// token when it changes something), as the confirmation page decides who
// may answer a write.
type Routes struct {
	Store     *Store
	Workspace *workspace.Store
	// Person answers nil for the person's own interactive session with
	// the CSRF token it carried (the MMCSRF cookie for the page, the
	// X-CSRF-Token header for an upload), else ErrNotThePerson.
	Person func(r *http.Request, userID, csrf string) error
	// Received is told of each file given (the audit trail, and the
	// waiting call's wake-up).
	Received func(ctx context.Context, req Request, err error)
	// Admits answers whether the person a drop URL names may use MCP now,
	// by the checks the MCP endpoint makes of every request
	// (transport.Admitted: an active account the admin's rule admits). The
	// drop URL acts for its person without their credential, so nothing of
	// Mattermost's own ends it when they lose access; required.
	Admits func(userID string) (admission.Verdict, error)
	// Withheld is why the admin's settings withhold what the page and the
	// drop URL stand for (paths.FileRequest) now, "" when they offer it
	// (nil: always offered).
	Withheld func() string
	Log      interface {
		Info(msg string, keyValuePairs ...any)
		Error(msg string, keyValuePairs ...any)
	}
}

// Register adds the routes.
func (rt *Routes) Register(r *mux.Router) {
	r.HandleFunc(Path+"/{id:[0-9a-f]{32}}", rt.page).Methods(http.MethodGet)
	r.HandleFunc(Path+"/{id:[0-9a-f]{32}}", rt.upload).Methods(http.MethodPost)
	r.HandleFunc(dropRoute, rt.drop).Methods(http.MethodPut, http.MethodOptions)
}

const notFoundText = "Not found: this file request does not exist, has expired (they wait an hour), or is not yours. If you are not signed in to Mattermost in this browser, sign in and open the link again."

// load is the request the page is about, for the person's own session:
// the page is shown to the browser that holds the session's CSRF cookie,
// an upload is taken with the token in its header.
func (rt *Routes) load(r *http.Request, upload bool) (Request, error) {
	userID := r.Header.Get("Mattermost-User-Id")
	if userID == "" {
		return Request{}, ErrNotFound
	}
	req, err := rt.Store.Load(userID, mux.Vars(r)["id"])
	if err != nil {
		return Request{}, err
	}
	csrf := r.Header.Get("X-CSRF-Token")
	if !upload {
		csrf = ""
		if c, err := r.Cookie("MMCSRF"); err == nil {
			csrf = c.Value
		}
	}
	if err := rt.Person(r, userID, csrf); err != nil {
		return Request{}, err
	}
	return req, nil
}

func (rt *Routes) page(w http.ResponseWriter, r *http.Request) {
	req, err := rt.load(r, false)
	if err != nil {
		rt.refuse(w, r, err)
		return
	}
	nonce, err := newNonce()
	if err != nil {
		rt.refuse(w, r, err)
		return
	}
	data := pageData{Request: req, Accept: acceptAttr(req.Types), TypesText: Describe(req.Types), MaxText: sizeText(req.MaxSize),
		ExpiresText: req.ExpiresAt().UTC().Format("15:04 UTC"), Nonce: nonce,
		Quota: rt.quotaLeft(req.UserID)}
	// The CSRF cookie Mattermost set at sign-in reaches the plugin; the
	// page's script sends it back in X-CSRF-Token, which Mattermost checks
	// before the body is read (a form field would make it read the whole
	// body into memory).
	if c, err := r.Cookie("MMCSRF"); err == nil {
		data.CSRF = c.Value
	}
	response.SecurePage(w)
	w.Header().Set("Content-Security-Policy", pagePolicy(nonce))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl.Execute(w, data); err != nil {
		rt.Log.Error("Rendering the file request page failed", "error", err.Error())
	}
}

// pagePolicy is the page's own: PagePolicy's, plus its one script (by
// nonce) and its upload to this same origin.
func pagePolicy(nonce string) string {
	return response.PagePolicy + "; script-src 'nonce-" + nonce + "'; connect-src 'self'"
}

func newNonce() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func (rt *Routes) quotaLeft(userID string) int64 {
	used, err := rt.Workspace.Usage(userID)
	if err != nil {
		return -1
	}
	return max(rt.Workspace.Limits().QuotaBytes-used, 0)
}

// Outcome is the page's JSON answer to an upload.
type Outcome struct {
	State   string `json:"state"`
	Message string `json:"message"`
	Name    string `json:"name,omitempty"`
	Size    int64  `json:"size,omitempty"`
	Type    string `json:"type,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
}

// upload streams the body into the person's workspace, chunk by chunk,
// after checking the declared length; the bytes are checked again as they
// come, and a body past the bound stops there with nothing kept.
func (rt *Routes) upload(w http.ResponseWriter, r *http.Request) {
	req, err := rt.load(r, true)
	if err != nil {
		rt.refuse(w, r, err)
		return
	}
	// The person's own session sends it, yet the admin's rule of who may
	// use MCP holds here as on the drop URL: a request made before they
	// lost admission takes no file after.
	if !rt.admitted(w, r, req) {
		return
	}
	rt.take(w, r, req)
}

// take answers req with the body, whoever was found to send it for the
// person (their session on the page, the drop URL from a view).
func (rt *Routes) take(w http.ResponseWriter, r *http.Request, req Request) {
	if req.State != StateWaiting {
		rt.answer(w, http.StatusConflict, Outcome{State: req.State, Message: answeredText(req)})
		return
	}
	name, err := fileName(r.Header.Get("X-File-Name"))
	if err != nil {
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: err.Error()})
		return
	}
	// A name without an extension says nothing: its bytes decide alone.
	if path.Ext(name) != "" && !Accepts(req.Types, name, "") && !Accepts(req.Types, name, baseType(r.Header.Get("Content-Type"))) {
		rt.answer(w, http.StatusUnsupportedMediaType, Outcome{State: StateWaiting, Message: fmt.Sprintf(
			"The assistant asked for %s, and %q is not one; nothing was stored. Choose a file of that type.", Describe(req.Types), name)})
		return
	}
	declared, err := declaredSize(r)
	if err != nil {
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: err.Error()})
		return
	}
	if declared != nil && *declared > req.MaxSize {
		rt.answer(w, http.StatusRequestEntityTooLarge, Outcome{State: StateWaiting, Message: fmt.Sprintf(
			"The file is %s; the assistant asked for one of at most %s. Nothing was stored: choose a smaller file.", sizeText(*declared), sizeText(req.MaxSize))})
		return
	}
	if left := rt.quotaLeft(req.UserID); left >= 0 && declared != nil && *declared > left {
		rt.answer(w, http.StatusRequestEntityTooLarge, Outcome{State: StateWaiting, Message: quotaText(*declared, left)})
		return
	}
	if _, err := rt.Store.StartUpload(req.UserID, req.ID); err != nil {
		rt.refuse(w, r, err)
		return
	}
	got, err := rt.receive(r.Context(), req, name, r.Body, declared)
	if err != nil {
		if endErr := rt.Store.EndUpload(req.UserID, req.ID); endErr != nil {
			rt.Log.Error("Could not free a file request after a failed upload; it frees itself later", "user_id", req.UserID, "error", endErr.Error())
		}
		rt.Received(r.Context(), req, err)
		rt.uploadFailed(w, req, err)
		return
	}
	rt.Received(r.Context(), got, nil)
	f := got.File
	rt.answer(w, http.StatusCreated, Outcome{State: StateReceived, Name: f.Name, Size: f.Size, Type: f.Type, SHA256: f.SHA256,
		Message: "Done: the assistant has your file. It is attached to a post only once you accept that post, where you see it again."})
}

// errWrongType is a received file whose bytes are not of the types asked.
type errWrongType struct{ name, detected, mediaType, asked string }

func (e errWrongType) Error() string {
	return fmt.Sprintf("The assistant asked for %s, and the bytes of %q are %s (%s), whatever its name says; nothing was stored. Choose a file of that type.",
		e.asked, e.name, e.detected, e.mediaType)
}

// errSizeSaid is a size the page said that is not a number, or not the
// length the browser sends.
var errSizeSaid = errors.New("the size the page gave (X-File-Size) is not the length the browser sends; nothing was stored. Reload the page and choose the file again")

// declaredSize is the file's size as the sender declared it: the size the
// page read from the file (X-File-Size) and the request's Content-Length,
// which must agree; nil when neither was given.
func declaredSize(r *http.Request) (*int64, error) {
	length, err := workspace.DeclaredLength(r)
	if err != nil {
		return nil, errors.New("the request's Content-Length is not one number of bytes; nothing was stored. Choose the file again")
	}
	said := r.Header.Get("X-File-Size")
	if said == "" {
		return length, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(said), 10, 64)
	if err != nil || n < 0 || (length != nil && *length != n) {
		return nil, errSizeSaid
	}
	return &n, nil
}

// receive stores the body as a new workspace file under a name no other
// file has, once its first bytes show it is of a type asked and all the
// bytes declared arrived, and answers the request with a handle pinned to
// those bytes. Nothing is kept of a refused file, and the request waits on.
func (rt *Routes) receive(ctx context.Context, req Request, name string, body io.Reader, declared *int64) (Request, error) {
	br := bufio.NewReaderSize(body, headBytes)
	head, err := br.Peek(headBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return Request{}, fmt.Errorf("read the upload: %w", err)
	}
	// Peek's slice is the reader's buffer, which the write below reuses.
	head = bytes.Clone(head)
	if declared != nil && int64(len(head)) < min(*declared, headBytes) {
		// Cut short before its first bytes were all here: not a file of
		// the wrong type, a file that did not arrive.
		return Request{}, &workspace.SizeError{Received: int64(len(head)), Declared: *declared}
	}
	if !AcceptsBytes(req.Types, name, head) {
		_, detected, _ := fileview.Sniff(head, name)
		return Request{}, errWrongType{name: name, detected: detected, mediaType: MediaType(head, name), asked: Describe(req.Types)}
	}
	f, err := rt.Workspace.Write(ctx, req.UserID, name, br, workspace.WriteOptions{MaxSize: req.MaxSize, Size: declared, Claim: workspace.ClaimFree})
	if err != nil {
		return Request{}, err
	}
	drop := func() {
		if err := rt.Workspace.Delete(req.UserID, f.Name); err != nil && !errors.Is(err, workspace.ErrNotFound) {
			rt.Log.Error("Could not delete a refused file from the workspace; it expires in 24 hours", "user_id", req.UserID, "error", err.Error())
		}
	}
	handle, handleID, err := rt.Workspace.HandleFor(req.UserID, f)
	if err != nil {
		drop()
		return Request{}, err
	}
	got, err := rt.Store.Receive(req.UserID, req.ID, File{Name: f.Name, Size: f.Size, Type: MediaType(head, f.Name), SHA256: f.SHA256, Handle: handle, HandleID: handleID})
	if err != nil {
		drop()
		return Request{}, err
	}
	return got, nil
}

// fileName is the name the browser sent (percent-encoded, as the page's
// script sends it), made a workspace name: the last path element, control
// characters dropped.
func fileName(header string) (string, error) {
	name, err := url.PathUnescape(header)
	if err != nil || strings.TrimSpace(name) == "" {
		return "", errors.New("the file's name is missing (X-File-Name, percent-encoded); nothing was stored. Choose the file again")
	}
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if len(name) > workspace.MaxNameBytes {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		name = strings.ToValidUTF8(name[:workspace.MaxNameBytes-len(ext)], "") + ext
	}
	if err := workspace.CheckName(name); err != nil {
		return "", fmt.Errorf("the file's name cannot be kept (%v); nothing was stored. Rename the file and choose it again", err)
	}
	return name, nil
}

func baseType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if mt == "application/octet-stream" {
		return ""
	}
	return mt
}

func (rt *Routes) uploadFailed(w http.ResponseWriter, req Request, err error) {
	var wrong errWrongType
	var nameErr *workspace.NameError
	limits := rt.Workspace.Limits()
	var sizeErr *workspace.SizeError
	switch {
	case errors.As(err, &wrong):
		rt.answer(w, http.StatusUnsupportedMediaType, Outcome{State: StateWaiting, Message: wrong.Error()})
	case errors.As(err, &sizeErr):
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: sizeErr.Sentence() + " Send the file again: the request still waits for it."})
	case errors.As(err, &nameErr):
		rt.answer(w, http.StatusBadRequest, Outcome{State: StateWaiting, Message: nameErr.Error() + "; nothing was stored. Rename the file and choose it again."})
	case errors.Is(err, workspace.ErrTooLarge):
		rt.answer(w, http.StatusRequestEntityTooLarge, Outcome{State: StateWaiting, Message: fmt.Sprintf(
			"The file is larger than the %s the assistant asked for; nothing was stored. Choose a smaller file.", sizeText(min(req.MaxSize, limits.MaxFileBytes)))})
	case errors.Is(err, workspace.ErrQuota):
		rt.answer(w, http.StatusRequestEntityTooLarge, Outcome{State: StateWaiting, Message: quotaText(-1, rt.quotaLeft(req.UserID))})
	case errors.Is(err, workspace.ErrTooMany):
		rt.answer(w, http.StatusConflict, Outcome{State: StateWaiting, Message: fmt.Sprintf(
			"Your workspace already holds %d files; nothing was stored. Ask the assistant to delete files you no longer need (files_delete), then choose the file again.", workspace.MaxFiles)})
	case errors.Is(err, ErrAnswered):
		rt.answer(w, http.StatusConflict, Outcome{State: StateReceived, Message: "This request was answered already; nothing more was stored."})
	default:
		rt.Log.Error("A file given for a file request could not be stored", "user_id", req.UserID, "error", err.Error())
		rt.answer(w, http.StatusInternalServerError, Outcome{State: StateWaiting, Message: "Mattermost could not store the file just now; nothing was kept. Try again in a moment."})
	}
}

func quotaText(size, left int64) string {
	if size < 0 {
		return fmt.Sprintf("Your workspace has %s left, not enough for this file; nothing was stored. Ask the assistant to delete files you no longer need (files_delete), then choose the file again.", sizeText(left))
	}
	return fmt.Sprintf("The file is %s and your workspace has %s left; nothing was stored. Ask the assistant to delete files you no longer need (files_delete), then choose the file again.", sizeText(size), sizeText(left))
}

// refuse answers what cannot be served: another person's request or a
// missing one is not found; a program is told where the person answers.
func (rt *Routes) refuse(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "The file request could not be read; try again."
	switch {
	case errors.Is(err, ErrNotFound):
		status, msg = http.StatusNotFound, notFoundText
	case errors.Is(err, ErrNotThePerson):
		status, msg = http.StatusForbidden, ErrNotThePerson.Error()+"."
	case errors.Is(err, ErrAnswered):
		status, msg = http.StatusConflict, "This request was answered already; nothing more was stored."
	case errors.Is(err, ErrUploading):
		status, msg = http.StatusConflict, "A file is being uploaded for this request, from another tab or device; wait for it, or try again in a few minutes."
	default:
		rt.Log.Error("Serving a file request failed", "error", err.Error())
	}
	if r.Method == http.MethodGet {
		response.SecurePage(w)
		http.Error(w, msg, status)
		return
	}
	rt.answer(w, status, Outcome{Message: msg})
}

func (rt *Routes) answer(w http.ResponseWriter, status int, o Outcome) {
	response.JSON(w, status, o)
}

func answeredText(req Request) string {
	switch req.State {
	case StateReceived:
		return "You gave a file for this request already; the assistant has it."
	case StateCancelled:
		return "The assistant withdrew this request: it no longer waits for a file. You can close this page."
	}
	return ""
}

// acceptAttr is the file picker's accept attribute: the types as the
// browser takes them.
func acceptAttr(types []string) string { return strings.Join(types, ",") }

// sizeText is a size as a person reads it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

type pageData struct {
	Request
	CSRF, Accept, TypesText, MaxText, ExpiresText, Nonce string
	Quota                                                int64
}

// Answered is whether the page only tells the outcome.
func (d pageData) Answered() bool { return d.State != StateWaiting }

// Outcome is what the page says of an answered request.
func (d pageData) OutcomeText() string { return answeredText(d.Request) }

// FileSize is the given file's size as a person reads it.
func (d pageData) FileSize() string {
	if d.File == nil {
		return ""
	}
	return sizeText(d.File.Size)
}

// Left is how long the request still waits, for a person.
func (d pageData) Left() string {
	if m := int(time.Until(d.ExpiresAt()).Round(time.Minute).Minutes()); m > 1 {
		return fmt.Sprintf("%d minutes", m)
	}
	return "a minute"
}

var pageTmpl = template.Must(template.New("upload").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Answered}}File request{{else}}An AI assistant asks you for a file{{end}}</title>
<style>
*{box-sizing:border-box}
[hidden]{display:none!important}
` + approval.PageStyle + `.purpose{margin:0;padding:.6rem 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
.drop{display:block;margin:1rem 0 0;padding:1.6rem 1rem;border:2px dashed #9a9da4;border-radius:10px;background:#fff;text-align:center;cursor:pointer}
.drop.over{border-color:#1c58d9;background:#eef3fd}
.drop strong{display:block;font-size:1.05rem}
.drop input{display:block;margin:.8rem auto 0;max-width:100%}
.chosen,.result{margin:1rem 0 0}
progress{width:100%;height:1rem}
.sub{color:#5d6068;font-size:.9rem;overflow-wrap:anywhere}
code{overflow-wrap:anywhere}
.result[data-state=received]{border-left:6px solid #2a8a4a}
.result[data-state=refused]{border-left:6px solid #c43d3d}
.outcome{margin:.4rem 0 1rem;padding:1rem 1.2rem;border-radius:8px;border:1px solid #dcdee2;border-left-width:6px;background:#fff}
.outcome[data-state=received]{border-left-color:#2a8a4a}
.outcome[data-state=cancelled]{border-left-color:#8a8d93}
@media (max-width:32rem){main{padding:1rem .75rem 2rem}h1{font-size:1.35rem}dl.facts{grid-template-columns:minmax(0,1fr);gap:0}dl.facts dd{margin-bottom:.5rem}}
@media (prefers-color-scheme:dark){
body{background:#1b1d22;color:#e3e4e7}.card,.drop,.outcome,.ai{background:#25272d;border-color:#3f4350}
.ai figcaption{background:#2f2a4a;color:#cfc6ff;border-color:#3f4350}.kicker,h2,.sub,dl.facts dt{color:#a6a9b0}.drop.over{background:#1f2a44}}
</style></head>
<body>
<main id="file-request" data-id="{{.ID}}" data-state="{{.State}}" data-csrf="{{.CSRF}}" data-max="{{.MaxSize}}" data-quota="{{.Quota}}">
{{if .Answered}}
<p class="kicker">File request</p>
<div id="outcome" class="outcome" data-state="{{.State}}" role="status"><h1>{{if eq .State "received"}}Done{{else}}Withdrawn{{end}}</h1>
<p>{{.OutcomeText}}</p>
{{with .File}}<p class="sub"><span id="file-name">{{.Name}}</span> · {{$.FileSize}} · {{.Type}}<br>sha256 <code id="file-sha256">{{.SHA256}}</code></p>{{end}}
</div>
<p class="sub">You can close this page.</p>
{{else}}
<p class="kicker">An AI assistant asks you for a file</p>
<h1>Give a file to your AI assistant</h1>
<figure class="ai"><figcaption>Written by the AI: what the file is for</figcaption><p id="purpose" class="purpose">{{.Purpose}}</p></figure>
<h2>What it takes</h2>
<dl class="facts card">
{{if .Client}}<dt>Asked through</dt><dd id="client">the client that names itself “{{.Client}}”</dd>{{end}}
<dt>Types</dt><dd id="types">{{.TypesText}}</dd>
<dt>Largest</dt><dd id="max-size">{{.MaxText}}</dd>
<dt>Answer by</dt><dd>{{.ExpiresText}} (in about {{.Left}}); after that the request is gone.</dd>
</dl>
<label id="drop" class="drop" for="file"><strong>Drop a file here, or choose one</strong>
<span class="sub">It goes to your own workspace in Mattermost, not to the AI's screen. It is attached to a post only once you accept that post.</span>
<input id="file" type="file"{{if .Accept}} accept="{{.Accept}}"{{end}}></label>
<div id="chosen" class="chosen card" hidden><p><strong id="chosen-name"></strong></p><p class="sub"><span id="chosen-size"></span> · <span id="chosen-type"></span></p><progress id="progress" max="100" value="0"></progress></div>
<div id="result" class="result card" role="status" hidden></div>
<script nonce="{{.Nonce}}">
(function(){
var main=document.getElementById('file-request'),input=document.getElementById('file'),drop=document.getElementById('drop');
var chosen=document.getElementById('chosen'),bar=document.getElementById('progress'),result=document.getElementById('result');
var max=Number(main.dataset.max),quota=Number(main.dataset.quota),busy=false;
function size(n){return n>=1048576?(n/1048576).toFixed(1)+' MiB':n>=1024?(n/1024).toFixed(1)+' KiB':n+' bytes';}
function say(state,text,extra){result.hidden=false;result.dataset.state=state;result.textContent='';var p=document.createElement('p');p.id='result-text';p.textContent=text;result.appendChild(p);if(extra){var q=document.createElement('p');q.className='sub';q.id='result-sha256';q.textContent=extra;result.appendChild(q);}}
function send(file){
 if(busy||!file)return;
 document.getElementById('chosen-name').textContent=file.name;document.getElementById('chosen-size').textContent=size(file.size);
 document.getElementById('chosen-type').textContent=file.type||'unknown type';chosen.hidden=false;result.hidden=true;bar.value=0;
 if(file.size>max){say('refused','The file is '+size(file.size)+'; the assistant asked for one of at most '+size(max)+'. Choose a smaller file.');return;}
 if(quota>=0&&file.size>quota){say('refused','Your workspace has '+size(quota)+' left, not enough for this file. Ask the assistant to delete files you no longer need (files_delete), then choose the file again.');return;}
 busy=true;var x=new XMLHttpRequest();x.open('POST',location.pathname);
 x.setRequestHeader('X-CSRF-Token',main.dataset.csrf);x.setRequestHeader('X-File-Name',encodeURIComponent(file.name));x.setRequestHeader('X-File-Size',String(file.size));
 x.setRequestHeader('Content-Type',file.type||'application/octet-stream');
 x.upload.onprogress=function(e){if(e.lengthComputable)bar.value=Math.round(100*e.loaded/e.total);};
 x.onload=function(){busy=false;var o={};try{o=JSON.parse(x.responseText);}catch(e){}
  if(x.status===201){bar.value=100;main.dataset.state='received';drop.hidden=true;say('received',o.message,'sha256 '+o.sha256);}
  else{say('refused',o.message||('The upload failed ('+x.status+'); try again.'));}};
 x.onerror=function(){busy=false;say('refused','The upload was interrupted; nothing was kept. Check your connection and choose the file again.');};
 x.send(file);}
input.addEventListener('change',function(){send(input.files[0]);});
drop.addEventListener('dragover',function(e){e.preventDefault();drop.classList.add('over');});
drop.addEventListener('dragleave',function(){drop.classList.remove('over');});
drop.addEventListener('drop',function(e){e.preventDefault();drop.classList.remove('over');send(e.dataTransfer.files[0]);});
})();
</script>
{{end}}
</main>
</body></html>`))

// Reason is a short code for the audit trail of why an upload was refused.
func Reason(err error) string {
	var wrong errWrongType
	var notAdmitted errNotAdmitted
	switch {
	case errors.As(err, &wrong):
		return "wrong_type"
	case errors.As(err, &notAdmitted):
		return notAdmitted.reason
	case errors.Is(err, workspace.ErrTooLarge):
		return "too_large"
	case errors.Is(err, workspace.ErrSizeMismatch):
		return "cut_short"
	case errors.Is(err, workspace.ErrQuota):
		return "quota"
	case errors.Is(err, workspace.ErrTooMany):
		return "too_many_files"
	case errors.Is(err, ErrAnswered):
		return "answered"
	}
	return "failed"
}
