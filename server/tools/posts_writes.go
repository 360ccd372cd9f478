package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// The post tools that change something: posting (with files), editing,
// reactions, deleting and pinning, which the person confirms, and saving
// and reminders, which only they see.

// delete_post, pin_post and unpin_post: changes to a post others see.

var (
	deleteHints = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	pinHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unpinHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
)

type postIDArgs struct {
	PostID string `json:"post_id"`
}

func postChangeTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "delete_post", Title: "Delete one of your posts", Hints: deleteHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Deletes one of the person's own posts, with its replies and files." + confirmationNote,
		}, d.deletePost),
		catalogue.Define(catalogue.Tool{
			Name: "pin_post", Title: "Pin a post", Hints: pinHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Pins a post the person can read to its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, approval.PinPost)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unpin_post", Title: "Unpin a post", Hints: unpinHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Unpins a pinned post from its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, approval.UnpinPost)
		}),
	}
}

func (d Deps) deletePost(ctx context.Context, a postIDArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return res, refusal.New("That post is not the signed-in person's own: only their own posts can be deleted.", "")
	}
	if !c.MayDeleteOwnPost(p) {
		return res, refusal.New("The person's role does not let them delete their posts in that channel; nothing was asked.", "")
	}
	plan, shown, err := postChange(c, p, ch, approval.DeletePost)
	if err != nil {
		return res, err
	}
	gone := "Everyone in " + plan.Dest.PlaceText() + " stops seeing the post"
	if shown.Target.Replies > 0 {
		gone += " and its replies, including other people's"
	}
	plan.Notes = []string{gone + "; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

func (d Deps) pin(ctx context.Context, a postIDArgs, kind *approval.Kind[approval.ShownPost]) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if ch.DeleteAt != 0 {
		return res, refusal.New("That post's channel is archived: nothing in it can be pinned or unpinned, and nothing was asked.",
			"Someone who may manage the channel can unarchive it in Mattermost; then call this tool again.")
	}
	if p.IsPinned == (kind == approval.PinPost) {
		state := "already pinned"
		if kind == approval.UnpinPost {
			state = "not pinned"
		}
		return res, refusal.New(fmt.Sprintf("Post %s is %s; nothing needs to change, and nothing was asked.", p.Id, state),
			"list_pinned_posts with the post's channel lists the channel's pinned posts.")
	}
	plan, _, err := postChange(c, p, ch, kind)
	if err != nil {
		return res, err
	}
	plan.Notes = []string{"Everyone in " + plan.Dest.PlaceText() + " sees the change in the channel's pinned messages; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

// postChange is the plan of a change to a post of kind: the post as it
// reads now, who wrote it, and the replies and files that go with it.
func postChange(c *mattermost.Caller, p *model.Post, ch *model.Channel, kind *approval.Kind[approval.ShownPost]) (posting.Plan, approval.ShownPost, error) {
	replies, err := c.Replies(p)
	if err != nil {
		return posting.Plan{}, approval.ShownPost{}, err
	}
	files, err := c.PostFiles(p)
	if err != nil {
		return posting.Plan{}, approval.ShownPost{}, err
	}
	t := &posting.PostTarget{AuthorID: p.UserId, EditAt: p.EditAt, Replies: replies, Files: make([]string, len(files))}
	for i, f := range files {
		t.Files[i] = f.Name
	}
	if author, err := c.Poster(p.UserId); err == nil {
		t.Author = author.Username
	}
	shown := approval.ShownPost{Target: t}
	plan := kind.Plan(posting.Plan{CallerID: c.UserID(), PostID: p.Id, Previous: p.Message,
		Dest: placeOf(c, ch).destination(c)}, shown)
	if plan.Dest.Where == "" {
		return plan, shown, fmt.Errorf("no place for channel %s", ch.Id)
	}
	return plan, shown, nil
}

type reminderArgs struct {
	PostID    string `json:"post_id"`
	At        string `json:"at,omitempty" jsonschema:"RFC 3339, or 2024-05-01T09:00 in the person's time zone."`
	InMinutes int    `json:"in_minutes,omitempty" jsonschema:"Or: this many minutes from now."`
}

// savedPostTools are save_post and unsave_post: the person's Saved messages.
func savedPostTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "save_post", Title: "Save a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Adds a post the person can read to their Saved messages in Mattermost." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, true)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unsave_post", Title: "Unsave a post", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Takes a post out of the person's Saved messages in Mattermost; a post not saved is fine." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, false)
		}),
	}
}

