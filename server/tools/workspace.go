package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Workspace tools change only the caller's own workspace, never Mattermost,
// so they are always offered. The workspace is addressed by the caller's
// credential alone: no argument names a user.

var (
	workspaceWrite = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: false}
	workspaceSlot  = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: false}
)

type wsNameArg struct {
	Name string `json:"name" jsonschema:"The workspace file name, as files_list shows it."`
}

type filesReadArgs struct {
	Name   string `json:"name" jsonschema:"The workspace file name, as files_list shows it."`
	Offset int    `json:"offset,omitempty" jsonschema:"First line, from 1 (default); each header gives the next call."`
	Column int    `json:"column,omitempty" jsonschema:"Byte column in the first line, if a header says so."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Lines, 1-2000; default 500. A window also stops at 32 KiB."`
}

type filesWriteArgs struct {
	Name string `json:"name" jsonschema:"File name, e.g. summary.md; replaces a file of that name."`
	Text string `json:"text" jsonschema:"The whole text of the file, as UTF-8."`
}

type filesPresignArgs struct {
	Name      string `json:"name" jsonschema:"The workspace file name."`
	Direction string `json:"direction" jsonschema:"download (GET the file) or upload (PUT its bytes)."`
}

type saveAttachmentArgs struct {
	fileTarget
	Name string `json:"name,omitempty" jsonschema:"Name in your workspace; default the attachment's own name."`
	// claim is how the name is taken (the tool's own call replaces a file
	// of that name; a copy made to give a file away never does).
	claim workspace.Claim
}

type requestUploadArgs struct {
	Name   string `json:"name" jsonschema:"File name the bytes will have, e.g. chart.png."`
	Size   int64  `json:"size" jsonschema:"Size in bytes; a larger upload is refused."`
	SHA256 string `json:"sha256,omitempty" jsonschema:"Hex sha256 of the bytes, if known; other bytes are refused."`
}

// UploadDescriptor is request_upload's structured answer, shaped after the
// out-of-band upload descriptor of the MCP draft SEP-2631
// (files/authorizeUpload): method, URL, headers and expiry of the transfer,
// beside what this server adds (the handle and the limits), so a client
// that implements that method later can take the same fields.
type UploadDescriptor struct {
	Name   string         `json:"name"`
	Handle string         `json:"handle"`
	Upload UploadTransfer `json:"upload"`
	// MaxSize is the largest body the URL takes, in bytes.
	MaxSize int64  `json:"maxSize"`
	SHA256  string `json:"sha256,omitempty"`
	// HandleExpiresAt is when the handle can no longer be redeemed.
	HandleExpiresAt string `json:"handleExpiresAt"`
}

// UploadTransfer is the HTTP request that carries the bytes.
type UploadTransfer struct {
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	ExpiresAt string            `json:"expiresAt"`
}

func workspaceTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name:        "files_list",
			Title:       "List your workspace files",
			Description: "Lists your own workspace (files on their way into a post or out to a sandbox, each deleted 24 hours after writing) and its quota.",
			Hints:       readOnly,
			Effect:      catalogue.ReadsOnly,
			Toolset:     config.ToolsetWorkspace,
		}, d.filesList),
		catalogue.Define(catalogue.Tool{
			Name:        "files_read",
			Title:       "Read a workspace file",
			Description: "Reads a file of your workspace (name from files_list) as content you can use, exactly as read_file reads an attachment.",
			Hints:       readOnly,
			Effect:      catalogue.ReadsOnly,
			Toolset:     config.ToolsetWorkspace,
			Files:       catalogue.GivesFile,
		}, d.filesRead),
		catalogue.Define(catalogue.Tool{
			Name:        "files_write",
			Title:       "Write a text file to your workspace",
			Description: "Writes text you composed as a file of your own workspace (replacing one of that name), to attach to a post or hand out with files_presign; deleted after 24 hours.",
			Hints:       workspaceWrite,
			Effect:      catalogue.ChangesOwnWorkspace,
			Toolset:     config.ToolsetWorkspace,
		}, d.filesWrite),
		catalogue.Define(catalogue.Tool{
			Name:        "files_delete",
			Title:       "Delete a workspace file",
			Description: "Deletes a file from your own workspace now, rather than 24 hours after it was written. Mattermost does not change.",
			Hints:       workspaceWrite,
			Effect:      catalogue.ChangesOwnWorkspace,
			Toolset:     config.ToolsetWorkspace,
		}, d.filesDelete),
		catalogue.Define(catalogue.Tool{
			Name:        "files_presign",
			Title:       "Presign a workspace URL",
			Description: "A short-lived URL without credentials for a sandbox or script: download GETs a workspace file (5 min), upload takes one PUT into your workspace (15 min). To attach bytes to a post, use request_upload.",
			Hints:       workspaceSlot,
			Effect:      catalogue.ChangesOwnWorkspace,
			Toolset:     config.ToolsetWorkspace,
		}, d.filesPresign),
		catalogue.Define(catalogue.Tool{
			Name:        "save_attachment",
			Title:       "Save an attachment to your workspace",
			Description: "Copies an attachment you can read into your own workspace, so it can leave through files_presign without passing through you. Give file_id, or a permalink and file_name.",
			Hints:       workspaceWrite,
			Effect:      catalogue.ChangesOwnWorkspace,
			Toolset:     config.ToolsetWorkspace,
			Files:       catalogue.GivesFile,
		}, func(ctx context.Context, args saveAttachmentArgs) (catalogue.Result[SavedAttachment], error) {
			res, err := d.saveAttachment(ctx, args)
			out := catalogue.Result[SavedAttachment]{Text: res.Text, Data: SavedAttachment{Entry: res.Data}, Meta: res.Meta, NotDone: res.NotDone}
			if err == nil {
				out.Data.File = d.chatFileNamed(ctx, res.Data.Name, "")
			}
			return out, err
		}),
		catalogue.Define(catalogue.Tool{
			Name:        "request_upload",
			Title:       "Request an upload slot",
			Description: "Prepares an upload of bytes that should not pass through you (a sandbox file, a generated image): a credential-free URL for one PUT, and a handle to give a posting tool.",
			Hints:       workspaceSlot,
			Effect:      catalogue.ChangesOwnWorkspace,
			Toolset:     config.ToolsetWorkspace,
		}, d.requestUpload),
		requestFile(d),
	}
}

// workspaceRefusal words the workspace's errors as a refusal with the next
// step; any other error (a failure) passes as it is.
func workspaceRefusal(err error, name string, cfg config.Configuration) error {
	var nameErr *workspace.NameError
	var rangeErr *fileview.RangeError
	switch {
	case errors.As(err, &nameErr):
		return refusal.New(nameErr.Error(), "")
	case errors.As(err, &rangeErr):
		return refusal.New(rangeErr.Error(), "")
	case errors.Is(err, workspace.ErrNotFound):
		return refusal.New(fmt.Sprintf("Your workspace has no file %q.", name), "Call files_list to see its files (each is deleted 24 hours after it was written).")
	case errors.Is(err, workspace.ErrTooLarge):
		return refusal.New(fmt.Sprintf("That is larger than the %d MiB a workspace file may be on this server; nothing was written.", cfg.MaxWorkspaceFileMiB),
			"Hand the file over in smaller parts, or ask an admin to raise the limit.")
	case errors.Is(err, workspace.ErrQuota):
		return refusal.New(fmt.Sprintf("Your workspace would hold more than its %d MiB quota; nothing was written.", cfg.WorkspaceQuotaMiB),
			"Delete files you no longer need with files_delete (see files_list), then try again.")
	case errors.Is(err, workspace.ErrTooMany):
		return refusal.New(fmt.Sprintf("Your workspace already holds %d files; nothing was written.", workspace.MaxFiles), "Delete some with files_delete first.")
	case errors.Is(err, workspace.ErrBadPin):
		return refusal.New("sha256 must be 64 hexadecimal digits (the sha256 of the bytes), or left out.", "")
	case errors.Is(err, workspace.ErrPinMismatch):
		return refusal.New(fmt.Sprintf("The bytes of %q do not match the sha256 given for them; nothing was used.", name), "Request a new upload with the right sha256.")
	case errors.Is(err, workspace.ErrChanged):
		return refusal.New(fmt.Sprintf("%q changed while it was being read.", name), "Try again.")
	}
	return err
}

