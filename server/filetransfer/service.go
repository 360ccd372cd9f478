package filetransfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// JSON-RPC codes the SEP names for its errors.
const (
	codeNotSupported = -32601
	codeInvalid      = -32602
	codeInternal     = -32603
)

// MaxURIs bounds the file URIs of one call: a post takes at most 10 files.
const MaxURIs = 10

// maxUploadNameBytes bounds the name a client asks an upload for, as the
// workspace bounds a file's name.
const maxUploadNameBytes = 255

// maxMIMETypeBytes bounds a declared media type; the longest registered
// ones (Office formats) are under 80.
const maxMIMETypeBytes = 255

// MetaKey is the _meta key of a tool result that gives a file: the
// transport turns it into a file content block for a client that takes
// file outputs (and drops it for any other).
const MetaKey = "mattermost/file_value"

// Reasons in a refusal's data (data.reason). maxSizeExceeded is the SEP's
// own; it names no others, so the rest follow its style.
const (
	ReasonMaxSizeExceeded  = "maxSizeExceeded"
	ReasonNotFound         = "notFound"
	ReasonInvalidURI       = "invalidUri"
	ReasonTransferMode     = "transferModeNotAllowed"
	ReasonInvalidParams    = "invalidParams"
	ReasonDigestAlgorithm  = "unsupportedDigestAlgorithm"
	ReasonInvalidDigest    = "invalidDigest"
	ReasonInvalidMediaType = "invalidMimeType"
)

// ErrNotFound is a file URI that names nothing the caller can reach:
// unknown, expired, or another person's.
var ErrNotFound = errors.New("not found")

// errModeNotAllowed is a file URI from a client that declared no upload.
var errModeNotAllowed = errors.New("transfer mode not allowed")

// UploadRequest is what an authorized upload is held to.
type UploadRequest struct {
	// Name is the name asked for; the backend may answer another, free one.
	Name string
	// Size is the exact length declared, nil when none was.
	Size *int64
	// SHA256 is the hex sha256 the bytes must have, "" when none was declared.
	SHA256 string
}

// Upload is a single-use upload into the caller's workspace.
type Upload struct {
	UserID, Name, URL string
	ExpiresAt         time.Time
}

// Download is a presigned download of a file, and what the file is.
type Download struct {
	URL       string
	ExpiresAt time.Time
	Name      string
	MIMEType  string
	Size      int64
	SHA256    string // hex
}

// Backend is where the files are, as the caller of ctx: their workspace
// and the attachments they can read. Its refusals (refusal.Refusal) say
// what to do; ErrNotFound is a file the caller cannot reach.
type Backend interface {
	// Upload issues a single-use upload that writes a new file in the
	// caller's workspace, held to r; its name is fixed now, since the file
	// URI answered names it, and the write never replaces another file.
	Upload(ctx context.Context, r UploadRequest) (Upload, error)
	// Download issues a presigned download of what ref names.
	Download(ctx context.Context, ref Ref) (Download, error)
	// Store writes an inline file as a new file of the caller's workspace,
	// never replacing one, and answers its name.
	Store(ctx context.Context, in Inline) (string, error)
	// Caller is the user id of the caller of ctx.
	Caller(ctx context.Context) string
	// MaxFileBytes is the largest workspace file.
	MaxFileBytes() int64
}

// Error is a JSON-RPC error to answer.
type Error struct {
	Code    int
	Message string
	Data    any
}

// Service serves file transfer for the transport.
type Service struct {
	Backend Backend
	// TakesFiles is whether a tool takes the files of a post (files[]),
	// and so file URIs beside them.
	TakesFiles func(tool string) bool
	// GivesFiles is whether a tool's result may give a file (MetaKey).
	GivesFiles func(tool string) bool
}