// reminderTools are set_post_reminder: a reminder only the person gets.
func reminderTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "set_post_reminder", Title: "Remind me of a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Has Mattermost's bot remind the person of a post they can read at a time; a new reminder replaces the old one." + ownViewNote,
		}, d.setPostReminder),
	}
}

func (d Deps) savePost(ctx context.Context, a postRefArgs, save bool) (res catalogue.Result[OwnViewResult], err error) {
	_, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	p, err := v.SavePost(strings.TrimSpace(a.PostID), save)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	return answer(savedAnswer(p, save))
}

// savedAnswer says post p is now saved (save) or not.
func savedAnswer(p *model.Post, save bool) (string, OwnViewResult) {
	if save {
		return fmt.Sprintf("Post %s is in the person's Saved messages.", p.Id),
			OwnViewResult{Done: "post_saved", ChannelID: p.ChannelId, PostID: p.Id}
	}
	return fmt.Sprintf("Post %s is not in the person's Saved messages.", p.Id), OwnViewResult{Done: "post_unsaved", ChannelID: p.ChannelId, PostID: p.Id}
}

func (d Deps) setPostReminder(ctx context.Context, a reminderArgs) (res catalogue.Result[OwnViewResult], err error) {
	c, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	loc := c.Location()
	at, err := timeAhead(a.At, a.InMinutes, time.Now(), loc)
	if err != nil {
		return res, err
	}
	p, err := v.SetPostReminder(ctx, strings.TrimSpace(a.PostID), at)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	return answer(reminderAnswer(p, at, loc))
}

// reminderAnswer says Mattermost will remind the person of post p at at,
// in their time zone loc.
func reminderAnswer(p *model.Post, at time.Time, loc *time.Location) (string, OwnViewResult) {
	return fmt.Sprintf("Mattermost will remind the person of post %s at %s (their time, %s): its system bot messages them then.",
			p.Id, present.Name(at.In(loc).Format("Mon 2 Jan 2006 15:04")), loc),
		OwnViewResult{Done: "reminder_set", ChannelID: p.ChannelId, PostID: p.Id, At: at.UTC().Format(time.RFC3339)}
}

// Hints of the write tools: posting reaches other people (open world) and
// is never idempotent.
var (
	postHints     = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	editHints     = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	reactHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unreactHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
	maxGroupOther = 7
)

const filesNote = " files: up to 10, each {name, content}, {file_id}, {workspace_file} or {handle}; a file changed before sending is refused."

type createPostArgs struct {
	Channel string          `json:"channel" jsonschema:"Id (best), ~name, display name or link."`
	Team    string          `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	RootID  string          `json:"root_id,omitempty" jsonschema:"A post id to reply to, in its thread."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
	Chat    []chatfile.Ref  `json:"chatgpt_files,omitempty" jsonschema:"ChatGPT fills this with files the person attached; elsewhere leave it out."`
}

type dmArgs struct {
	User    string          `json:"user" jsonschema:"The person: an @username or a user id."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
	Chat    []chatfile.Ref  `json:"chatgpt_files,omitempty" jsonschema:"ChatGPT fills this with files the person attached; elsewhere leave it out."`
}

type groupMessageArgs struct {
	Users   []string        `json:"users" jsonschema:"The 2 to 7 other people: @usernames or user ids."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
	Chat    []chatfile.Ref  `json:"chatgpt_files,omitempty" jsonschema:"ChatGPT fills this with files the person attached; elsewhere leave it out."`
}

type updatePostArgs struct {
	PostID  string `json:"post_id" jsonschema:"The id of one of the person's own posts."`
	Message string `json:"message" jsonschema:"The new message; it replaces the old one."`
}

type reactionArgs struct {
	PostID string `json:"post_id"`
	Emoji  string `json:"emoji_name" jsonschema:"No colons, e.g. thumbsup; standard or custom (list_emoji)."`
}

