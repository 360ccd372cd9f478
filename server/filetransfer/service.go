package filetransfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// maxPrepareNameBytes bounds the name a client asks an upload for, as the
// workspace bounds a file's name.
const maxPrepareNameBytes = 255

// MetaKey is the _meta key of a tool result that gives a file: the
// transport turns it into a file content block for a client that takes
// file outputs (and drops it for any other).
const MetaKey = "mattermost/file_value"

// ErrNotFound is a file URI that names nothing the caller can reach:
// unknown, expired, or another person's.
var ErrNotFound = errors.New("not found")

// Upload is a single-use upload into the caller's workspace.
type Upload struct {
	UserID, Name, URL string
	ExpiresAt         time.Time
}

// Download is a presigned download.
type Download struct {
	URL       string
	ExpiresAt time.Time
}

// Backend is where the files are, as the caller of ctx: their workspace
// and the attachments they can read. Its refusals (refusal.Refusal) say
// what to do; ErrNotFound is a file the caller cannot reach.
type Backend interface {
	// Upload issues a single-use upload of at most size bytes that writes
	// a new file in the caller's workspace, named after name.
	Upload(ctx context.Context, name string, size int64) (Upload, error)
	// Download issues a presigned download of what ref names.
	Download(ctx context.Context, ref Ref) (Download, error)
	// Store writes an inline file as a new file of the caller's workspace
	// and answers its name.
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
	case MethodPrepareUpload:
		if !cap.Inputs() {
			return nil, notDeclared(method, "inputTransfer")
		}
		return s.prepare(ctx, params)
	case MethodGetDownload:
		if !cap.Any() {
			return nil, notDeclared(method, "output")
		}
		return s.download(ctx, params)
	}
	return nil, &Error{Code: codeNotSupported, Message: "Method not found: " + method}
}

func notDeclared(method, field string) *Error {
	return &Error{Code: codeNotSupported, Message: fmt.Sprintf(
		"%s is offered to clients that declare the files capability with %s and the https transport at initialize (draft SEP-2631); this client did not. Attach files with files[] of the posting tool instead.", method, field)}
}

func (s *Service) prepare(ctx context.Context, raw json.RawMessage) (any, *Error) {
	var p PrepareParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalid("files/prepareUpload takes {name, mimeType, size}: "+err.Error()+".", nil)
	}
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" || len(p.Name) > maxPrepareNameBytes || !utf8.ValidString(p.Name) {
		return nil, invalid(fmt.Sprintf("name must be the file's name, at most %d bytes.", maxPrepareNameBytes), nil)
	}
	if p.Size == nil || *p.Size < 0 {
		return nil, invalid("size must be the file's length in bytes: the upload takes at most that many.", nil)
	}
	if max := s.Backend.MaxFileBytes(); *p.Size > max {
		return nil, invalid(fmt.Sprintf("The file is %d bytes; this server takes files of at most %d bytes (%d MiB).", *p.Size, max, max>>20),
			map[string]any{"reason": "maxFileSizeExceeded", "maxFileSize": max, "actualSize": *p.Size})
	}
	up, err := s.Backend.Upload(ctx, p.Name, *p.Size)
	if err != nil {
		return nil, backendError(err)
	}
	headers := map[string]string{}
	if p.MIMEType != "" && len(p.MIMEType) <= 255 {
		headers["Content-Type"] = p.MIMEType
	}
	return Prepared{
		File:     FileValue{URI: WorkspaceURI(up.UserID, up.Name), Name: up.Name, MIMEType: p.MIMEType, Size: *p.Size},
		Transfer: Transfer{Transport: TransportHTTPS, Method: "PUT", URL: up.URL, Headers: headers, ExpiresAt: up.ExpiresAt.UTC().Format(time.RFC3339)},
	}, nil
}

