// Package paths names, for every MCP method this server answers, the tools
// it stands for: a method that reads or moves what a tool would passes that
// tool's decision (catalogue.OfferedTo: the toolset switches, the tools left
// out, the connection's choice, read-only), counts against the same rate,
// and is recorded in the audit trail as the tool would be (issue 56).
//
// It is data, beside the catalogue: the transport answers only the methods
// named here (any other request is "method not found"), so a method cannot
// be added without saying what it stands for, and a table test walks every
// path against every combination of settings.
package paths

import (
	"sort"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

// By is how a method finds the tools it stands for.
type By int

const (
	// Nothing is a method that reads only the server's own settings or the
	// session (initialize, ping, the lists of what is offered, which follow
	// the tools' own rule): it stands for no tool.
	Nothing By = iota
	// CalledTool is tools/call: the tool it names.
	CalledTool
	// Fixed is Path.Tools, every one of them.
	Fixed
	// ResourceTool is the tool behind the resource template a URI matches
	// (resources.Template.Tool): the tool that reads the same thing.
	ResourceTool
	// EachListed is a list whose every entry passes its own tool's
	// decision: an entry whose tool is withheld is not listed.
	EachListed
	// PromptTools is every tool the prompt reads (prompts.Prompt.Reads).
	PromptTools
	// CompletedRef is what a completion's ref names: a prompt (PromptTools)
	// or a resource template (ResourceTool).
	CompletedRef
	// TaskCall is the tool call the task was made by, which passed its
	// tool's decision when it was made; a task is only ever its caller's.
	TaskCall
	// FileURIKind is by the kind of file a file URI names: Attachment or
	// Workspace.
	FileURIKind
)

// Path is one method and what it stands for.
type Path struct {
	Method string
	By     By
	// Tools are the tools a Fixed path stands for.
	Tools []string
	// Rated is a method counted against the person's rate as one tool call
	// (tools/call and prompts count their own: each tool a prompt runs).
	Rated bool
	// Audit is what the audit trail records of it, as the tool it stands
	// for would: issued when it hands out a URL, refused when the admin's
	// settings withhold it ("" records nothing).
	Audit audit.Kind
}

// The tools a file URI stands for, by its kind (FileURIKind). A person's
// attachment leaves as save_attachment then files_presign would move it:
// copied into the workspace, then presigned.
var (
	Attachment = []string{"save_attachment", "files_presign"}
	Workspace  = []string{"files_presign"}
)

// Upload is what an authorized upload stands for: a single-use upload
// slot into the workspace.
var Upload = []string{"request_upload"}

// FileRequest is what the page and the drop URL that take a person's
// file stand for (routes, not MCP methods): the request_file that asked
// for it. With it withheld by the admin they take no file.
const FileRequest = "request_file"

// The workspace's side channel (its REST API and the presigned URLs that
// several of its tools hand out) stands for the workspace toolset as a
// whole: with it off it answers nothing (routes.go).

// Fetch is the tool each kind of thing fetch reads stands for: fetch of a
// file needs what read_file needs, of a post what read_thread needs, of a
// channel what read_channel needs. search lists only the kinds whose tool
// is offered, since those are the ones the person could then fetch.
var Fetch = map[string]string{
	"file":    "read_file",
	"post":    "read_thread",
	"channel": "read_channel",
}

// all is every method the server answers.
var all = []Path{
	{Method: "initialize", By: Nothing},
	{Method: "ping", By: Nothing},
	{Method: "server/discover", By: Nothing},
	{Method: "logging/setLevel", By: Nothing},
	{Method: "subscriptions/listen", By: Nothing},
	{Method: "tools/list", By: EachListed},
	{Method: "tools/call", By: CalledTool},
	{Method: "prompts/list", By: EachListed},
	{Method: "prompts/get", By: PromptTools},
	{Method: "resources/templates/list", By: EachListed},
	{Method: "resources/list", By: EachListed, Rated: true},
	{Method: "resources/read", By: ResourceTool, Rated: true},
	{Method: "resources/subscribe", By: ResourceTool},
	{Method: "resources/unsubscribe", By: Nothing},
	{Method: "completion/complete", By: CompletedRef, Rated: true},
	{Method: "tasks/get", By: TaskCall},
	{Method: "tasks/list", By: TaskCall},
	{Method: "tasks/result", By: TaskCall},
	{Method: "tasks/cancel", By: TaskCall},
	{Method: "tasks/update", By: TaskCall},
	{Method: "files/authorizeUpload", By: Fixed, Tools: Upload, Rated: true, Audit: audit.KindUploadHandle},
	{Method: "files/authorizeDownload", By: FileURIKind, Rated: true, Audit: audit.KindPresignedURL},
	// The April draft's names answer only where they went (ADR 0028), yet
	// pass the same decision first: a client learns nothing of a withheld
	// transfer from the renamed method either.
	{Method: "files/prepareUpload", By: Fixed, Tools: Upload, Rated: true, Audit: audit.KindUploadHandle},
	{Method: "files/getDownload", By: Fixed, Tools: Workspace, Rated: true, Audit: audit.KindPresignedURL},
}

var byMethod = func() map[string]Path {
	m := make(map[string]Path, len(all))
	for _, p := range all {
		m[p.Method] = p
	}
	return m
}()

// Of is the path of a method; false for a method this server does not
// answer.
func Of(method string) (Path, bool) {
	p, ok := byMethod[method]
	return p, ok
}

// All is every path, sorted by method.
func All() []Path {
	out := append([]Path(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

// Named is every tool some path names directly (Fixed, the file URI kinds,
// fetch's kinds), for a test that each is in the catalogue.
func Named() []string {
	var out []string
	for _, p := range all {
		out = append(out, p.Tools...)
	}
	out = append(out, Attachment...)
	out = append(out, Workspace...)
	out = append(out, Upload...)
	out = append(out, FileRequest)
	for _, t := range Fetch {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