// Serve answers a files/* method; cap is what the client declared.
func (s *Service) Serve(ctx context.Context, cap *Capability, method string, params json.RawMessage) (any, *Error) {
	switch method {
	case MethodAuthorizeUpload:
		if !cap.Uploads() {
			return nil, notDeclared(method, "upload")
		}
		return s.authorizeUpload(ctx, params)
	case MethodAuthorizeDownload:
		if !cap.Inputs() {
			return nil, notDeclared(method, "download")
		}
		return s.authorizeDownload(ctx, params)
	case methodPrepareUpload, methodGetDownload:
		renamed := map[string]string{methodPrepareUpload: MethodAuthorizeUpload, methodGetDownload: MethodAuthorizeDownload}[method]
		return nil, &Error{Code: codeNotSupported, Message: fmt.Sprintf(
			`%s was the name of an earlier draft of SEP-2631; this server follows the newer one: call %s, declaring the files capability {"upload": true, "download": true, "transports": ["https"]}.`, method, renamed)}
	}
	return nil, &Error{Code: codeNotSupported, Message: fmt.Sprintf("Method not found: %s. File transfer (draft SEP-2631) has %s and %s.", method, MethodAuthorizeUpload, MethodAuthorizeDownload)}
}

func notDeclared(method, field string) *Error {
	return &Error{Code: codeNotSupported, Message: fmt.Sprintf(
		`%s is offered to clients that declare the files capability with "%s": true and the https transport (draft SEP-2631), at initialize or in each request's _meta; this client did not. Attach files with files[] of the posting tool instead.`, method, field)}
}

func (s *Service) authorizeUpload(ctx context.Context, raw json.RawMessage) (any, *Error) {
	var p AuthorizeUploadParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalid(MethodAuthorizeUpload+" takes {name, mimeType, size, digest: {algorithm: \"sha-256\", value}}: "+err.Error()+".", ReasonInvalidParams, nil)
	}
	p.MIMEType = strings.TrimSpace(p.MIMEType)
	if p.MIMEType != "" {
		if _, _, err := mime.ParseMediaType(p.MIMEType); err != nil || len(p.MIMEType) > maxMIMETypeBytes {
			return nil, invalid(fmt.Sprintf("mimeType %.80q is not a media type; give one such as application/pdf, or leave it out.", p.MIMEType), ReasonInvalidMediaType, nil)
		}
	}
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" {
		p.Name = NameFor(p.MIMEType)
	}
	if len(p.Name) > maxUploadNameBytes || !utf8.ValidString(p.Name) {
		return nil, invalid(fmt.Sprintf("name must be the file's name, at most %d bytes of UTF-8.", maxUploadNameBytes), ReasonInvalidParams, nil)
	}
	max := s.Backend.MaxFileBytes()
	if p.Size != nil && *p.Size < 0 {
		return nil, invalid("size must be the file's length in bytes, 0 or more: the upload takes exactly that many.", ReasonInvalidParams, nil)
	}
	if p.Size != nil && *p.Size > max {
		return nil, tooLarge(*p.Size, max, "this server takes files of at most")
	}
	req := UploadRequest{Name: p.Name, Size: p.Size}
	var digest *Digest
	if p.Digest != nil {
		sha, err := p.Digest.SHA256Hex()
		switch {
		case errors.Is(err, errDigestAlgorithm):
			return nil, invalid(fmt.Sprintf("digest.algorithm %.40q is not one this server checks; give a %s digest, or leave the digest out.", p.Digest.Algorithm, DigestSHA256), ReasonDigestAlgorithm,
				map[string]any{"supportedAlgorithms": []string{DigestSHA256}})
		case err != nil:
			return nil, invalid("digest.value must be the file's sha-256 as base64url without padding (43 characters).", ReasonInvalidDigest, nil)
		}
		req.SHA256, digest = sha, DigestOfHex(sha)
	}
	up, err := s.Backend.Upload(ctx, req)
	if err != nil {
		return nil, backendError(err)
	}
	headers := map[string]string{}
	if p.MIMEType != "" {
		headers["Content-Type"] = p.MIMEType
	}
	file := FileValue{URI: WorkspaceURI(up.UserID, up.Name), Name: up.Name, MIMEType: p.MIMEType, Digest: digest}
	if p.Size != nil {
		file.Size = *p.Size
	}
	return AuthorizedUpload{
		File:   file,
		Upload: Transfer{Transport: TransportHTTPS, Method: "PUT", URL: up.URL, Headers: headers, ExpiresAt: up.ExpiresAt.UTC().Format(time.RFC3339)},
	}, nil
}

