package workspace

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
)

// Paths under the plugin's route.
const (
	// APIPath takes the same Mattermost credential as the MCP endpoint.
	APIPath = "/api/v1/files"
	// DownloadPath and UploadPath take a presigned token instead: they serve
	// whatever cannot hold a Mattermost credential (a sandbox, a script).
	DownloadPath = "/files/d/"
	UploadPath   = "/files/u/"
)

// Logger is the plugin API's key-value logger.
type Logger interface {
	Info(msg string, keyValuePairs ...any)
	Error(msg string, keyValuePairs ...any)
}

// Routes serves the REST API and the presigned URLs.
type Routes struct {
	Store *Store
	// Authenticate is the MCP endpoint's own check (transport.Authenticate):
	// the user comes only from the header Mattermost sets.
	Authenticate func(w http.ResponseWriter, r *http.Request) (string, bool)
	// Limit counts a request against the person's rate of calls
	// (transport.LimitRequest); over it, it answers 429 with Retry-After
	// and reports false. nil: no limit.
	Limit func(w http.ResponseWriter, userID, route string) bool
	// Off is whether the admin has turned the workspace toolset off now:
	// the side channel stands for the workspace's tools (package paths),
	// its URLs included, so it answers nothing then. nil: never off.
	Off func() bool
	Log Logger
}

// offText is what the side channel answers while the admin has turned the
// workspace off.
const offText = "The admin has turned off the file workspace on this Mattermost (System Console > Plugins > MCP Server), so nothing was read or stored."

// admitted is whether this request may run: the workspace is on (see Off)
// and the person's rate admits it (see Limit).
func (h *Routes) admitted(w http.ResponseWriter, userID, route string) bool {
	if h.Off != nil && h.Off() {
		http.Error(w, offText, http.StatusForbidden)
		return false
	}
	return h.Limit == nil || h.Limit(w, userID, route)
}

// Register adds the routes to the plugin's router.
func (h *Routes) Register(r *mux.Router) {
	r.HandleFunc(APIPath, h.list).Methods(http.MethodGet)
	r.HandleFunc(APIPath+"/{name}", h.file).Methods(http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete)
	r.HandleFunc(DownloadPath+"{token}", h.download).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(UploadPath+"{token}", h.upload).Methods(http.MethodPut)
}

