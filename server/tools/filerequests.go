package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tasks"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

type requestFileArgs struct {
	Purpose    string   `json:"purpose,omitempty" jsonschema:"What the file is for, one or two sentences the person reads as your words (required for a new request)."`
	Types      []string `json:"types,omitempty" jsonschema:"Accepted types: extensions (\".pdf\") or media types (\"image/*\"); none: any file."`
	MaxSizeMiB int      `json:"max_size_mib,omitempty" jsonschema:"Largest file in MiB; default and ceiling: the workspace's largest file."`
	ID         string   `json:"id,omitempty" jsonschema:"A request this tool answered as waiting: wait for it again instead of asking anew."`
}

// FileRequestResult is request_file's structured answer.
type FileRequestResult struct {
	ID string `json:"id"`
	// State is waiting, received or cancelled.
	State string `json:"state"`
	// PageURL is where the person gives the file, signed in to Mattermost.
	PageURL   string `json:"page_url"`
	ExpiresAt string `json:"expires_at"`
	// File is what the person gave, with the handle a posting tool takes.
	File *GivenFile `json:"file,omitempty"`
}

// GivenFile is a file the person gave.
type GivenFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	Type   string `json:"type"`
	SHA256 string `json:"sha256"`
	Handle string `json:"handle"`
}

func requestFile(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:  "request_file",
		Title: "Ask the person for a file",
		Description: "Asks the person to give one of their own files (they pick or drop it in this chat's view, or on a page in Mattermost); waits up to 20 s, then answers " +
			"waiting with the call to wait again. Once given: its name, size, type, sha256 and a handle for files[] of a posting tool.",
		Hints:   workspaceSlot,
		Effect:  catalogue.ChangesOwnWorkspace,
		Toolset: config.ToolsetWorkspace,
		View:    resources.UploadView,
		// It waits for the person, so a client may follow it as a task.
		Waits: true,
	}, d.requestFile)
}

func (d Deps) requestFile(ctx context.Context, args requestFileArgs) (res catalogue.Result[FileRequestResult], err error) {
	// Watched from the start: a client may cancel while the request is
	// made, before the wait begins.
	ctx, stop := transport.WatchCancel(ctx)
	defer stop()
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	var req filerequest.Request
	asked := false
	if state := transport.CallOf(ctx).RoundTrip.RequestState; strings.HasPrefix(state, fileStatePrefix) {
		// A client of 2026-07-28 calls again once the person saw the page.
		req, err = d.loadFileRequest(c.UserID(), strings.TrimPrefix(state, fileStatePrefix))
		if err != nil {
			return res, err
		}
		if r := server.ElicitationResponse(transport.CallOf(ctx).RoundTrip.InputResponses, fileQuestionID); r != nil && r.Action != mcp.ElicitationResponseActionAccept {
			return d.declineFileRequest(ctx, c.UserID(), req)
		}
	} else if id := strings.TrimSpace(args.ID); id != "" {
		if req, err = d.loadFileRequest(c.UserID(), id); err != nil {
			return res, err
		}
	} else {
		ask, err := d.fileAsk(args)
		if err != nil {
			return res, err
		}
		ask.Client, ask.Session = transport.Client(ctx).Name, transport.SessionID(ctx)
		req, err = d.Files.Create(c.UserID(), ask)
		if errors.Is(err, filerequest.ErrTooMany) {
			return res, d.tooManyFileRequests(c.UserID())
		}
		if err != nil {
			return res, err
		}
		d.recordFileRequest(ctx, c.UserID(), req, audit.OutcomeAsked, "")
		if d.Approvals != nil {
			d.Approvals.TellFileRequest(c, req.ID, req.Purpose, d.FilePageURL(req.ID), req.ExpiresAt())
		}
		if task := transport.TaskOf(ctx); task != nil {
			// The host follows the task; the page is its input request.
			task.Waits(fileTaskPrefix + req.ID)
			return d.fileRequestAnswer(req)
		}
		if transport.ShowsViews(ctx) {
			// The view this answer opens in the chat is where the person
			// gives the file: it shows only once the call answers.
			return d.fileRequestAnswer(req)
		}
		if d.Approvals != nil && d.Approvals.OpensPages(ctx) {
			q := d.pageQuestion(req)
			if server.IsModernRequest(ctx) {
				return catalogue.Result[FileRequestResult]{Question: &catalogue.Question{ID: fileQuestionID, State: fileStatePrefix + req.ID, Params: q}}, nil
			}
			if declined := d.askOnStream(ctx, q); declined {
				return d.declineFileRequest(ctx, c.UserID(), req)
			}
			asked = true
			if err := d.Files.MarkShown(c.UserID(), req.ID); err != nil {
				d.MM.Log().Warn("Could not note that a client shows a file request's page; it will not be told when the file arrives after the call", "user_id", c.UserID(), "error", err.Error())
			}
		}
	}
	req, err = d.waitForFile(ctx, c.UserID(), req)
	if err != nil {
		return res, err
	}
	if asked && req.State != filerequest.StateWaiting {
		d.Approvals.TellPageDone(ctx, req.ID)
	}
	if req.State == filerequest.StateWaiting && req.DropKey == "" && transport.ShowsViews(ctx) {
		// The view this answer opens again needs a drop URL of its own:
		// the store keeps only the hashes of those it gave.
		if again, err := d.Files.NewDropKey(c.UserID(), req.ID); err == nil {
			req = again
		}
	}
	return d.fileRequestAnswer(req)
}

