package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/question"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Hints of the write tools: posting reaches other people (open world) and
// is never idempotent.
var (
	postHints     = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	editHints     = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	reactHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unreactHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
	maxGroupOther = 7
)

// confirmationNote is the part of every write tool's description that says
// who confirms, as built.
const confirmationNote = " Who confirms is the admin's setting (get_me tells it): with \"client_approval\" your client's own tool approval is the only check and it is done at once; " +
	"with \"client_then_mattermost\" your client asks the person (a form with everything that will be sent and one box to tick) when it supports elicitation, else Mattermost does; " +
	"with \"mattermost\" the person is asked in Mattermost (a confirmation listing everything, shown in their Mattermost and sent as a link to a client that opens links): " +
	"the call waits up to a minute for that answer, then says it is waiting and get_pending tells the outcome later. " +
	"If the person declines, nothing is sent: do not try again unless they ask."

const filesNote = " files: up to 10, each exactly one of {name, content} (text you wrote, at most 1 MiB), {file_id} (an attachment you can read, forwarded as a copy), " +
	"{workspace_file} (a file in the person's workspace) or {handle} (from request_upload). Every file is read when you call, and again just before it is sent: a file that changed in between is refused."

type createPostArgs struct {
	Channel string          `json:"channel" jsonschema:"required,The channel: an id, a ~name, a display name, or a channel link."`
	Team    string          `json:"team,omitempty" jsonschema:"The team's name or id when a channel name exists in several teams."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	RootID  string          `json:"root_id,omitempty" jsonschema:"A post id to reply to, in its thread."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type dmArgs struct {
	User    string          `json:"user" jsonschema:"required,The person: an @username or a user id."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type groupMessageArgs struct {
	Users   []string        `json:"users" jsonschema:"required,The 2 to 7 other people: @usernames or user ids."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type updatePostArgs struct {
	PostID  string `json:"post_id" jsonschema:"required,The id of one of the person's own posts."`
	Message string `json:"message" jsonschema:"required,The new message; it replaces the old one."`
}

type reactionArgs struct {
	PostID string `json:"post_id" jsonschema:"required,The post's id."`
	Emoji  string `json:"emoji_name" jsonschema:"required,The emoji's name without colons, e.g. thumbsup."`
}

// PostResult is the structured answer of a tool that posted.
type PostResult struct {
	PostID    string       `json:"post_id"`
	ChannelID string       `json:"channel_id"`
	Permalink string       `json:"permalink"`
	Files     []PostedFile `json:"files,omitempty"`
	Notes     []string     `json:"notes,omitempty"`
}

// PostedFile is one file of a post that was sent.
type PostedFile struct {
	FileID string `json:"file_id"`
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Type   string `json:"type"`
	Origin string `json:"origin"`
}

func writeTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "create_post", Title: "Post in a channel", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Posts a message, with files, as the signed-in person in a channel (or as a reply in a thread with root_id). " +
				"The post carries a visible note that an AI wrote it on the person's behalf." + filesNote + confirmationNote,
		}, d.createPost),
		catalogue.Define(catalogue.Tool{
			Name: "dm", Title: "Send a direct message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a direct message, with files, from the signed-in person to one other person (the conversation is opened if needed)." + filesNote + confirmationNote,
		}, d.dm),
		catalogue.Define(catalogue.Tool{
			Name: "group_message", Title: "Send a group message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a group message, with files, from the signed-in person to 2 to 7 other people." + filesNote + confirmationNote,
		}, d.groupMessage),
		catalogue.Define(catalogue.Tool{
			Name: "update_post", Title: "Edit one of your posts", Hints: editHints, Effect: catalogue.ChangesMattermost,
			Description: "Replaces the message of one of the signed-in person's own posts (files stay as they are). Someone else's post is refused." + confirmationNote,
		}, d.updatePost),
		catalogue.Define(catalogue.Tool{
			Name: "add_reaction", Title: "React to a post", Hints: reactHints, Effect: catalogue.ChangesMattermost,
			Description: "Adds the signed-in person's emoji reaction to a post they can read. Reacting twice with the same emoji changes nothing." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (*mcp.CallToolResult, error) { return d.react(ctx, a, false) }),
		catalogue.Define(catalogue.Tool{
			Name: "remove_reaction", Title: "Take back a reaction", Hints: unreactHints, Effect: catalogue.ChangesMattermost,
			Description: "Removes the signed-in person's own emoji reaction from a post." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (*mcp.CallToolResult, error) { return d.react(ctx, a, true) }),
	}
}