// postWriteTools are create_post, dm, group_message, update_post,
// add_reaction and remove_reaction.
func postWriteTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "create_post", Title: "Post in a channel", Hints: postHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting, Files: catalogue.TakesFiles,
			Description: "Posts as the person in a channel, or a thread with root_id, marked as written by an AI for them." + filesNote + confirmationNote,
			View:        resources.PendingView,
		}, d.createPost),
		catalogue.Define(catalogue.Tool{
			Name: "dm", Title: "Send a direct message", Hints: postHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting, Files: catalogue.TakesFiles,
			Description: "Sends a direct message, with files as for create_post, from the person to one other person." + confirmationNote,
		}, d.dm),
		catalogue.Define(catalogue.Tool{
			Name: "group_message", Title: "Send a group message", Hints: postHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting, Files: catalogue.TakesFiles,
			Description: "Sends a group message, with files as for create_post, from the person to 2 to 7 other people." + confirmationNote,
		}, d.groupMessage),
		catalogue.Define(catalogue.Tool{
			Name: "update_post", Title: "Edit one of your posts", Hints: editHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Replaces the message of one of the person's own posts; its files stay." + confirmationNote,
		}, d.updatePost),
		catalogue.Define(catalogue.Tool{
			Name: "add_reaction", Title: "React to a post", Hints: reactHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Adds the person's emoji reaction to a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, false)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "remove_reaction", Title: "Take back a reaction", Hints: unreactHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting,
			Description: "Removes the person's own emoji reaction from a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, true)
		}),
	}
}

func (d Deps) createPost(ctx context.Context, a createPostArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	dest := view.destination(c)
	dest.RootID = strings.TrimSpace(a.RootID)
	return d.post(ctx, c, dest, a.Message, a.Files, a.Chat)
}

func (d Deps) dm(ctx context.Context, a dmArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	u, err := c.User(a.User)
	if err != nil {
		return res, personRefusal(err, a.User)
	}
	if u.Id == c.UserID() {
		return res, refusal.New("That is the signed-in person themselves; give someone else.", "")
	}
	if err := c.MayMessage([]string{u.Id}); err != nil {
		return res, conversationRefusal(err, "a direct message with @"+u.Username, "create_direct_channel")
	}
	dest := posting.Destination{UserIDs: []string{u.Id}, Label: "a direct message with @" + u.Username,
		Place: "your direct message with @" + u.Username, Where: "a direct message from you to @" + u.Username, Recipients: []string{"@" + u.Username}}
	return d.post(ctx, c, dest, a.Message, a.Files, a.Chat)
}

func (d Deps) groupMessage(ctx context.Context, a groupMessageArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	seen := map[string]bool{c.UserID(): true}
	var ids, names []string
	for _, ref := range a.Users {
		u, err := c.User(ref)
		if err != nil {
			return res, personRefusal(err, ref)
		}
		if !seen[u.Id] {
			seen[u.Id] = true
			ids = append(ids, u.Id)
			names = append(names, "@"+u.Username)
		}
	}
	if len(ids) < 2 || len(ids) > maxGroupOther {
		return res, refusal.Newf("A group message is with 2 to %d other people; %d were given. For one person use dm; for more, a channel.", maxGroupOther, len(ids))
	}
	if err := c.MayMessage(ids); err != nil {
		return res, conversationRefusal(err, "a group message with "+strings.Join(names, ", "), "create_group_channel")
	}
	dest := posting.Destination{UserIDs: ids, Label: "a group message with " + strings.Join(names, ", "),
		Place: "your group message with " + strings.Join(names, ", "), Where: "a group message from you to " + strings.Join(names, ", "), Recipients: names}
	return d.post(ctx, c, dest, a.Message, a.Files, a.Chat)
}

// conversationRefusal words a direct or group message the person may not
// start, before they are asked: Mattermost's API refuses to open one
// without the permission, so asking would only end in a failure.
func conversationRefusal(err error, what, permission string) error {
	if errors.Is(err, mattermost.ErrCannotStartConversation) {
		return refusal.New(fmt.Sprintf("The person has no %s yet, and Mattermost does not let them start one: their role lacks the %s permission. Nothing was asked or posted.", what, permission),
			"Tell the person; an admin can grant it (System Console > User Management > Permissions), or post in a channel you both can read with create_post.")
	}
	return err
}