// Entry is a file as the REST API and the tools describe it.
type Entry struct {
	Name      string    `json:"name"`
	Size      int64     `json:"size"`
	Type      string    `json:"type"`
	SHA256    string    `json:"sha256"`
	WrittenAt time.Time `json:"written_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// EntryOf describes a file without its storage details.
func EntryOf(f File) Entry {
	return Entry{Name: f.Name, Size: f.Size, Type: f.Type, SHA256: f.SHA256, WrittenAt: f.WrittenAt, ExpiresAt: f.ExpiresAt()}
}

func (h *Routes) list(w http.ResponseWriter, r *http.Request) {
	userID, ok := h.Authenticate(w, r)
	if !ok || !h.admitted(w, userID, "rest_list") {
		return
	}
	files, err := h.Store.List(userID)
	if err != nil {
		h.fail(w, "list", userID, err)
		return
	}
	out := struct {
		Files []Entry `json:"files"`
	}{Files: make([]Entry, 0, len(files))}
	for _, f := range files {
		out.Files = append(out.Files, EntryOf(f))
	}
	response.JSON(w, http.StatusOK, out)
}

func (h *Routes) file(w http.ResponseWriter, r *http.Request) {
	userID, ok := h.Authenticate(w, r)
	if !ok || !h.admitted(w, userID, "rest_"+strings.ToLower(r.Method)) {
		return
	}
	name := mux.Vars(r)["name"]
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.serve(w, r, "rest_get", userID, name, "")
	case http.MethodPut:
		declared, err := DeclaredLength(r)
		if err != nil {
			h.fail(w, "rest_put", userID, err)
			return
		}
		h.receive(w, r, "rest_put", userID, name, WriteOptions{Size: declared})
	case http.MethodDelete:
		if err := h.Store.Delete(userID, name); err != nil {
			h.fail(w, "rest_delete", userID, err)
			return
		}
		h.Log.Info("Workspace request", "route", "rest_delete", "user_id", userID, "status", http.StatusNoContent)
		w.WriteHeader(http.StatusNoContent)
	}
}

// download serves a presigned download. The token is never logged.
func (h *Routes) download(w http.ResponseWriter, r *http.Request) {
	userID, f, err := h.Store.Download(mux.Vars(r)["token"])
	if err != nil {
		h.fail(w, "presigned_get", "", err)
		return
	}
	if !h.admitted(w, userID, "presigned_get") {
		return
	}
	h.serve(w, r, "presigned_get", userID, f.Name, f.SHA256)
}

// upload receives a presigned upload. The name and terms come from the
// token's record; the token is spent only by a body that became a file
// (Store.WriteUpload), so a PUT cut short may be sent again. A person over
// their rate is refused before anything is read, so the URL still works
// later.
func (h *Routes) upload(w http.ResponseWriter, r *http.Request) {
	token := mux.Vars(r)["token"]
	owner, err := h.Store.UploadOwner(token)
	if err != nil {
		h.fail(w, "presigned_put", "", err)
		return
	}
	if !h.admitted(w, owner, "presigned_put") {
		return
	}
	declared, err := DeclaredLength(r)
	if err != nil {
		h.fail(w, "presigned_put", owner, err)
		return
	}
	f, err := h.Store.WriteUpload(r.Context(), token, r.Body, declared)
	if err != nil {
		h.fail(w, "presigned_put", owner, err)
		return
	}
	h.Log.Info("Workspace request", "route", "presigned_put", "user_id", owner, "status", http.StatusCreated, "bytes", f.Size)
	response.JSON(w, http.StatusCreated, EntryOf(f))
}

// DeclaredLength is the body's length as the client declared it, nil when
// it declared none (a chunked body). Mattermost's plugin bridge passes no
// ContentLength (0 whatever was sent) but keeps the Content-Length header,
// which is read where ContentLength says nothing.
func DeclaredLength(r *http.Request) (*int64, error) {
	if r.ContentLength > 0 {
		return Exactly(r.ContentLength), nil
	}
	values := r.Header.Values("Content-Length")
	if len(values) == 0 {
		// ContentLength 0 is also what the bridge says of every body: it
		// declares nothing.
		return nil, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(values[0]), 10, 64)
	for _, v := range values[1:] {
		if strings.TrimSpace(v) != strings.TrimSpace(values[0]) {
			err = errBadLength
		}
	}
	if err != nil || n < 0 {
		return nil, errBadLength
	}
	return Exactly(n), nil
}

// errBadLength is a Content-Length that is not one number of bytes.
var errBadLength = errors.New("the Content-Length header is not one non-negative number")

// serve streams a file; a non-empty sha256 must still be the file's (a
// presigned URL stands for the bytes it was made for).
func (h *Routes) serve(w http.ResponseWriter, r *http.Request, route, userID, name, sha string) {
	f, rc, err := h.Store.Open(userID, name)
	if err == nil && sha != "" && f.SHA256 != sha {
		rc.Close()
		err = ErrNotFound
	}
	if err != nil {
		h.fail(w, route, userID, err)
		return
	}
	defer rc.Close()
	SetDownloadHeaders(w.Header(), f.Name)
	w.Header().Set("Content-Length", strconv.FormatInt(f.Size, 10))
	w.Header().Set("ETag", `"`+f.SHA256+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		h.Log.Info("Workspace request", "route", route, "method", r.Method, "user_id", userID, "status", http.StatusOK)
		return
	}
	n, err := io.Copy(w, rc)
	if err != nil {
		// Headers are gone: the client sees a short body against Content-Length.
		h.Log.Error("Workspace download was cut short", "route", route, "user_id", userID, "bytes", n, "error", err.Error())
		return
	}
	h.Log.Info("Workspace request", "route", route, "method", r.Method, "user_id", userID, "status", http.StatusOK, "bytes", n)
}

func (h *Routes) receive(w http.ResponseWriter, r *http.Request, route, userID, name string, opts WriteOptions) {
	limit := h.Store.limits().MaxFileBytes
	if opts.MaxSize > 0 && opts.MaxSize < limit {
		limit = opts.MaxSize
	}
	if opts.Size != nil && *opts.Size > limit {
		h.fail(w, route, userID, ErrTooLarge)
		return
	}
	f, err := h.Store.Write(r.Context(), userID, name, r.Body, opts)
	if err != nil {
		h.fail(w, route, userID, err)
		return
	}
	h.Log.Info("Workspace request", "route", route, "user_id", userID, "status", http.StatusCreated, "bytes", f.Size)
	response.JSON(w, http.StatusCreated, EntryOf(f))
}