func (s *Service) authorizeDownload(ctx context.Context, raw json.RawMessage) (any, *Error) {
	var p AuthorizeDownloadParams
	if err := json.Unmarshal(raw, &p); err != nil || p.URI == "" {
		return nil, invalid(MethodAuthorizeDownload+" takes {uri}: a file URI this server gave.", ReasonInvalidParams, nil)
	}
	ref, err := s.ref(ctx, p.URI)
	if err != nil {
		return nil, backendError(err)
	}
	d, err := s.Backend.Download(ctx, ref)
	if err != nil {
		return nil, backendError(err)
	}
	// The file keeps the URI asked about, whatever copy serves its bytes:
	// a client matches the answer to the file it asked for.
	return AuthorizedDownload{
		File:     FileValue{URI: p.URI, Name: d.Name, MIMEType: d.MIMEType, Size: d.Size, Digest: DigestOfHex(d.SHA256)},
		Download: Transfer{Transport: TransportHTTPS, Method: "GET", URL: d.URL, ExpiresAt: d.ExpiresAt.UTC().Format(time.RFC3339)},
	}, nil
}

// ref reads a file URI of the caller's; another person's is not found.
func (s *Service) ref(ctx context.Context, uri string) (Ref, error) {
	ref, err := ParseURI(uri)
	if err != nil {
		return Ref{}, err
	}
	if ref.UserID != s.Backend.Caller(ctx) {
		return Ref{}, ErrNotFound
	}
	return ref, nil
}

func invalid(msg, reason string, data map[string]any) *Error {
	if data == nil {
		data = map[string]any{}
	}
	data["reason"] = reason
	return &Error{Code: codeInvalid, Message: msg, Data: data}
}

func tooLarge(size, max int64, what string) *Error {
	return invalid(fmt.Sprintf("The file is %d bytes; %s %d bytes (%d MiB). Nothing was kept.", size, what, max, max>>20), ReasonMaxSizeExceeded,
		map[string]any{"maxSize": max, "actualSize": size})
}

// backendError words what the backend refused.
func backendError(err error) *Error {
	if r, ok := refusal.As(err); ok {
		return &Error{Code: codeInvalid, Message: strings.TrimSpace(r.What + " " + r.Next)}
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return invalid("No such file: the file URI is unknown, expired (workspace files last 24 hours), or not yours. Give the file again.", ReasonNotFound, nil)
	case errors.Is(err, ErrNotAFileURI):
		return invalid("This is not a file URI of this server: give a data: URI, or a file URI that "+MethodAuthorizeUpload+" or a tool answered (mcp-file://mattermost/...).", ReasonInvalidURI, nil)
	case errors.Is(err, errModeNotAllowed):
		return invalid(`This client declared no upload (files {"upload": true}), so this field takes data: URIs only (x-mcp-file transferModes ["inline"]). Send the file as a data: URI, or attach a file of Mattermost by its id in files[].`, ReasonTransferMode,
			map[string]any{"transferModes": []string{ModeInline}})
	case errors.Is(err, ErrTooLarge):
		return invalid(fmt.Sprintf("A data: URI holds at most %d MiB; send a larger file with %s and its file URI.", MaxInlineBytes>>20, MethodAuthorizeUpload), ReasonMaxSizeExceeded,
			map[string]any{"maxSize": MaxInlineBytes})
	}
	return &Error{Code: codeInternal, Message: "The file could not be prepared just now; try again in a moment."}
}