// mayWrite is checked on every call of a write tool, before anything is
// read, and again just before anything is sent. It answers a refusal, or ""
// to go on.
func (d Deps) mayWrite() string {
	cfg := d.Config()
	if !cfg.AllowWrites {
		return "Writing is turned off on this Mattermost: nothing was sent. An admin can allow it in System Console > Plugins > MCP Server."
	}
	switch cfg.WriteConfirmation {
	case config.ConfirmClientApproval, config.ConfirmMattermost, config.ConfirmClientThenMattermost:
		return ""
	}
	return "The write confirmation setting is not one this plugin knows: nothing was sent."
}

// startWrite is how every write tool begins: writes must be allowed, and a
// retry that carries the person's answer is finished at once, without
// resolving or reading anything again. A nil caller means: answer res, err.
func (d Deps) startWrite(ctx context.Context) (*mattermost.Caller, *mcp.CallToolResult, error) {
	if refusal := d.mayWrite(); refusal != "" {
		return nil, mcp.NewToolResultError(refusal), nil
	}
	c, err := d.caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	if call := catalogue.CallOf(ctx); call.RoundTrip.RequestState != "" {
		res, err := d.resume(ctx, c, call)
		return nil, res, err
	}
	return c, nil, nil
}

// sources are the kinds of files a post takes, each read as the caller.
func (d Deps) sources() posting.Registry {
	return posting.NewRegistry(d.FileSlots, map[string]posting.Source{
		posting.KindWritten: posting.Written{},
		posting.KindAttachment: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.FileID) },
			Read: func(_ context.Context, userID, ref string) (string, []byte, string, error) {
				c := d.MM.As(userID)
				f, err := c.File(ref)
				if err != nil {
					return "", nil, "", notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found. Take file_id from the attachments listed beside posts or from search_files.", ref))
				}
				if f.Info.Size > c.ServerMaxFileSize() {
					return "", nil, "", posting.Refusal(fmt.Sprintf("The attachment %s is %s, more than this Mattermost takes in a post.", f.Info.Name, present.Size(f.Info.Size)))
				}
				data, err := c.FileBytes(f)
				if err != nil {
					return "", nil, "", notFoundRefusal(err, fmt.Sprintf("The attachment %q was not found.", ref))
				}
				origin := "attachment " + present.Clean(f.Info.Name)
				if f.PostID != "" {
					if place, err := c.PlaceOf(f); err == nil {
						origin += " from " + present.Permalink(c.SiteURL(), place.TeamName, f.PostID)
					}
				}
				return f.Info.Name, data, origin, nil
			},
		},
		posting.KindWorkspace: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.WorkspaceFile) },
			Read: func(_ context.Context, userID, ref string) (string, []byte, string, error) {
				f, data, err := d.Workspace.ReadAll(userID, ref, d.MM.As(userID).ServerMaxFileSize())
				if err != nil {
					return "", nil, "", sourceRefusal(err, ref)
				}
				return f.Name, data, "your workspace file " + present.Clean(f.Name), nil
			},
		},
		posting.KindHandle: posting.Reader{
			Ref: func(e posting.Entry) string { return strings.TrimSpace(e.Handle) },
			Read: func(ctx context.Context, userID, ref string) (string, []byte, string, error) {
				var name string
				var data []byte
				err := d.Workspace.Redeem(ctx, userID, ref, func(f workspace.RedeemedFile) error {
					name, data = f.Name, f.Bytes
					return nil
				})
				if err != nil {
					return "", nil, "", sourceRefusal(err, "the upload handle")
				}
				return name, data, "upload handle for " + present.Clean(name), nil
			},
		},
	})
}

func notFoundRefusal(err error, msg string) error {
	if errors.Is(err, mattermost.ErrNotFound) {
		return posting.Refusal(msg)
	}
	return err
}

func sourceRefusal(err error, what string) error {
	switch {
	case errors.Is(err, workspace.ErrNotFound):
		return posting.Refusal(fmt.Sprintf("%s was not found in the person's workspace (or the upload has not arrived). Call files_list to see it.", what))
	case errors.Is(err, workspace.ErrTooLarge):
		return posting.Refusal(fmt.Sprintf("%s is larger than this Mattermost takes in a post.", what))
	case errors.Is(err, workspace.ErrExpiredHandle), errors.Is(err, workspace.ErrInvalidHandle), errors.Is(err, workspace.ErrPinMismatch):
		return posting.Refusal(fmt.Sprintf("%s cannot be used: %v. Call request_upload for a new one.", what, err))
	}
	return err
}

func (d Deps) createPost(ctx context.Context, a createPostArgs) (*mcp.CallToolResult, error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	r, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return nil, err
	}
	if r.refusal != "" {
		return mcp.NewToolResultError(r.refusal), nil
	}
	dest := posting.Destination{ChannelID: r.view.ch.Id, RootID: strings.TrimSpace(a.RootID), Label: r.view.label()}
	return d.post(ctx, c, dest, a.Message, a.Files)
}

