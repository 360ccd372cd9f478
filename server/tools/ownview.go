package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

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

type draftArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	RootID  string `json:"root_id,omitempty" jsonschema:"A thread's post id there, for its reply box."`
	Message string `json:"message,omitempty" jsonschema:"The draft, in Mattermost markdown."`
}

type postRefArgs struct {
	PostID string `json:"post_id"`
}

type channelRefArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
}

type reminderArgs struct {
	PostID    string `json:"post_id"`
	At        string `json:"at,omitempty" jsonschema:"RFC 3339, or 2024-05-01T09:00 in the person's time zone."`
	InMinutes int    `json:"in_minutes,omitempty" jsonschema:"Or: this many minutes from now."`
}

func ownViewTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "save_draft", Title: "Leave a draft in the message box", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Puts a draft in the person's message box of a channel (or thread: root_id), replacing any; they send it themselves." + ownViewNote,
		}, d.saveDraft),
		catalogue.Define(catalogue.Tool{
			Name: "delete_draft", Title: "Clear a draft", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView,
			Description: "Removes the person's draft from a channel's message box (or a thread's: root_id); no draft there is fine." + ownViewNote,
		}, d.deleteDraft),
		catalogue.Define(catalogue.Tool{
			Name: "save_post", Title: "Save a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Adds a post the person can read to their Saved messages in Mattermost." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, true)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unsave_post", Title: "Unsave a post", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView,
			Description: "Takes a post out of the person's Saved messages in Mattermost; a post not saved is fine." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.savePost(ctx, a, false)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "follow_thread", Title: "Follow a thread", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Makes the person follow the thread of a post they can read: its replies show in their Threads view and notify them." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.followThread(ctx, a, true)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unfollow_thread", Title: "Stop following a thread", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView,
			Description: "Makes the person stop following the thread of a post: its replies leave their Threads view." + ownViewNote,
		}, func(ctx context.Context, a postRefArgs) (catalogue.Result[OwnViewResult], error) {
			return d.followThread(ctx, a, false)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "mark_channel_read", Title: "Mark a channel read", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Marks a channel as read by the person now. Only when they ask: reading it here leaves it unread." + ownViewNote,
		}, d.markChannelRead),
		catalogue.Define(catalogue.Tool{
			Name: "set_post_reminder", Title: "Remind me of a post", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Has Mattermost's bot remind the person of a post they can read at a time; a new reminder replaces the old one." + ownViewNote,
		}, d.setPostReminder),
	}
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

func (d Deps) saveDraft(ctx context.Context, a draftArgs) (res catalogue.Result[OwnViewResult], err error) {
	c, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	if strings.TrimSpace(a.Message) == "" {
		return res, refusal.New("Give message: the draft's text.", "To clear a draft, call delete_draft.")
	}
	if n := len([]rune(a.Message)); n > postMaxRunes() {
		return res, refusal.Newf("The message is %d characters; Mattermost takes at most %d. Shorten it.", n, postMaxRunes())
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	draft, err := v.SaveDraft(ctx, view.ch.Id, strings.TrimSpace(a.RootID), a.Message)
	if errors.Is(err, mattermost.ErrCannotPost) {
		return res, refusal.New("The person cannot post in "+view.shown()+", so a draft there could not be sent.", "Call list_channels to see the channels they can post in.")
	}
	if err != nil {
		return res, ownViewErr(err, "The thread "+a.RootID+" in "+view.shown())
	}
	where := view.shown()
	if draft.RootId != "" {
		where = "the thread " + draft.RootId + " in " + where
	}
	return answer(fmt.Sprintf("Saved a draft in the person's message box of %s. It is not sent: they send it themselves from Mattermost (it is also under Drafts).", where),
		OwnViewResult{Done: "draft_saved", ChannelID: draft.ChannelId, RootID: draft.RootId})
}

func (d Deps) deleteDraft(ctx context.Context, a draftArgs) (res catalogue.Result[OwnViewResult], err error) {
	c, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	root, err := v.DeleteDraft(ctx, view.ch.Id, strings.TrimSpace(a.RootID))
	if err != nil {
		return res, ownViewErr(err, "The thread "+a.RootID+" in "+view.shown())
	}
	where := view.shown()
	if root != "" {
		where = "the thread " + root + " in " + where
	}
	return answer("The person's message box of "+where+" holds no draft now.", OwnViewResult{Done: "draft_deleted", ChannelID: view.ch.Id, RootID: root})
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
	if save {
		return answer(fmt.Sprintf("Post %s is in the person's Saved messages.", p.Id),
			OwnViewResult{Done: "post_saved", ChannelID: p.ChannelId, PostID: p.Id})
	}
	return answer(fmt.Sprintf("Post %s is not in the person's Saved messages.", p.Id), OwnViewResult{Done: "post_unsaved", ChannelID: p.ChannelId, PostID: p.Id})
}

func (d Deps) followThread(ctx context.Context, a postRefArgs, follow bool) (res catalogue.Result[OwnViewResult], err error) {
	_, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	root, err := v.FollowThread(ctx, strings.TrimSpace(a.PostID), follow)
	if err != nil {
		return res, ownViewErr(err, fmt.Sprintf("Post %q", a.PostID))
	}
	if follow {
		return answer(fmt.Sprintf("The person follows the thread of post %s: its replies show in their Threads view.", root.Id),
			OwnViewResult{Done: "thread_followed", ChannelID: root.ChannelId, PostID: root.Id})
	}
	return answer(fmt.Sprintf("The person no longer follows the thread of post %s.", root.Id),
		OwnViewResult{Done: "thread_unfollowed", ChannelID: root.ChannelId, PostID: root.Id})
}

func (d Deps) markChannelRead(ctx context.Context, a channelRefArgs) (res catalogue.Result[OwnViewResult], err error) {
	c, v, err := d.startOwnView(ctx)
	if err != nil {
		return res, err
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	if _, err := v.MarkChannelRead(ctx, view.ch.Id); errors.Is(err, mattermost.ErrNotMember) {
		return res, refusal.New("The person is not a member of "+view.shown()+", so it has no unread mark of theirs.", "")
	} else if err != nil {
		return res, ownViewErr(err, view.shown())
	}
	return answer("Marked "+view.shown()+" read for the person, as of now.", OwnViewResult{Done: "channel_read", ChannelID: view.ch.Id})
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
	return answer(fmt.Sprintf("Mattermost will remind the person of post %s at %s (their time, %s): its system bot messages them then.",
		p.Id, present.Name(at.In(loc).Format("Mon 2 Jan 2006 15:04")), loc),
		OwnViewResult{Done: "reminder_set", ChannelID: p.ChannelId, PostID: p.Id, At: at.UTC().Format(time.RFC3339)})
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
