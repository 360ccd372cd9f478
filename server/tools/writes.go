package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// confirmationNote is the part of every write tool's description that says
// who confirms, as built.
const confirmationNote = " The person confirms first; if declined, retry only if asked."

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

// writeTools are the tools that change what others see, each asking the
// person first, family by family, then each write whose kind lives in its
// tool's file.
func writeTools(d Deps) []catalogue.Tool {
	tools := postWriteTools(d)
	tools = append(tools, postChangeTools(d)...)
	tools = append(tools, channelWriteTools(d)...)
	tools = append(tools, addChannelMembersTool(d), setStatusTool(d), schedulePost(d))
	for _, tool := range besideTheirKinds {
		tools = append(tools, tool(d))
	}
	return tools
}

// besideTheirKinds are the tools of confirmed writes that live whole in one
// file, tool and kind (approval.Register) together, in the order Go reads
// their files (by name), so the catalogue's order is the same every build.
var besideTheirKinds []func(Deps) catalogue.Tool

// confirmedWrite lists the tool of a write defined whole in its own file;
// its file's `var _ = confirmedWrite(...)` is all that names it.
func confirmedWrite(tool func(Deps) catalogue.Tool) bool {
	besideTheirKinds = append(besideTheirKinds, tool)
	return true
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
		res, err := outcomeAnswer(o, err, nil)
		return nil, res, err
	}
	return c, none, nil
}

// write asks about a checked write; the answer is worded for the model.
func (d Deps) write(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (res catalogue.Result[WriteResult], err error) {
	return d.ask(ctx, c, plan, nil)
}

// ask asks about a checked write; atOnce, when set, words a write the admin
// leaves to the client's own approval, done at once (nil: what it did and
// its link).
func (d Deps) ask(ctx context.Context, c *mattermost.Caller, plan posting.Plan, atOnce func(approval.Outcome) catalogue.Result[WriteResult]) (res catalogue.Result[WriteResult], err error) {
	o, err := d.Approvals.Ask(ctx, c, plan, transport.ClientSessions(ctx))
	return outcomeAnswer(o, err, atOnce)
}

// notFoundAs words a destination that is not found (or not the caller's to
// see) as a refusal; other errors pass as they are.
func notFoundAs(err error, dest posting.Destination) error {
	if errors.Is(err, mattermost.ErrNotFound) || errors.Is(err, posting.ErrNotFound) {
		return refusal.New(dest.Label+" was not found.", "Call list_channels to see the channels you can post in.")
	}
	return err
}

func actionName(action string) string {
	if action == approval.ActionPost {
		return "post"
	}
	return action
}

// The tools that change only the person's own view of Mattermost. Nobody
// else sees the change, so they are done without a question, but only
// while the admin allows writes.

// Hints of the own-view tools: nothing reaches anyone else (closed world),
// doing one twice leaves the same state, and taking something away is
// destructive.
var (
	ownViewHints = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: false}
	ownUndoHints = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: false}
)

// ownViewNote ends every own-view description.
const ownViewNote = " Only the person sees it, so they are not asked."

// maxAhead bounds how far ahead a reminder or a scheduled post may be set:
// Mattermost takes any time, but one years away is a typo.
const maxAhead = 366 * 24 * time.Hour

// OwnViewResult is the structured answer of the own-view tools: what is
// now so, and about what.
type OwnViewResult struct {
	// Done is what changed: draft_saved, draft_deleted, post_saved,
	// post_unsaved, thread_followed, thread_unfollowed, channel_read or
	// reminder_set.
	Done      string `json:"done"`
	ChannelID string `json:"channel_id,omitempty"`
	// PostID is the post saved or reminded of, or the thread's root post.
	PostID string `json:"post_id,omitempty"`
	// RootID is the thread of a draft reply.
	RootID string `json:"root_id,omitempty"`
	// At is when a reminder comes (RFC 3339, UTC).
	At string `json:"at,omitempty"`
}

type postRefArgs struct {
	PostID string `json:"post_id"`
}

type channelRefArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
}

// startOwnView is how every own-view tool begins: writes must be allowed
// now (the setting may have changed since the tools were listed).
func (d Deps) startOwnView(ctx context.Context) (*mattermost.Caller, *mattermost.OwnView, error) {
	if !d.Config().AllowWrites {
		return nil, nil, approval.WritesOff()
	}
	c, err := d.caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, c.OwnView(), nil
}

// ownViewErr words what Mattermost said no to for the model.
func ownViewErr(err error, what string) error {
	switch {
	case errors.Is(err, mattermost.ErrDraftsOff):
		return refusal.New("This Mattermost keeps no drafts (ServiceSettings.AllowSyncedDrafts is off): each Mattermost app keeps its own, out of reach of this tool, so nothing changed.",
			"Give the person the text to paste into their message box, or tell them an admin can turn synced drafts on.")
	case errors.Is(err, mattermost.ErrNotFound):
		return refusal.New(what+" was not found.", "Take ids from list_channels, read_channel or search_posts.")
	case errors.Is(err, mattermost.ErrTurnedOff):
		return refusal.New("This Mattermost has that feature turned off (synced drafts or collapsed reply threads): nothing changed.", "Tell the person; an admin can turn it on.")
	case errors.Is(err, mattermost.ErrNoSession):
		return refusal.New("This call came without a Mattermost session to act with, or Mattermost's Site URL is not set: nothing changed.", "Tell the person; an admin can set the Site URL.")
	}
	return err
}

// timeAhead reads exactly one of at and in_minutes into a time after now
// and within maxAhead. A time without a zone is in loc.
func timeAhead(given string, inMinutes int, now time.Time, loc *time.Location) (time.Time, error) {
	given = strings.TrimSpace(given)
	if (given == "") == (inMinutes == 0) {
		return time.Time{}, refusal.New("Give exactly one of at (a time) and in_minutes.", "")
	}
	at := now.Add(time.Duration(inMinutes) * time.Minute)
	if given != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, given); err != nil {
			if at, err = time.ParseInLocation("2006-01-02T15:04", given, loc); err != nil {
				return time.Time{}, refusal.Newf("at %q is not a time: give RFC 3339 (2024-05-01T09:00:00Z) or 2024-05-01T09:00 in the person's time zone (%s).", given, loc)
			}
		}
	}
	if !at.After(now) {
		return time.Time{}, refusal.Newf("%s has passed; the time must be in the future (now is %s UTC).", at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if at.Sub(now) > maxAhead {
		return time.Time{}, refusal.New("A time more than a year ahead is refused: check the date.", "")
	}
	return at, nil
}
