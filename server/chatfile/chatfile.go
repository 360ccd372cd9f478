// Package chatfile is how a host hands over a file the person attached in
// its chat by link, and takes one back: ChatGPT's file params. A tool lists
// the top-level input fields that take files in _meta["openai/fileParams"];
// ChatGPT fills each with {download_url, file_id, mime_type, file_name},
// whose download_url works for a few minutes, and the server fetches the
// bytes. A tool gives a file back the same way: such an object in its
// structured content, with a download_url ChatGPT fetches.
//
// Everything that depends on those shapes is here; fetching the link is
// package untrusted's, storing the bytes the workspace's.
package chatfile

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// MetaKey is the tool _meta key that lists the fields ChatGPT fills with
// files.
const MetaKey = "openai/fileParams"

// Argument is the field of the posting tools that ChatGPT fills.
const Argument = "chatgpt_files"

// ClientName is the name ChatGPT's connector gives at initialize: the
// client that fills file params and takes file objects back.
const ClientName = "openai-mcp"

// Bounds on what a client sends in one object, checked before anything is
// fetched or stored.
const (
	// maxURLBytes: signed storage links run to a few hundred bytes; 8 KiB
	// is far past any and still small.
	maxURLBytes = 8 << 10
	// maxIDBytes: ChatGPT's file ids are a few dozen characters.
	maxIDBytes = 256
	// maxTypeBytes: the longest registered media types are under 128.
	maxTypeBytes = 255
)

// Ref is a file ChatGPT hands over, or one given back to it.
type Ref struct {
	DownloadURL string `json:"download_url"`
	FileID      string `json:"file_id"`
	MIMEType    string `json:"mime_type,omitempty"`
	FileName    string `json:"file_name,omitempty"`
}

// originPrefix begins the origin of a file fetched from the chat, as the
// person is shown it.
const originPrefix = "attached in the chat, fetched from "

// maxHostBytes is a DNS name's bound.
const maxHostBytes = 253

// Origin is where a file fetched from host came from, for the person.
func Origin(host string) string { return originPrefix + host }

// IsOrigin is whether origin is one Origin made.
func IsOrigin(origin string) bool { return strings.HasPrefix(origin, originPrefix) }

// Takes is whether a client is ChatGPT, which fills file params and
// fetches the file objects a result gives.
func Takes(clientName string) bool { return clientName == ClientName }

// ErrBadRef is an object that is not a file ChatGPT could have handed over.
var ErrBadRef = errors.New("not a ChatGPT file object")

// Check bounds an object before anything is fetched.
func (r Ref) Check() error {
	switch {
	case r.DownloadURL == "" || r.FileID == "":
		return fmt.Errorf("%w: download_url and file_id are both needed", ErrBadRef)
	case len(r.DownloadURL) > maxURLBytes:
		return fmt.Errorf("%w: download_url is over %d bytes", ErrBadRef, maxURLBytes)
	case len(r.FileID) > maxIDBytes, len(r.FileName) > 4*names.MaxFileNameBytes, len(r.MIMEType) > maxTypeBytes:
		return fmt.Errorf("%w: a field is longer than any file's", ErrBadRef)
	}
	if _, err := url.Parse(r.DownloadURL); err != nil {
		return fmt.Errorf("%w: download_url is not a URL", ErrBadRef)
	}
	return nil
}

// Host is the download link's host, as the person and the audit trail
// see it: never its path or query, which carry the signature.
func (r Ref) Host() string {
	u, err := url.Parse(r.DownloadURL)
	if err != nil {
		return ""
	}
	return BoundHost(u.Hostname())
}

// BoundHost is a host cut at a DNS name's length, as it is shown and kept.
func BoundHost(host string) string {
	if len(host) > maxHostBytes {
		return host[:maxHostBytes]
	}
	return host
}

// Name is the file's name in the person's workspace: the name ChatGPT
// gives, cleaned of what a file name cannot hold, or "attachment" with
// the extension of its type.
func (r Ref) Name() string {
	name := cleanName(r.FileName)
	if name == "" || names.CheckFile(name) != nil {
		name = "attachment" + Extension(r.MIMEType)
	}
	return name
}

func cleanName(name string) string {
	if !utf8.ValidString(name) {
		return ""
	}
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		return ""
	}
	// Over the bound, the stem is cut and the extension kept.
	ext := path.Ext(name)
	if len(ext) > 16 {
		ext = ""
	}
	stem := strings.TrimSuffix(name, ext)
	for len(stem)+len(ext) > names.MaxFileNameBytes {
		_, size := utf8.DecodeLastRuneInString(stem)
		stem = stem[:len(stem)-size]
	}
	return strings.TrimSpace(stem) + ext
}

// Extension is the usual extension of a media type ("" when unknown).
func Extension(mediaType string) string { return names.Extension(mediaType) }

// TypeOf is the media type a name's extension stands for, for a file given
// back (application/octet-stream when unknown).
func TypeOf(name string) string {
	if t := names.MediaType(name); t != "" {
		return t
	}
	return "application/octet-stream"
}