// SavedAttachment is save_attachment's structured answer: the workspace
// file, and for ChatGPT the file itself.
type SavedAttachment struct {
	workspace.Entry
	File *chatfile.Ref `json:"file,omitempty"`
}

// WorkspaceList is files_list's structured answer.
type WorkspaceList struct {
	Files      []workspace.Entry `json:"files"`
	UsedBytes  int64             `json:"used_bytes"`
	QuotaBytes int64             `json:"quota_bytes"`
}

// Deleted is files_delete's structured answer.
type Deleted struct {
	Deleted string `json:"deleted"`
}

// PresignedURL is files_presign's structured answer.
type PresignedURL struct {
	Name      string `json:"name"`
	Direction string `json:"direction"`
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
}

func (d Deps) filesList(ctx context.Context, _ struct{}) (res catalogue.Result[WorkspaceList], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	files, err := d.Workspace.List(c.UserID())
	if err != nil {
		return res, err
	}
	return answer(workspaceListAnswer(files, d.Config()))
}

// workspaceListAnswer lists the caller's workspace files against the quota
// cfg sets.
func workspaceListAnswer(files []workspace.File, cfg config.Configuration) (string, WorkspaceList) {
	var used int64
	entries := make([]workspace.Entry, 0, len(files))
	var b strings.Builder
	for _, f := range files {
		used += f.Size
		entries = append(entries, workspace.EntryOf(f))
		fmt.Fprintf(&b, "- %q (%s, %s), written %s, deleted at %s\n", present.Name(f.Name), orUnknown(f.Type), present.Size(f.Size),
			f.WrittenAt.UTC().Format("2006-01-02 15:04 UTC"), f.ExpiresAt().UTC().Format("2006-01-02 15:04 UTC"))
	}
	head := fmt.Sprintf("Your workspace holds %d files, %s of its %d MiB quota.", len(files), present.Size(used), cfg.WorkspaceQuotaMiB)
	if len(files) == 0 {
		head = fmt.Sprintf("Your workspace is empty (quota %d MiB). Put files in it with files_write, save_attachment or request_upload.", cfg.WorkspaceQuotaMiB)
	} else {
		head += " Read one with files_read(name=...).\n"
	}
	return strings.TrimRight(head+b.String(), "\n"), WorkspaceList{Files: entries, UsedBytes: used, QuotaBytes: cfg.WorkspaceQuotaBytes()}
}

func (d Deps) filesRead(ctx context.Context, args filesReadArgs) (res catalogue.Result[FileResult], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	cfg := d.Config()
	f, err := d.Workspace.Stat(c.UserID(), args.Name)
	if err != nil {
		return res, workspaceRefusal(err, args.Name, cfg)
	}
	req := fileview.Request{
		Name: f.Name, Offset: args.Offset, Column: args.Column, Limit: args.Limit,
		NextCall: nextCallOf("files_read", "name", f.Name),
	}
	view, release, err := d.viewWithin(ctx, c, workspaceViewKey(c.UserID(), f), req, f.Size, f.Type, func() ([]byte, error) {
		var data []byte
		f, data, err = d.Workspace.ReadAll(c.UserID(), args.Name, cfg.MaxFileSizeBytes())
		return data, err
	})
	// The memory is held until the answer, image included, is built.
	defer release()
	if err != nil {
		return res, readRefusal(workspaceRefusal(err, args.Name, cfg), f.Name)
	}
	res = fileContent(&model.FileInfo{Name: f.Name, Size: f.Size, MimeType: f.Type}, "", view)
	givesFile(ctx, &res.Meta, workspaceFileValue(c.UserID(), f))
	res.Data.File = d.chatFileOut(ctx, c.UserID(), f, "")
	return res, nil
}

func (d Deps) filesWrite(ctx context.Context, args filesWriteArgs) (res catalogue.Result[workspace.Entry], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	f, err := d.Workspace.Write(ctx, c.UserID(), args.Name, strings.NewReader(args.Text), workspace.WriteOptions{})
	return d.written(f, err, args.Name, "Wrote")
}

func (d Deps) written(f workspace.File, werr error, name, verb string) (res catalogue.Result[workspace.Entry], err error) {
	if werr != nil {
		return res, workspaceRefusal(werr, name, d.Config())
	}
	return answer(writtenAnswer(f, verb))
}

