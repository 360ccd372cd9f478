package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
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
const confirmationNote = " The person confirms first; if they decline, retry only if they ask."

const filesNote = " files: up to 10, each {name, content}, {file_id}, {workspace_file} or {handle}; a file changed before sending is refused."

type createPostArgs struct {
	Channel string          `json:"channel" jsonschema:"Id (best), ~name, display name or link."`
	Team    string          `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	RootID  string          `json:"root_id,omitempty" jsonschema:"A post id to reply to, in its thread."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type dmArgs struct {
	User    string          `json:"user" jsonschema:"The person: an @username or a user id."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type groupMessageArgs struct {
	Users   []string        `json:"users" jsonschema:"The 2 to 7 other people: @usernames or user ids."`
	Message string          `json:"message,omitempty" jsonschema:"The message, in Mattermost markdown."`
	Files   []posting.Entry `json:"files,omitempty" jsonschema:"Files to attach, up to 10."`
}

type updatePostArgs struct {
	PostID  string `json:"post_id" jsonschema:"The id of one of the person's own posts."`
	Message string `json:"message" jsonschema:"The new message; it replaces the old one."`
}

type reactionArgs struct {
	PostID string `json:"post_id"`
	Emoji  string `json:"emoji_name" jsonschema:"Emoji name without colons, e.g. thumbsup: a standard emoji or one of the server's custom emoji (list_emoji)."`
}

// WriteResult is the structured answer of every tool that writes, and of
// get_pending: what was done, or where the write stands.
type WriteResult struct {
	// State is posted (done), pending (waiting for the person in
	// Mattermost), declined, failed or withdrawn (the client cancelled the
	// call that asked).
	State string `json:"state"`
	// ID is the pending write's id, for get_pending; empty for a write done
	// at once.
	ID      string `json:"id,omitempty"`
	URL     string `json:"url,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Action  string `json:"action,omitempty"`
	// Emoji is the emoji of a reaction added or taken back.
	Emoji     string       `json:"emoji,omitempty"`
	PostID    string       `json:"post_id,omitempty"`
	ChannelID string       `json:"channel_id,omitempty"`
	Permalink string       `json:"permalink,omitempty"`
	Files     []PostedFile `json:"files,omitempty"`
	Notes     []string     `json:"notes,omitempty"`
}

type PostedFile struct {
	FileID string `json:"file_id"`
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Type   string `json:"type"`
	Origin string `json:"origin"`
}

func writeTools(d Deps) []catalogue.Tool {
	tools := []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "create_post", Title: "Post in a channel", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Posts as the person in a channel, or a thread with root_id, marked as written by an AI for them." + filesNote + confirmationNote,
		}, d.createPost),
		catalogue.Define(catalogue.Tool{
			Name: "dm", Title: "Send a direct message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a direct message, with files as for create_post, from the person to one other person." + confirmationNote,
		}, d.dm),
		catalogue.Define(catalogue.Tool{
			Name: "group_message", Title: "Send a group message", Hints: postHints, Effect: catalogue.ChangesMattermost,
			Description: "Sends a group message, with files as for create_post, from the person to 2 to 7 other people." + confirmationNote,
		}, d.groupMessage),
		catalogue.Define(catalogue.Tool{
			Name: "update_post", Title: "Edit one of your posts", Hints: editHints, Effect: catalogue.ChangesMattermost,
			Description: "Replaces the message of one of the person's own posts; its files stay." + confirmationNote,
		}, d.updatePost),
		catalogue.Define(catalogue.Tool{
			Name: "add_reaction", Title: "React to a post", Hints: reactHints, Effect: catalogue.ChangesMattermost,
			Description: "Adds the person's emoji reaction to a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, false)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "remove_reaction", Title: "Take back a reaction", Hints: unreactHints, Effect: catalogue.ChangesMattermost,
			Description: "Removes the person's own emoji reaction from a post they can read." + confirmationNote,
		}, func(ctx context.Context, a reactionArgs) (catalogue.Result[WriteResult], error) {
			return d.react(ctx, a, true)
		}),
	}
	tools = append(tools, postChangeTools(d)...)
	tools = append(tools, channelChangeTools(d)...)
	tools = append(tools, setStatusTool(d), schedulePost(d))
	return tools
}