// Arguments turns the file URIs of a call to a tool that takes files into
// files[] entries the tool reads: a workspace file by name, an attachment
// by id, a data: URI stored first as a new workspace file. Each is held to
// the transfer modes cap allows. Arguments without file URIs pass
// unchanged.
func (s *Service) Arguments(ctx context.Context, cap *Capability, args json.RawMessage) (json.RawMessage, *Error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args, nil
	}
	raw, ok := m[URIsArgument]
	if !ok {
		return args, nil
	}
	var uris []string
	if err := json.Unmarshal(raw, &uris); err != nil {
		return nil, invalid(URIsArgument+" is an array of URI strings: data: URIs or file URIs of this server.", ReasonInvalidParams, nil)
	}
	if len(uris) > MaxURIs {
		return nil, invalid(fmt.Sprintf("%s holds at most %d files, as a post does; it holds %d.", URIsArgument, MaxURIs, len(uris)), ReasonInvalidParams, nil)
	}
	var files []map[string]any
	if f, ok := m["files"]; ok && json.Unmarshal(f, &files) != nil {
		return args, nil // the tool refuses files[] it cannot read
	}
	for i, uri := range uris {
		entry, err := s.entry(ctx, cap, uri)
		if err != nil {
			e := backendError(err)
			e.Message = fmt.Sprintf("%s[%d]: %s", URIsArgument, i, e.Message)
			return nil, e
		}
		files = append(files, entry)
	}
	delete(m, URIsArgument)
	f, err := json.Marshal(files)
	if err != nil {
		return nil, &Error{Code: codeInternal, Message: err.Error()}
	}
	m["files"] = f
	out, err := json.Marshal(m)
	if err != nil {
		return nil, &Error{Code: codeInternal, Message: err.Error()}
	}
	return out, nil
}

// entry is the files[] entry of one file URI.
func (s *Service) entry(ctx context.Context, cap *Capability, uri string) (map[string]any, error) {
	if IsDataURI(uri) {
		in, err := ParseDataURI(uri)
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		if err != nil {
			return nil, refusal.New("The data: URI cannot be read: "+err.Error()+".", "Send it as data:<type>;base64,<bytes>.")
		}
		name, err := s.Backend.Store(ctx, in)
		if err != nil {
			return nil, err
		}
		return map[string]any{"workspace_file": name}, nil
	}
	ref, err := s.ref(ctx, uri)
	if err != nil {
		return nil, err
	}
	if !cap.Uploads() {
		return nil, errModeNotAllowed
	}
	if ref.Kind == KindAttachment {
		return map[string]any{"file_id": ref.Name}, nil
	}
	return map[string]any{"workspace_file": ref.Name}, nil
}

// Result moves the FileValue a tool put in its result's _meta into a file
// content block, for a client that takes file outputs; for any other it is
// dropped. A result without one passes unchanged.
func Result(result json.RawMessage, outputs bool) json.RawMessage {
	var res map[string]json.RawMessage
	var meta map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil || json.Unmarshal(res["_meta"], &meta) != nil {
		return result
	}
	raw, ok := meta[MetaKey]
	if !ok {
		return result
	}
	delete(meta, MetaKey)
	if len(meta) == 0 {
		delete(res, "_meta")
	} else if m, err := json.Marshal(meta); err == nil {
		res["_meta"] = m
	}
	var f FileValue
	if outputs && json.Unmarshal(raw, &f) == nil && f.URI != "" {
		var content []json.RawMessage
		_ = json.Unmarshal(res["content"], &content)
		if block, err := json.Marshal(Content(f)); err == nil {
			content = append(content, block)
		}
		if c, err := json.Marshal(content); err == nil {
			res["content"] = c
		}
	}
	out, err := json.Marshal(res)
	if err != nil {
		return result
	}
	return out
}