// writtenAnswer tells what is now in the workspace (verb: how it got
// there), until when, and the calls that read it or hand it out.
func writtenAnswer(f workspace.File, verb string) (string, workspace.Entry) {
	return fmt.Sprintf("%s %q (%s, %s) in your workspace; it will be deleted at %s. Read it with files_read(name=%q), or hand it to a sandbox with files_presign(name=%q, direction=\"download\").",
		verb, present.Name(f.Name), orUnknown(f.Type), present.Size(f.Size), f.ExpiresAt().UTC().Format("2006-01-02 15:04 UTC"), f.Name, f.Name), workspace.EntryOf(f)
}

func (d Deps) filesDelete(ctx context.Context, args wsNameArg) (res catalogue.Result[Deleted], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	if err := d.Workspace.Delete(c.UserID(), args.Name); err != nil {
		return res, workspaceRefusal(err, args.Name, d.Config())
	}
	return answer(deletedAnswer(args.Name))
}

func deletedAnswer(name string) (string, Deleted) {
	return fmt.Sprintf("Deleted %q from your workspace.", present.Name(name)), Deleted{Deleted: name}
}

func (d Deps) filesPresign(ctx context.Context, args filesPresignArgs) (res catalogue.Result[PresignedURL], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	var p workspace.Presigned
	var u string
	switch args.Direction {
	case "download":
		p, err = d.Workspace.PresignDownload(c.UserID(), args.Name)
		if err == nil {
			u = d.URLs.Download(p.Token)
		}
	case "upload":
		p, err = d.Workspace.PresignUpload(c.UserID(), args.Name, workspace.UploadTerms{})
		if err == nil {
			u = d.URLs.Upload(p.Token)
		}
	default:
		return res, refusal.New(`direction must be "download" or "upload".`, "")
	}
	if err != nil {
		return res, workspaceRefusal(err, args.Name, d.Config())
	}
	targets := map[string]string{"token_id": p.ID, "direction": args.Direction}
	if p.FileID != "" {
		targets["file_id"] = p.FileID
	}
	d.record(ctx, audit.KindPresignedURL, c.UserID(), targets)
	return answer(presignAnswer(presigned{name: args.Name, direction: args.Direction, url: u, expiresAt: p.ExpiresAt, maxFileMiB: d.Config().MaxWorkspaceFileMiB}))
}

// presigned is what files_presign made: a URL for name in one direction,
// when it expires, and the largest file an upload may bring.
type presigned struct {
	name, direction, url string
	expiresAt            time.Time
	maxFileMiB           int
}

// presignAnswer hands the URL over with how it is used.
func presignAnswer(p presigned) (string, PresignedURL) {
	how := "GET (or HEAD) it as many times as needed, with no credential, until it expires"
	if p.direction == "upload" {
		how = fmt.Sprintf("PUT the raw bytes (at most %d MiB) to it once, with no credential, before it expires; a second PUT is refused", p.maxFileMiB)
	}
	expires := p.expiresAt.UTC().Format(time.RFC3339)
	return fmt.Sprintf("URL for %q: %s\n%s (%s). Hand it to whatever holds or needs the bytes; do not fetch it yourself.",
			present.Name(p.name), p.url, how, expires),
		PresignedURL{Name: p.name, Direction: p.direction, URL: p.url, ExpiresAt: expires}
}

