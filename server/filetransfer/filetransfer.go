// Package filetransfer is the draft MCP file transfer, SEP-2631 "File
// Objects and Transfer", as this plugin offers it to a client that
// declares the files capability: files/prepareUpload hands out a
// single-use upload into the person's workspace and a file URI for it,
// the posting tools declare their file field in inputFiles and take such
// URIs (or data: URIs the client made from the person's file), and tools
// that read a file give it back as a FileValue that files/getDownload
// resolves to a presigned download.
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
// whose seps/2631-file-objects-and-transfer.md this package follows.
const SEPCommit = "34521112ddadbc92b438266edd7f1a4f3f4e327e"

// Methods of the control plane.
const (
	MethodPrepareUpload = "files/prepareUpload"
	MethodGetDownload   = "files/getDownload"
)

// TransportHTTPS is the one transport family the SEP defines, and the
// only one this server hands out.
const TransportHTTPS = "https"

// URIsArgument is the argument of a posting tool that takes file URIs
// (mcp-file:// from files/prepareUpload, or data:). The SEP asks that a
// declared field hold URI strings, and files[] holds objects, so the URIs
// come beside it and join it: each is one more file of the post.
const URIsArgument = "file_uris"

// Capability is the files capability a client declares.
type Capability struct {
	InputTransfer bool     `json:"inputTransfer,omitempty"`
	Output        bool     `json:"output,omitempty"`
	Transports    []string `json:"transports,omitempty"`
}

// maxTransports bounds what of a client's declaration is kept.
const maxTransports = 8

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
		if len(t) > 16 {
			c.Transports[i] = t[:16]
		}
	}
	return c
}

// https is whether the client takes https transfers: a declaration that
// names no transport is read as https, the one the SEP defines.
func (c *Capability) https() bool {
	return c != nil && (len(c.Transports) == 0 || slices.Contains(c.Transports, TransportHTTPS))
}

// Inputs is whether the client sends files as file URIs.
func (c *Capability) Inputs() bool { return c != nil && c.InputTransfer && c.https() }

// Outputs is whether the client takes files as FileValues.
func (c *Capability) Outputs() bool { return c != nil && c.Output && c.https() }

// Any is whether the client declared any part of file transfer.
func (c *Capability) Any() bool { return c.Inputs() || c.Outputs() }

// FileValue is a file as the SEP names it: its URI and what a client shows.
type FileValue struct {
	URI      string `json:"uri"`
	Name     string `json:"name,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Size     int64  `json:"size,omitempty"`
}

// Transfer is an upload or download descriptor.
type Transfer struct {
	Transport string            `json:"transport"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	ExpiresAt string            `json:"expiresAt"`
}

// PrepareParams are files/prepareUpload's params.
type PrepareParams struct {
	Name     string `json:"name"`
	MIMEType string `json:"mimeType,omitempty"`
	Size     *int64 `json:"size"`
}

// Prepared is files/prepareUpload's result.
type Prepared struct {
	File     FileValue `json:"file"`
	Transfer Transfer  `json:"transfer"`
}

// DownloadParams are files/getDownload's params.
type DownloadParams struct {
	URI string `json:"uri"`
}

// FileContent is the content block of a file in a tool result.
type FileContent struct {
	Type string    `json:"type"`
	File FileValue `json:"file"`
}

// Content is the content block that gives f.
func Content(f FileValue) FileContent { return FileContent{Type: "file", File: f} }