// fail answers an error with a status and a sentence that says what to do.
func (h *Routes) fail(w http.ResponseWriter, route, userID string, err error) {
	limits := h.Store.limits()
	status, msg := http.StatusInternalServerError, "Mattermost could not complete this; try again, and if it keeps failing ask an admin to check the server log."
	var nameErr *NameError
	var sizeErr *SizeError
	switch {
	case errors.As(err, &nameErr):
		status, msg = http.StatusBadRequest, nameErr.Error()
	case errors.Is(err, ErrNotFound):
		status, msg = http.StatusNotFound, "Not found. List your workspace with GET "+APIPath+"; a presigned URL works only until it expires (an upload URL only once): ask for a new one."
	case errors.Is(err, ErrTooLarge):
		status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than allowed (at most %d bytes here); nothing was stored. Ask for an upload with the right size.", limits.MaxFileBytes)
	case errors.Is(err, ErrQuota):
		status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("Your workspace would hold more than its %d MiB quota; nothing was stored. Delete files you no longer need first.", limits.QuotaBytes>>20)
	case errors.Is(err, ErrTooMany):
		status, msg = http.StatusConflict, fmt.Sprintf("Your workspace already holds %d files; nothing was stored. Delete files you no longer need first.", MaxFiles)
	case errors.As(err, &sizeErr):
		// More than the upload takes is too large; less is a body cut short.
		status, msg = http.StatusBadRequest, sizeErr.Sentence()+" Send the whole file again"+againWith(route)+"."
		if sizeErr.Received > sizeErr.Declared {
			status = http.StatusRequestEntityTooLarge
		}
	case errors.Is(err, errBadLength):
		status, msg = http.StatusBadRequest, "The Content-Length header is not one number of bytes; nothing was stored. Send the file with its exact length."
	case errors.Is(err, ErrUploadBusy):
		status, msg = http.StatusConflict, "An upload with this URL is under way; nothing more was stored. Wait for it to finish; if it fails, send the file again with this URL."
	case errors.Is(err, ErrExists):
		status, msg = http.StatusConflict, "A file of that name is in your workspace; nothing was stored. List your workspace with GET "+APIPath+" and choose another name."
	case errors.Is(err, ErrPinMismatch):
		status, msg = http.StatusUnprocessableEntity, "The bytes received do not match the sha256 given when the upload was requested; nothing was stored. Request a new upload with the right sha256."
	default:
		h.Log.Error("Workspace request failed", "route", route, "user_id", userID, "error", err.Error())
	}
	if status != http.StatusInternalServerError {
		h.Log.Info("Workspace request", "route", route, "user_id", userID, "status", status)
	}
	response.JSON(w, status, map[string]string{"error": http.StatusText(status), "message": msg})
}

// againWith says where a refused body may be sent again.
func againWith(route string) string {
	if route == "presigned_put" {
		return " to the same URL: it works until it expires"
	}
	return ""
}

// SetDownloadHeaders makes a response of file bytes inert in a browser: a
// download of opaque bytes, never rendered, never sniffed, sandboxed if it
// were, never cached. An uploaded page can never run in Mattermost's origin.
func SetDownloadHeaders(h http.Header, name string) {
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", ContentDisposition(name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", "no-store")
}

// ContentDisposition is "attachment" with the name as an ASCII fallback
// (RFC 6266) and exactly, percent-encoded as UTF-8 (RFC 8187).
func ContentDisposition(name string) string {
	var ascii, ext strings.Builder
	for _, r := range name {
		switch {
		case r < 0x20 || r >= 0x7f || r == '"' || r == '\\' || r == '%' || r == ';':
			ascii.WriteByte('_')
		default:
			ascii.WriteRune(r)
		}
	}
	for _, b := range []byte(name) {
		if isAttrChar(b) {
			ext.WriteByte(b)
		} else {
			fmt.Fprintf(&ext, "%%%02X", b)
		}
	}
	return fmt.Sprintf(`attachment; filename="%s"; filename*=UTF-8''%s`, ascii.String(), ext.String())
}

// isAttrChar is RFC 8187's attr-char.
func isAttrChar(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// URLs builds the public URLs of presigned tokens.
type URLs struct {
	// PluginURL is <site>/plugins/<id>, read when a URL is built.
	PluginURL func() string
}

// Download is the presigned download URL of a token.
func (u URLs) Download(token string) string {
	return u.PluginURL() + DownloadPath + url.PathEscape(token)
}

// Upload is the presigned upload URL of a token.
func (u URLs) Upload(token string) string { return u.PluginURL() + UploadPath + url.PathEscape(token) }