func (d Deps) saveAttachment(ctx context.Context, args saveAttachmentArgs) (res catalogue.Result[workspace.Entry], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	l, err := d.locate(c, args.fileTarget)
	if err != nil {
		return res, err
	}
	name := args.Name
	if name == "" {
		name = l.Info().Name
	}
	cfg := d.Config()
	if err := workspace.CheckName(name); err != nil {
		return res, workspaceRefusal(err, name, cfg)
	}
	if l.Info().Size > cfg.MaxWorkspaceFileBytes() {
		return res, workspaceRefusal(workspace.ErrTooLarge, name, cfg)
	}
	// The attachment is held whole while it is copied: its memory comes out
	// of the budget for reading files, like a read's.
	cost := fetchCopies*l.Info().Size + saveCopyBytes
	release, err := d.take(ctx, d.memory(cfg), cost, time.Now().Add(conversionWait))
	var tooLarge *budget.TooLargeError
	if errors.As(err, &tooLarge) {
		link := ""
		if l.permalink != "" {
			link = " A person can download it from the post: " + l.permalink + "."
		}
		return res, refusal.New(fmt.Sprintf("Copying %q would need about %s of memory, more than the %s this server allows for reading files at once; nothing was saved.%s",
			present.Name(l.Info().Name), mib(cost), mib(tooLarge.Capacity), link),
			"An admin can raise \"Memory for reading files (MiB)\" in System Console > Plugins > MCP Server.")
	}
	if err != nil {
		return res, readRefusal(err, l.Info().Name)
	}
	defer giveBack(release, cost)()
	data, err := c.FileBytes(l.Readable)
	if err != nil {
		return res, err
	}
	f, err := d.Workspace.Write(ctx, c.UserID(), name, bytes.NewReader(data), workspace.WriteOptions{Claim: args.claim})
	res, err = d.written(f, err, name, "Saved the attachment as")
	if err == nil {
		givesFile(ctx, &res.Meta, workspaceFileValue(c.UserID(), f))
	}
	return res, err
}

func (d Deps) requestUpload(ctx context.Context, args requestUploadArgs) (res catalogue.Result[UploadDescriptor], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	if args.Size < 0 {
		return res, refusal.New("size must be the expected number of bytes, 0 or more.", "")
	}
	up, err := d.Workspace.RequestUpload(c.UserID(), args.Name, args.Size, args.SHA256)
	if err != nil {
		return res, workspaceRefusal(err, args.Name, d.Config())
	}
	d.record(ctx, audit.KindUploadHandle, c.UserID(), map[string]string{"handle_id": up.HandleID, "token_id": up.TokenID})
	return answer(uploadAnswer(up, d.URLs.Upload(up.Token), d.Workspace.Now()))
}

// uploadAnswer describes the upload slot up, whose bytes go to url; its
// handle lasts workspace.HandleLifetime from now.
func uploadAnswer(up workspace.Upload, url string, now time.Time) (string, UploadDescriptor) {
	desc := UploadDescriptor{
		Name: up.Name, Handle: up.Handle, MaxSize: up.MaxSize, SHA256: up.SHA256,
		HandleExpiresAt: now.Add(workspace.HandleLifetime).UTC().Format(time.RFC3339),
		Upload: UploadTransfer{Method: "PUT", URL: url,
			Headers: map[string]string{"Content-Type": "application/octet-stream"}, ExpiresAt: up.ExpiresAt.UTC().Format(time.RFC3339)},
	}
	text := fmt.Sprintf("Upload slot for %q. Whatever holds the bytes sends them in one HTTP PUT of the raw body, with no "+
		"credential, at most %d bytes, before %s:\n%s\nThe URL takes one PUT only. Then pass this handle (not the bytes) to the tool that posts:\n%s\n"+
		"Once uploaded, the file is also in your workspace (files_list) until 24 hours after the upload.",
		present.Name(up.Name), up.MaxSize, desc.Upload.ExpiresAt, desc.Upload.URL, up.Handle)
	return text, desc
}

// workspaceViewKey is where a workspace file's converted text is kept: by
// its bytes, and by its owner and name, which the conversion reads (the
// "its name says X" note, CSV or plain text): the same bytes written by
// another person, or under another name, are converted for that read.
func workspaceViewKey(userID string, f workspace.File) viewcache.Key {
	return viewcache.Key{Source: "workspace", ID: f.SHA256, Owner: userID, Name: f.Name}
}

// record puts a presigned URL or an upload handle handed out in the audit
// trail: ids only, never the file's name.
func (d Deps) record(ctx context.Context, kind audit.Kind, userID string, targets map[string]string) {
	d.recordAs(ctx, transport.CallOf(ctx).Tool, kind, userID, targets)
}

// recordAs is record for what named by tool: a tool, or a method of file
// transfer that stands for one (package paths).
func (d Deps) recordAs(ctx context.Context, tool string, kind audit.Kind, userID string, targets map[string]string) {
	if d.Audit == nil {
		return
	}
	client := transport.Client(ctx)
	d.Audit.Record(audit.Event{Kind: kind, UserID: userID, ClientName: client.Name, ClientVersion: client.Version,
		Tool: tool, Targets: targets, Outcome: audit.OutcomeIssued})
}