// The page question a client that opens pages is asked (url-mode
// elicitation): under this input id on 2026-07-28, whose retry carries the
// request's id in its state.
const (
	fileQuestionID  = "file"
	fileStatePrefix = "file-request:"
)

func (d Deps) pageQuestion(req filerequest.Request) mcp.ElicitationParams {
	return mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, ElicitationID: req.ID, URL: d.FilePageURL(req.ID),
		Message: "An AI assistant asks you for one of your files. Open Mattermost to see what for, and pick or drop the file there."}
}

// askOnStream shows the page to a client of 2025-11-25 or earlier on the
// call's own stream, within the call's bound; it reports whether the person
// declined to open it. A client that fails to ask leaves the link in the
// answer's text.
func (d Deps) askOnStream(ctx context.Context, q mcp.ElicitationParams) (declined bool) {
	_, answerBy := approval.CallWindow(ctx)
	askCtx, cancel := context.WithDeadline(ctx, answerBy)
	defer cancel()
	if transport.HoldQuestionSlot(askCtx) != nil {
		return false
	}
	r, err := server.ServerFromContext(ctx).RequestElicitation(askCtx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: q})
	return err == nil && r != nil && r.Action != mcp.ElicitationResponseActionAccept
}

func (d Deps) loadFileRequest(userID, id string) (filerequest.Request, error) {
	req, err := d.Files.Load(userID, id)
	if errors.Is(err, filerequest.ErrNotFound) {
		return req, refusal.New(fmt.Sprintf("There is no file request %q of yours: it expired (requests wait an hour) or the id is wrong.", present.Name(id)),
			"Call request_file with purpose to ask the person again.")
	}
	return req, err
}

// declineFileRequest withdraws a request the person would not open; one
// they answered on the page meanwhile is answered.
func (d Deps) declineFileRequest(ctx context.Context, userID string, req filerequest.Request) (catalogue.Result[FileRequestResult], error) {
	now, err := d.withdrawFileRequest(ctx, userID, req.ID, audit.OutcomeDeclined)
	if err != nil {
		return catalogue.Result[FileRequestResult]{}, err
	}
	if now.State == filerequest.StateReceived {
		return d.fileRequestAnswer(now)
	}
	return catalogue.Result[FileRequestResult]{}, refusal.New("The person declined to give a file; nothing was stored.", "Ask them in the chat what they want instead.")
}

// fileAsk reads a new request's arguments, or refuses them with what to
// give instead.
func (d Deps) fileAsk(args requestFileArgs) (filerequest.Ask, error) {
	purpose := strings.TrimSpace(args.Purpose)
	if purpose == "" {
		return filerequest.Ask{}, refusal.New("purpose is missing: the person must know what the file is for.",
			`Call request_file with purpose, such as {"purpose":"The slides to attach to the summary of #design","types":[".pdf"]}.`)
	}
	if len(purpose) > filerequest.MaxPurposeBytes || !utf8.ValidString(purpose) {
		return filerequest.Ask{}, refusal.New(fmt.Sprintf("purpose is at most %d bytes of text.", filerequest.MaxPurposeBytes), "Say it in a sentence or two.")
	}
	types, err := filerequest.Types(args.Types)
	if err != nil {
		return filerequest.Ask{}, refusal.New("types: "+err.Error()+".", `Give extensions such as ".pdf" or media types such as "image/*", or leave types out for any file.`)
	}
	ceiling := d.Workspace.Limits().MaxFileBytes
	maxSize := ceiling
	if args.MaxSizeMiB != 0 {
		if args.MaxSizeMiB < 1 || int64(args.MaxSizeMiB)<<20 > ceiling {
			return filerequest.Ask{}, refusal.New(fmt.Sprintf("max_size_mib must be between 1 and %d, the largest workspace file on this server.", ceiling>>20),
				"Call again with a size in that range, or leave it out for the largest.")
		}
		maxSize = int64(args.MaxSizeMiB) << 20
	}
	return filerequest.Ask{Purpose: purpose, Types: types, MaxSize: maxSize}, nil
}