func (s *Service) download(ctx context.Context, raw json.RawMessage) (any, *Error) {
	var p DownloadParams
	if err := json.Unmarshal(raw, &p); err != nil || p.URI == "" {
		return nil, invalid("files/getDownload takes {uri}: a file URI this server gave.", nil)
	}
	ref, err := s.ref(ctx, p.URI)
	if err != nil {
		return nil, backendError(err)
	}
	d, err := s.Backend.Download(ctx, ref)
	if err != nil {
		return nil, backendError(err)
	}
	return Transfer{Transport: TransportHTTPS, Method: "GET", URL: d.URL, ExpiresAt: d.ExpiresAt.UTC().Format(time.RFC3339)}, nil
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

func invalid(msg string, data any) *Error { return &Error{Code: codeInvalid, Message: msg, Data: data} }

// backendError words what the backend refused.
func backendError(err error) *Error {
	if r, ok := refusal.As(err); ok {
		return invalid(strings.TrimSpace(r.What+" "+r.Next), nil)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return invalid("No such file: the file URI is unknown, expired (workspace files last 24 hours), or not yours. Give the file again.",
			map[string]any{"reason": "notFound"})
	case errors.Is(err, ErrNotAFileURI):
		return invalid("This is not a file URI of this server: give one files/prepareUpload or a tool answered (mcp-file://mattermost/...), or a data: URI.",
			map[string]any{"reason": "invalidUri"})
	case errors.Is(err, ErrTooLarge):
		return invalid(fmt.Sprintf("A data: URI holds at most %d MiB; send a larger file with files/prepareUpload.", MaxInlineBytes>>20),
			map[string]any{"reason": "maxFileSizeExceeded", "maxFileSize": MaxInlineBytes})
	}
	return &Error{Code: codeInternal, Message: "The file could not be prepared just now; try again in a moment."}
}

// inputSchemaProperty is the file_uris property a tool that takes files
// gets for a client that sends file URIs.
var inputSchemaProperty = map[string]any{
	"type":        "array",
	"items":       map[string]any{"type": "string", "format": "uri"},
	"maxItems":    MaxURIs,
	"description": "The person's own files to attach, as file URIs (files/prepareUpload) or data: URIs; each joins files[].",
}

// DecorateTools adds, to a tools/list result, the file_uris argument and
// its inputFiles declaration to every tool that takes files. Anything it
// cannot read passes unchanged.
func (s *Service) DecorateTools(result json.RawMessage) json.RawMessage {
	var res map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil || json.Unmarshal(res["tools"], &tools) != nil {
		return result
	}
	declared, _ := json.Marshal(map[string]any{URIsArgument: map[string]any{"maxFileSize": s.Backend.MaxFileBytes(),
		"purpose": "Files of yours to attach to the message; you see each again, with its size and sha256, before anything is sent."}})
	for _, tool := range tools {
		var name string
		if json.Unmarshal(tool["name"], &name) != nil || !s.TakesFiles(name) {
			continue
		}
		var schema map[string]any
		if json.Unmarshal(tool["inputSchema"], &schema) != nil {
			continue
		}
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		props[URIsArgument] = inputSchemaProperty
		schema["properties"] = props
		raw, err := json.Marshal(schema)
		if err != nil {
			continue
		}
		tool["inputSchema"], tool["inputFiles"] = raw, declared
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		return result
	}
	res["tools"] = raw
	out, err := json.Marshal(res)
	if err != nil {
		return result
	}
	return out
}

// Arguments turns the file URIs of a call to a tool that takes files into
// files[] entries the tool reads: a workspace file by name, an attachment
// by id, a data: URI stored first as a new workspace file. Arguments
// without file URIs pass unchanged.
func (s *Service) Arguments(ctx context.Context, args json.RawMessage) (json.RawMessage, *Error) {
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
		return nil, invalid(URIsArgument+" is an array of URI strings.", nil)
	}
	if len(uris) > MaxURIs {
		return nil, invalid(fmt.Sprintf("%s holds at most %d files, as a post does; it holds %d.", URIsArgument, MaxURIs, len(uris)), nil)
	}
	var files []map[string]any
	if f, ok := m["files"]; ok && json.Unmarshal(f, &files) != nil {
		return args, nil // the tool refuses files[] it cannot read
	}
	for i, uri := range uris {
		entry, err := s.entry(ctx, uri)
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
func (s *Service) entry(ctx context.Context, uri string) (map[string]any, error) {
	if IsDataURI(uri) {
		in, err := ParseDataURI(uri)
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		if err != nil {
			return nil, refusal.New("The data: URI cannot be read: "+err.Error()+".", "Send it as data:<type>;name=<file name>;base64,<bytes>.")
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