func (d Deps) dm(ctx context.Context, a dmArgs) (*mcp.CallToolResult, error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	u, err := c.User(a.User)
	if errors.Is(err, mattermost.ErrNotFound) {
		return mcp.NewToolResultError(fmt.Sprintf("Nobody called %q was found. Call search_users with part of their name.", a.User)), nil
	}
	if err != nil {
		return nil, err
	}
	if u.Id == c.UserID() {
		return mcp.NewToolResultError("That is the signed-in person themselves; give someone else."), nil
	}
	dest := posting.Destination{UserIDs: []string{u.Id}, Label: "a direct message with @" + u.Username}
	return d.post(ctx, c, dest, a.Message, a.Files)
}

func (d Deps) groupMessage(ctx context.Context, a groupMessageArgs) (*mcp.CallToolResult, error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	seen := map[string]bool{c.UserID(): true}
	var ids, names []string
	for _, ref := range a.Users {
		u, err := c.User(ref)
		if errors.Is(err, mattermost.ErrNotFound) {
			return mcp.NewToolResultError(fmt.Sprintf("Nobody called %q was found. Call search_users with part of their name.", ref)), nil
		}
		if err != nil {
			return nil, err
		}
		if !seen[u.Id] {
			seen[u.Id] = true
			ids = append(ids, u.Id)
			names = append(names, "@"+u.Username)
		}
	}
	if len(ids) < 2 || len(ids) > maxGroupOther {
		return mcp.NewToolResultError(fmt.Sprintf("A group message is with 2 to %d other people; %d were given. For one person use dm; for more, a channel.", maxGroupOther, len(ids))), nil
	}
	dest := posting.Destination{UserIDs: ids, Label: "a group message with " + strings.Join(names, ", ")}
	return d.post(ctx, c, dest, a.Message, a.Files)
}

// post prepares and, as the admin's confirmation setting allows, executes.
func (d Deps) post(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry) (*mcp.CallToolResult, error) {
	me, err := c.Me()
	if err != nil {
		return nil, err
	}
	req := posting.Request{Dest: dest, Message: message, Files: files,
		Attribution: fmt.Sprintf("Written by an AI assistant for @%s (MCP)", me.Username)}
	reg := d.sources()
	plan, err := posting.Prepare(ctx, c, reg, req)
	if res, err := refusalOr(err, dest); res != nil || err != nil {
		return res, err
	}
	if !d.confirmsItself() {
		return d.ask(ctx, c, plan)
	}
	// Checked again just before sending: the setting may have changed
	// while the files were read.
	if refusal := d.mayWrite(); refusal != "" {
		return mcp.NewToolResultError(refusal), nil
	}
	done, err := posting.Execute(ctx, c, reg, plan)
	if res, err := refusalOr(err, dest); res != nil || err != nil {
		return res, err
	}
	return d.posted(c, plan, done), nil
}

// confirmsItself is the admin leaving every write to the client's own
// approval.
func (d Deps) confirmsItself() bool {
	return d.Config().WriteConfirmation == config.ConfirmClientApproval
}

