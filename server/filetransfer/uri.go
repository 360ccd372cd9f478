package filetransfer

import (
	"errors"
	"net/url"
	"strings"
)

// File URIs name a file of one person: a file in their workspace, or a
// Mattermost attachment they could read when it was given. The person is
// in the URI so that another person's URI is refused as not found, never
// read as a file of the caller's that happens to have the same name.
//
//	mcp-file://mattermost/<user id>/workspace/<name, percent-encoded>
//	mcp-file://mattermost/<user id>/attachment/<file id>
const uriPrefix = "mcp-file://mattermost/"

// Kinds of file a URI names.
const (
	KindWorkspace  = "workspace"
	KindAttachment = "attachment"
)

// maxURIBytes bounds a file URI: a user id, a kind and a workspace name
// (at most 255 bytes, each up to three when percent-encoded).
const maxURIBytes = 1024

// Ref is what a file URI names.
type Ref struct {
	UserID string
	Kind   string
	// Name is a workspace file's name, or an attachment's file id.
	Name string
}

// ErrNotAFileURI is a URI this server never gave.
var ErrNotAFileURI = errors.New("not a file URI of this server")

// WorkspaceURI is the URI of a workspace file of userID.
func WorkspaceURI(userID, name string) string {
	return uriPrefix + userID + "/" + KindWorkspace + "/" + url.PathEscape(name)
}

// AttachmentURI is the URI of an attachment userID can read.
func AttachmentURI(userID, fileID string) string {
	return uriPrefix + userID + "/" + KindAttachment + "/" + fileID
}

// IsFileURI is whether s is a file URI of this server (or meant to be one).
func IsFileURI(s string) bool { return strings.HasPrefix(s, uriPrefix) }

// ParseURI reads a file URI this server gave.
func ParseURI(s string) (Ref, error) {
	if len(s) > maxURIBytes || !IsFileURI(s) {
		return Ref{}, ErrNotAFileURI
	}
	user, rest, ok := strings.Cut(strings.TrimPrefix(s, uriPrefix), "/")
	if !ok || !isID(user) {
		return Ref{}, ErrNotAFileURI
	}
	kind, name, ok := strings.Cut(rest, "/")
	if !ok || name == "" {
		return Ref{}, ErrNotAFileURI
	}
	switch kind {
	case KindWorkspace:
		n, err := url.PathUnescape(name)
		if err != nil || n == "" {
			return Ref{}, ErrNotAFileURI
		}
		name = n
	case KindAttachment:
		if !isID(name) {
			return Ref{}, ErrNotAFileURI
		}
	default:
		return Ref{}, ErrNotAFileURI
	}
	return Ref{UserID: user, Kind: kind, Name: name}, nil
}

// isID is a Mattermost id: 26 lowercase letters and digits.
func isID(s string) bool {
	if len(s) != 26 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