// startWrite is how every write tool begins: writes must be allowed, and a
// retry that carries the person's answer is finished at once, without
// resolving or reading anything again. A nil caller means: answer res, err.
func (d Deps) startWrite(ctx context.Context) (*mattermost.Caller, catalogue.Result[WriteResult], error) {
	var none catalogue.Result[WriteResult]
	if err := d.Approvals.MayWrite(); err != nil {
		return nil, none, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return nil, none, err
	}
	if call := transport.CallOf(ctx); call.RoundTrip.RequestState != "" {
		o, err := d.Approvals.Resume(ctx, c, call)
		res, err := d.outcome(c, o, err)
		return nil, res, err
	}
	return c, none, nil
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
	dest := posting.Destination{ChannelID: view.ch.Id, RootID: strings.TrimSpace(a.RootID), Label: view.label(), Place: view.place(c), Where: view.where(c)}
	return d.post(ctx, c, dest, a.Message, a.Files)
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
	return d.post(ctx, c, dest, a.Message, a.Files)
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
	return d.post(ctx, c, dest, a.Message, a.Files)
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
func (d Deps) post(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry) (res catalogue.Result[WriteResult], err error) {
	plan, err := d.stagePost(ctx, c, dest, message, files)
	if err != nil {
		return res, err
	}
	return d.write(ctx, c, plan)
}

// stagePost checks a post as the caller and stages its files, marked as
// written by an AI for them.
func (d Deps) stagePost(ctx context.Context, c *mattermost.Caller, dest posting.Destination, message string, files []posting.Entry) (posting.Plan, error) {
	me, err := c.Me()
	if err != nil {
		return posting.Plan{}, err
	}
	req := posting.Request{Dest: dest, Message: message, Files: files,
		Attribution: fmt.Sprintf("Written by an AI assistant for @%s (MCP)", me.Username)}
	plan, err := d.Approvals.Stage(ctx, c, req)
	if err != nil {
		return plan, notFoundAs(err, dest)
	}
	return plan, nil
}

// write asks about a checked write; the answer is worded for the model.
func (d Deps) write(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (res catalogue.Result[WriteResult], err error) {
	o, err := d.Approvals.Ask(ctx, c, plan, transport.ClientSessions(ctx))
	return d.outcome(c, o, err)
}

// notFoundAs words a destination that is not found (or not the caller's to
// see) as a refusal; other errors pass as they are.
func notFoundAs(err error, dest posting.Destination) error {
	if errors.Is(err, mattermost.ErrNotFound) || errors.Is(err, posting.ErrNotFound) {
		return refusal.New(dest.Label+" was not found.", "Call list_channels to see the channels you can post in.")
	}
	return err
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
	plan := posting.Plan{CallerID: c.UserID(), Action: posting.ActionEdit, PostID: p.Id, Message: a.Message, Previous: p.Message,
		Dest: posting.Destination{ChannelID: ch.Id, Label: placeOf(c, ch)}}
	plan.Dest.Place, plan.Dest.Where = placeIn(c, ch)
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
	action := posting.ActionReact
	if remove {
		action = posting.ActionUnreact
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: action, PostID: p.Id, Emoji: emoji, Previous: p.Message,
		Dest: posting.Destination{ChannelID: ch.Id, Label: placeOf(c, ch)}}
	plan.Dest.Place, plan.Dest.Where = placeIn(c, ch)
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

func actionName(action string) string {
	if action == posting.ActionPost {
		return "post"
	}
	return action
}

func postMaxRunes() int { return model.PostMessageMaxRunesV2 }