// ask puts the question where the admin's setting says: a form in the
// client when it can show one and the setting allows; otherwise in
// Mattermost, with the page sent to a client that can open links.
// Either way the write is first stored as a pending record, so any node can
// show, answer and carry it out.
func (d Deps) ask(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (*mcp.CallToolResult, error) {
	rec, err := d.Confirm.Create(c.UserID(), pendingTitle(plan), plan)
	if err != nil {
		return nil, err
	}
	form, url := question.ClientAsks(ctx)
	if form && d.Config().WriteConfirmation == config.ConfirmClientThenMattermost {
		return d.askInClient(ctx, c, rec, question.ModeForm)
	}
	// The question is Mattermost's own: the person's open Mattermost shows
	// it, and a client that opens links is sent its page too.
	c.NotifyPending(rec.ID, rec.Title)
	if url {
		return d.askInClient(ctx, c, rec, question.ModeURL)
	}
	return d.waitForAnswer(ctx, c, rec)
}

func refusalOr(err error, dest posting.Destination) (*mcp.CallToolResult, error) {
	if err == nil {
		return nil, nil
	}
	var r posting.Refusal
	if errors.As(err, &r) {
		return mcp.NewToolResultError(string(r)), nil
	}
	if errors.Is(err, mattermost.ErrNotFound) || errors.Is(err, posting.ErrNotFound) {
		return mcp.NewToolResultError(fmt.Sprintf("%s was not found. Call list_channels to see the channels you can post in.", dest.Label)), nil
	}
	return nil, err
}

func (d Deps) posted(c *mattermost.Caller, plan posting.Plan, done posting.Result) *mcp.CallToolResult {
	out := PostResult{PostID: done.Post.Id, ChannelID: done.Post.ChannelId,
		Permalink: permalinkOf(c, done.Post.ChannelId, done.Post.Id), Notes: plan.Notes}
	var b strings.Builder
	fmt.Fprintf(&b, "Posted to %s: %s\n", plan.Dest.Label, out.Permalink)
	for i, f := range plan.Files {
		out.Files = append(out.Files, PostedFile{FileID: done.FileIDs[i], Name: f.Name, Size: f.Size, SHA256: f.SHA256, Type: f.Detected, Origin: f.Origin})
		fmt.Fprintf(&b, "- %s (%s, %s, sha256 %s…, %s) file_id=%s\n", present.Clean(f.Name), present.Size(f.Size), f.Detected, f.SHA256[:12], f.Origin, done.FileIDs[i])
	}
	for _, n := range plan.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	return structured(b.String(), out)
}

func (d Deps) updatePost(ctx context.Context, a updatePostArgs) (*mcp.CallToolResult, error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	if n := len([]rune(a.Message)); n > postMaxRunes() {
		return mcp.NewToolResultError(fmt.Sprintf("The message is %d characters; Mattermost takes at most %d. Shorten it.", n, postMaxRunes())), nil
	}
	p, ch, res, err := d.postFor(c, a.PostID)
	if res != nil || err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return mcp.NewToolResultError("That post is not the signed-in person's own: only their own posts can be edited. Reply to it with create_post and root_id instead."), nil
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: posting.ActionEdit, PostID: p.Id, Message: a.Message, Previous: p.Message,
		Dest: posting.Destination{ChannelID: ch.Id, Label: placeOf(c, ch)}}
	return d.write(ctx, c, plan)
}

func (d Deps) react(ctx context.Context, a reactionArgs, remove bool) (*mcp.CallToolResult, error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	emoji := strings.Trim(strings.TrimSpace(a.Emoji), ":")
	if emoji == "" {
		return mcp.NewToolResultError("Give emoji_name, e.g. thumbsup (without colons)."), nil
	}
	p, ch, res, err := d.postFor(c, a.PostID)
	if res != nil || err != nil {
		return res, err
	}
	action := posting.ActionReact
	if remove {
		action = posting.ActionUnreact
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: action, PostID: p.Id, Emoji: emoji, Previous: p.Message,
		Dest: posting.Destination{ChannelID: ch.Id, Label: placeOf(c, ch)}}
	return d.write(ctx, c, plan)
}

// postFor reads the post an edit or reaction is about, as the caller.
func (d Deps) postFor(c *mattermost.Caller, postID string) (*model.Post, *model.Channel, *mcp.CallToolResult, error) {
	p, err := c.Post(strings.TrimSpace(postID))
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil, nil, mcp.NewToolResultError(fmt.Sprintf("Post %q was not found. Take post ids from read_channel or search_posts.", postID)), nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	ch, err := c.Channel(p.ChannelId)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, ch, nil, nil
}

// placeOf names a post's channel with its team, as the question shows it.
func placeOf(c *mattermost.Caller, ch *model.Channel) string {
	v := chanView{ch: ch}
	if ch.TeamId != "" {
		v.team, _ = c.Team(ch.TeamId)
	}
	if other := ch.GetOtherUserIdForDM(c.UserID()); ch.Type == model.ChannelTypeDirect && other != "" {
		v.other, _ = c.User(other)
	}
	return v.label()
}

// write asks about an edit or reaction, or does it at once when the client's
// approval is the only check.
func (d Deps) write(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (*mcp.CallToolResult, error) {
	if !d.confirmsItself() {
		return d.ask(ctx, c, plan)
	}
	done, err := d.ExecutePlan(ctx, c.UserID(), plan)
	if err != nil {
		var r posting.Refusal
		if errors.As(err, &r) {
			return mcp.NewToolResultError(string(r)), nil
		}
		return nil, err
	}
	return structured(doneText(plan, done.Permalink), map[string]any{"post_id": plan.PostID, "action": actionName(plan.Action), "permalink": done.Permalink}), nil
}

func actionName(action string) string {
	if action == posting.ActionPost {
		return "post"
	}
	return action
}

func postMaxRunes() int { return model.PostMessageMaxRunesV2 }

// permalinkOf is where the person opens a post the caller just wrote.
func permalinkOf(c *mattermost.Caller, channelID, postID string) string {
	teamName := ""
	if ch, err := c.Channel(channelID); err == nil && ch.TeamId != "" {
		if t, err := c.Team(ch.TeamId); err == nil {
			teamName = t.Name
		}
	}
	return present.Permalink(c.SiteURL(), teamName, postID)
}