// tooManyFileRequests names the person's waiting requests and what to do.
func (d Deps) tooManyFileRequests(userID string) error {
	open, err := d.Files.Open(userID)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(open))
	for _, r := range open {
		ids = append(ids, r.ID)
	}
	return refusal.New(fmt.Sprintf("%d file requests already wait for the person (at most %d): %s.", len(open), filerequest.MaxOpen, strings.Join(ids, ", ")),
		`Wait for one with request_file {"id":"<id>"}, or let them expire (an hour after they were made).`)
}

// waitForFile waits, within the call's bound, for the person to give the
// file; a call its client cancels withdraws the request.
func (d Deps) waitForFile(ctx context.Context, userID string, req filerequest.Request) (filerequest.Request, error) {
	if req.State != filerequest.StateWaiting {
		return req, nil
	}
	release, _, held := transport.HoldWait(ctx)
	defer release()
	if !held {
		return req, nil // past the person's share: answered waiting at once
	}
	ctx, stop := transport.WatchCancel(ctx)
	defer stop()
	_, answerBy := approval.CallWindow(ctx)
	deadline := time.NewTimer(time.Until(answerBy))
	defer deadline.Stop()
	// Woken when the file arrives on any node; a slow look besides, for a
	// wake that was lost.
	woken, done := d.wait(wake.FileRequest(req.ID))
	defer done()
	tick := time.NewTicker(wake.SafetyLook)
	defer tick.Stop()
	look := true // what arrived before the wake was registered is seen now
	for {
		if look {
			now, err := d.Files.Load(userID, req.ID)
			if err != nil {
				return req, err
			}
			if now.State != filerequest.StateWaiting {
				return now, nil
			}
		}
		look = true
		select {
		case <-ctx.Done():
			if !transport.CancelledByClient(ctx) {
				return req, nil // the client went away: the request still waits
			}
			transport.DropAnswer(ctx)
			now, err := d.withdrawFileRequest(ctx, userID, req.ID, audit.OutcomeWithdrawn)
			if err != nil {
				return req, err
			}
			// Whatever is answered now is dropped (the protocol answers a
			// cancelled call with nothing); an error would be logged as a
			// failure.
			return now, nil
		case <-deadline.C:
			return d.Files.Load(userID, req.ID)
		case <-woken:
		case <-tick.C:
		}
	}
}

// FileRequestMetaKey is the _meta key of a request_file answer that the
// upload view reads: what was asked, and while it waits the drop URL the
// view sends the file to. A model is not shown _meta.
const FileRequestMetaKey = "mattermost/file_request"

// FileRequestView is what the upload view reads of a request.
type FileRequestView struct {
	Purpose   string   `json:"purpose"`
	Types     []string `json:"types,omitempty"`
	TypesText string   `json:"types_text"`
	MaxSize   int64    `json:"max_size"`
	// DropURL takes the file from the view (filerequest.DropURL); only
	// while the request waits.
	DropURL string `json:"drop_url,omitempty"`
}

func (d Deps) fileRequestAnswer(req filerequest.Request) (catalogue.Result[FileRequestResult], error) {
	res, err := d.fileRequestResult(req)
	if err == nil {
		view := FileRequestView{Purpose: req.Purpose, Types: req.Types, TypesText: filerequest.Describe(req.Types), MaxSize: req.MaxSize}
		if req.State == filerequest.StateWaiting {
			view.DropURL = filerequest.DropURL(d.URLs.PluginURL(), req)
		}
		res.Meta = map[string]any{FileRequestMetaKey: view}
	}
	return res, err
}