// post checks and stages a post, then asks the person (or, when the admin
// leaves writes to the client's own approval, sends it).
func (d Deps) post(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry, chat []chatfile.Ref) (res catalogue.Result[WriteResult], err error) {
	fetched, err := d.fetchChatFiles(ctx, c, dest, chat, len(files))
	if err != nil {
		return res, err
	}
	plan, err := d.stagePost(ctx, c, dest, message, append(files, fetched.entries...), fetched.received)
	if err != nil {
		// Staging discarded what was received; the workspace's are dropped.
		d.dropChatFiles(c, workspaceOnly(fetched.got))
		return res, err
	}
	markChatOrigins(&plan, fetched.got)
	return d.ask(ctx, c, plan, d.posted)
}

// stagePost checks a post as the caller and stages its files (received,
// the files already in Mattermost for it), marked as written by an AI for
// them.
func (d Deps) stagePost(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry, received []posting.Staged) (posting.Plan, error) {
	me, err := c.Me()
	if err != nil {
		if ids := (posting.Plan{Files: received}).Uploads(); len(ids) > 0 {
			_ = c.DiscardUploads(ids)
		}
		return posting.Plan{}, err
	}
	req := posting.Request{Dest: dest, Message: message, Files: files, Uploaded: received,
		Attribution: fmt.Sprintf("Written by an AI assistant for @%s (MCP)", me.Username)}
	plan, err := d.Approvals.Stage(ctx, c, req)
	if err != nil {
		return plan, notFoundAs(err, dest)
	}
	return plan, nil
}

func (d Deps) updatePost(ctx context.Context, a updatePostArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	if n := len([]rune(a.Message)); n > postMaxRunes() {
		return res, refusal.Newf("The message is %d characters; Mattermost takes at most %d. Shorten it.", n, postMaxRunes())
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return res, refusal.New("That post is not the signed-in person's own: only their own posts can be edited. Reply to it with create_post and root_id instead.", "")
	}
	plan := approval.EditPost.Plan(posting.Plan{CallerID: c.UserID(), PostID: p.Id, Message: a.Message, Previous: p.Message,
		Dest: placeOf(c, ch).destination(c)}, approval.Nothing{})
	return d.write(ctx, c, plan)
}

func (d Deps) react(ctx context.Context, a reactionArgs, remove bool) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	emoji := strings.Trim(strings.TrimSpace(a.Emoji), ":")
	if err := emojiForm("emoji_name", emoji); err != nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if err := reactionEmoji(c, p.Id, emoji, remove); err != nil {
		return res, err
	}
	kind := approval.AddReaction
	if remove {
		kind = approval.RemoveReaction
	}
	plan := kind.Plan(posting.Plan{CallerID: c.UserID(), PostID: p.Id, Previous: p.Message,
		Dest: placeOf(c, ch).destination(c)}, approval.Reaction{Emoji: emoji})
	return d.write(ctx, c, plan)
}

// reactionEmoji refuses an emoji that does not exist on this server before
// anyone is asked, as Mattermost would refuse the reaction. A reaction
// being taken back may be of a custom emoji deleted since: the person's own
// reaction on the post is enough.
func reactionEmoji(c *mattermost.Caller, postID, emoji string, remove bool) error {
	err := checkEmoji(c, "emoji_name", emoji)
	if err == nil || !remove {
		return err
	}
	rs, rerr := c.Reactions(postID)
	if rerr != nil {
		return rerr
	}
	for _, r := range rs {
		if r.UserId == c.UserID() && r.EmojiName == emoji {
			return nil
		}
	}
	return err
}

// postFor reads the post an edit or reaction is about, as the caller.
func postFor(c *mattermost.Caller, postID string) (*model.Post, *model.Channel, error) {
	p, err := c.Post(strings.TrimSpace(postID))
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil, nil, refusal.New(fmt.Sprintf("Post %q was not found.", postID), "Take post ids from read_channel or search_posts.")
	}
	if err != nil {
		return nil, nil, err
	}
	ch, err := c.Channel(p.ChannelId)
	if err != nil {
		return nil, nil, err
	}
	return p, ch, nil
}

func postMaxRunes() int { return model.PostMessageMaxRunesV2 }
