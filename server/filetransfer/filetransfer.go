// Package filetransfer is the draft MCP file transfer, SEP-2631 "File
// Objects and Transfer", as this plugin offers it to a client that
// declares the files capability: files/authorizeUpload hands out a
// single-use upload into the person's workspace, held to the size and
// sha-256 digest the client declared, and a file URI for it; the posting
// tools mark their file field with x-mcp-file and take such URIs (or
// data: URIs the client made from the person's file); tools that read a
// file give it back as a FileValue that files/authorizeDownload resolves
// to a presigned download.
//
// It follows the SEP at one commit (SEPCommit); everything that depends on
// the draft's shapes is here, so that following a later draft changes
// this package only. A client that declared nothing sees none of it.
package filetransfer

import (
	"encoding/json"
	"slices"
)

// SEPCommit is the commit of modelcontextprotocol/modelcontextprotocol
// (the head of its pull request 2631) whose
// seps/2631-file-objects-and-transfer.md and schema/draft/schema.ts this
// package follows.
const SEPCommit = "8799c5c1e0eaedd91d4f0d63e3f6cfa5554e3b87"

// Methods of the control plane.
const (
	MethodAuthorizeUpload   = "files/authorizeUpload"
	MethodAuthorizeDownload = "files/authorizeDownload"
)

// The April draft's names (ADR 0023), answered only with where they went.
const (
	methodPrepareUpload = "files/prepareUpload"
	methodGetDownload   = "files/getDownload"
)

// TransportHTTPS is the one transport family the SEP defines, and the
// only one this server hands out.
const TransportHTTPS = "https"

// URIsArgument is the argument of a posting tool that takes file URIs
// (mcp-file:// from files/authorizeUpload, or data:). x-mcp-file marks
// URI strings, and files[] holds objects, so the URIs come beside it and
// join it: each is one more file of the post.
const URIsArgument = "file_uris"

// Capability is the files capability a client declares.
type Capability struct {
	Upload     bool     `json:"upload,omitempty"`
	Download   bool     `json:"download,omitempty"`
	Transports []string `json:"transports,omitempty"`
}

// maxTransports bounds what of a client's declaration is kept.
const maxTransports = 8

// maxTransportBytes bounds one transport's name: "https" is five.
const maxTransportBytes = 16

// ParseCapability reads the files capability from a client's raw
// capabilities object; nil when it declared none.
func ParseCapability(capabilities json.RawMessage) *Capability {
	var caps struct {
		Files *Capability `json:"files"`
	}
	if json.Unmarshal(capabilities, &caps) != nil || caps.Files == nil {
		return nil
	}
	c := caps.Files
	if len(c.Transports) > maxTransports {
		c.Transports = c.Transports[:maxTransports]
	}
	for i, t := range c.Transports {
		if len(t) > maxTransportBytes {
			c.Transports[i] = t[:maxTransportBytes]
		}
	}
	return c
}

// https is whether the client takes https transfers: a declaration that
// names no transport is read as https, the one the SEP defines.
func (c *Capability) https() bool {
	return c != nil && (len(c.Transports) == 0 || slices.Contains(c.Transports, TransportHTTPS))
}

// Uploads is whether the client uploads files out of band and sends their
// file URIs.
func (c *Capability) Uploads() bool { return c != nil && c.Upload && c.https() }

// Outputs is whether the client takes files as FileValues and downloads
// them.
func (c *Capability) Outputs() bool { return c != nil && c.Download && c.https() }

// Inputs is whether the client gives files to the posting tools at all:
// any declaration of file transfer also takes x-mcp-file fields, where a
// client that does not upload sends data: URIs (SEP-2356).
func (c *Capability) Inputs() bool { return c.Uploads() || c.Outputs() }

// Transfer modes of an x-mcp-file field.
const (
	ModeInline = "inline"
	ModeUpload = "upload"
)

// Modes are the transfer modes a client may use for a file field: data:
// URIs always, authorized uploads where it declared them.
func (c *Capability) Modes() []string {
	if c.Uploads() {
		return []string{ModeInline, ModeUpload}
	}
	return []string{ModeInline}
}

// FileValue is a file as the SEP names it: its URI, what a client shows,
// and the digest it checks the bytes against.
type FileValue struct {
	URI      string  `json:"uri"`
	Name     string  `json:"name,omitempty"`
	MIMEType string  `json:"mimeType,omitempty"`
	Size     int64   `json:"size,omitempty"`
	Digest   *Digest `json:"digest,omitempty"`
}

// Transfer is an upload or download descriptor (FileTransferDescriptor).
// This server never answers a multipart one: its upload takes the whole
// file as one PUT body.
type Transfer struct {
	Transport string            `json:"transport"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	ExpiresAt string            `json:"expiresAt"`
}

// AuthorizeUploadParams are files/authorizeUpload's params. All are
// optional in the draft.
type AuthorizeUploadParams struct {
	Name     string  `json:"name,omitempty"`
	MIMEType string  `json:"mimeType,omitempty"`
	Size     *int64  `json:"size,omitempty"`
	Digest   *Digest `json:"digest,omitempty"`
}

// AuthorizedUpload is files/authorizeUpload's result.
type AuthorizedUpload struct {
	File   FileValue `json:"file"`
	Upload Transfer  `json:"upload"`
}

// AuthorizeDownloadParams are files/authorizeDownload's params.
type AuthorizeDownloadParams struct {
	URI string `json:"uri"`
}

// AuthorizedDownload is files/authorizeDownload's result.
type AuthorizedDownload struct {
	File     FileValue `json:"file"`
	Download Transfer  `json:"download"`
}

// FileContent is the content block of a file in a tool result.
type FileContent struct {
	Type string    `json:"type"`
	File FileValue `json:"file"`
}

// Content is the content block that gives f.
func Content(f FileValue) FileContent { return FileContent{Type: "file", File: f} }