func (d Deps) fileRequestResult(req filerequest.Request) (catalogue.Result[FileRequestResult], error) {
	out := FileRequestResult{ID: req.ID, State: req.State, PageURL: d.FilePageURL(req.ID), ExpiresAt: req.ExpiresAt().UTC().Format(time.RFC3339)}
	switch req.State {
	case filerequest.StateReceived:
		f := req.File
		out.File = &GivenFile{Name: f.Name, Size: f.Size, Type: f.Type, SHA256: f.SHA256, Handle: f.Handle}
		return answer(fmt.Sprintf("The person gave %q (%d bytes, %s, sha256 %s). To attach it, pass {\"handle\": %q} in files[] of the posting tool; "+
			"the person is asked to confirm the post with the file shown. It is also in your workspace as %q (files_read reads it) for 24 hours.",
			present.Name(f.Name), f.Size, f.Type, f.SHA256, f.Handle, present.Name(f.Name)), out)
	case filerequest.StateCancelled:
		return catalogue.Result[FileRequestResult]{}, refusal.New("This file request was withdrawn: its call was cancelled, and the person's page says so.",
			"Call request_file with purpose to ask again.")
	}
	return answer(fmt.Sprintf("Waiting for the person to give the file. A client that shows MCP Apps shows them where to give it in this chat; "+
		"otherwise tell them to open %s in a browser signed in to Mattermost and pick or drop the file there. "+
		"Then call request_file with {\"id\": %q} to wait for it (up to 20 seconds a call). The request expires at %s.", out.PageURL, req.ID, out.ExpiresAt), out)
}

// recordFileRequest puts a file request's step in the audit trail: ids
// only, never the file's name or what it is for.
func (d Deps) recordFileRequest(ctx context.Context, userID string, req filerequest.Request, outcome, reason string) {
	if d.Audit == nil {
		return
	}
	client := transport.Client(ctx)
	targets := map[string]string{"file_request_id": req.ID}
	if req.File != nil {
		targets["handle_id"] = req.File.HandleID
	}
	d.Audit.Record(audit.Event{Kind: audit.KindFileRequest, UserID: userID, ClientName: client.Name, ClientVersion: client.Version,
		Tool: transport.CallOf(ctx).Tool, Targets: targets, Outcome: outcome, Reason: reason})
}

// followFile is where a file request a task follows stands: waiting for
// the person (its page the task's input request), then the answer the call
// would have given.
func (d *Deps) followFile(userID, id string) (tasks.Write, error) {
	req, err := d.Files.Load(userID, id)
	if errors.Is(err, filerequest.ErrNotFound) {
		res := mcp.NewToolResultError("The file request expired (requests wait an hour) without a file; nothing was stored. Call request_file with purpose to ask again.")
		return tasks.Write{State: tasks.Done, Result: res}, nil
	}
	if err != nil {
		return tasks.Write{}, err
	}
	switch req.State {
	case filerequest.StateWaiting:
		q := d.pageQuestion(req)
		return tasks.Write{State: tasks.Waiting, Question: &q, Message: fmt.Sprintf(
			"Waiting for the person to give the file at %s, in a browser signed in to Mattermost. The request expires at %s.",
			d.FilePageURL(req.ID), req.ExpiresAt().UTC().Format(time.TimeOnly+" UTC"))}, nil
	case filerequest.StateCancelled:
		return tasks.Write{State: tasks.Withdrawn, Result: mcp.NewToolResultError("This file request was withdrawn; nothing was stored.")}, nil
	}
	res, err := d.fileRequestAnswer(req)
	if err != nil {
		return tasks.Write{}, err
	}
	return tasks.Write{State: tasks.Done, Result: res.ToolResult()}, nil
}

// endFileRequest withdraws a file request whose task was cancelled, or
// whose page the client declined to show; one answered first stays.
func (d *Deps) endFileRequest(ctx context.Context, userID, id, outcome string) error {
	_, err := d.withdrawFileRequest(ctx, userID, id, outcome)
	if errors.Is(err, filerequest.ErrNotFound) {
		return nil
	}
	return err
}

// withdrawFileRequest withdraws a waiting file request and records why
// (the call or task cancelled, the person declined to open the page); a
// request answered first stays, and is answered as it is.
func (d Deps) withdrawFileRequest(ctx context.Context, userID, id, outcome string) (filerequest.Request, error) {
	req, err := d.Files.Cancel(userID, id)
	if err == nil && req.State == filerequest.StateCancelled {
		d.recordFileRequest(ctx, userID, req, outcome, "")
	}
	return req, err
}
