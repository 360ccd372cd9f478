package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Bounds of list_drafts.
const (
	defaultDrafts = 20
	maxDraftsPage = 100
)

type listDraftsArgs struct {
	Team  string `json:"team,omitempty" jsonschema:"Only this team's channels, DMs and groups; left out: all."`
	Limit int    `json:"limit,omitempty" jsonschema:"Drafts per page, 1-100; default 20."`
	paged
}

// DraftInfo is an unsent message in structured answers.
type DraftInfo struct {
	ChannelID   string            `json:"channel_id"`
	ChannelName string            `json:"channel_name"`
	RootID      string            `json:"root_id,omitempty"`
	Message     string            `json:"message"`
	MessageCut  bool              `json:"message_cut,omitempty"`
	Files       []present.FileRef `json:"files"`
	UpdatedAt   string            `json:"updated_at"`
}

// DraftList is list_drafts' structured answer.
type DraftList struct {
	Drafts []DraftInfo `json:"drafts"`
	// Synced is false when the server keeps no drafts (each app keeps its own).
	Synced     bool   `json:"synced"`
	Total      int    `json:"total"`
	NextCursor string `json:"next_cursor,omitempty"`
	Complete   bool   `json:"complete"`
}

func listDrafts(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_drafts",
		Title:       "List my drafts",
		Description: "Lists your unsent drafts, newest change first, paged; their files carry the file_id read_file takes.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetOwnView,
	}, d.listDrafts)
}

func (d Deps) listDrafts(ctx context.Context, args listDraftsArgs) (res catalogue.Result[DraftList], err error) {
	limit, err := limitOf(args.Limit, defaultDrafts, maxDraftsPage)
	if err != nil {
		return res, err
	}
	pc, offset, err := openPageOffset("list_drafts", args)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	_, team, err := teamScope(c, args.Team)
	if err != nil {
		return res, err
	}
	f := draftsFetched{pc: pc, synced: c.DraftsSynced()}
	if !f.synced {
		return draftsAnswer(f)
	}
	teamID := ""
	f.where = "in all your teams and direct and group messages"
	if team != nil {
		teamID, f.where = team.Id, fmt.Sprintf("in team %s (%s) and direct and group messages", present.Name(team.DisplayName), team.Name)
	}
	drafts, cut, err := c.Drafts(teamID)
	if err != nil {
		return res, err
	}
	f.total, f.cut, f.offset = len(drafts), cut, offset
	f.end = min(offset+limit, len(drafts))
	for _, dr := range drafts[min(offset, f.end):f.end] {
		f.page = append(f.page, placedDraft{Draft: dr, in: placeOf(c, dr.Channel).words(c)})
	}
	return draftsAnswer(f)
}

// placedDraft is a draft with its channel in the person's words.
type placedDraft struct {
	mattermost.Draft
	in string
}

// draftsFetched is what list_drafts read: whether the server keeps drafts,
// the scope in words, how many drafts there are, where this page starts and
// ends among them, its drafts, and whether the list was cut at the newest
// 1000.
type draftsFetched struct {
	pc          pageCursor
	synced      bool
	where       string
	total       int
	offset, end int
	page        []placedDraft
	cut         bool
}

// draftsAnswer writes list_drafts' answer from what was read.
func draftsAnswer(f draftsFetched) (res catalogue.Result[DraftList], err error) {
	out := DraftList{Drafts: []DraftInfo{}, Synced: f.synced}
	if !out.Synced {
		out.Complete = true
		return answer("This server keeps no drafts (ServiceSettings.AllowSyncedDrafts is off): each Mattermost app keeps its own, out of reach of this tool.", out)
	}
	out.Total = f.total
	var b strings.Builder
	if f.total == 0 {
		fmt.Fprintf(&b, "You have no drafts %s.", f.where)
	} else {
		fmt.Fprintf(&b, "Your drafts %s: %d, newest change first. Showing %d to %d.\n", f.where, f.total, min(f.offset+1, f.end), f.end)
	}
	for _, dr := range f.page {
		info := DraftInfo{ChannelID: dr.Channel.Id, ChannelName: dr.in, RootID: dr.RootID, Message: dr.Message,
			Files: []present.FileRef{}, UpdatedAt: rfc3339(dr.UpdateAt)}
		if r := []rune(info.Message); len(r) > maxMessageRunes {
			info.Message, info.MessageCut = string(r[:maxMessageRunes]), true
		}
		// A draft may hold text pasted from elsewhere: what it hides is shown.
		var found hidden.Found
		info.Message, found = present.Text(info.Message)
		note := found.Note("This draft")
		for _, file := range dr.Files {
			info.Files = append(info.Files, present.RefOf(file))
		}
		out.Drafts = append(out.Drafts, info)
		fmt.Fprintf(&b, "\n[%s] draft in %s (channel %s", info.UpdatedAt, dr.in, info.ChannelID)
		if info.RootID != "" {
			fmt.Fprintf(&b, ", reply in thread %s: read_thread(post=%q)", info.RootID, info.RootID)
		}
		b.WriteString("):\n")
		for _, line := range strings.Split(info.Message, "\n") {
			b.WriteString("  " + line + "\n")
		}
		if note != "" {
			fmt.Fprintf(&b, "  [%s]\n", note)
		}
		if info.MessageCut {
			fmt.Fprintf(&b, "  [message cut at %d characters]\n", maxMessageRunes)
		}
		for _, file := range info.Files {
			b.WriteString("  " + present.FileLine(file) + "\n")
		}
	}
	b.WriteString("\n")
	if f.end < f.total {
		if out.NextCursor, err = f.pc.next(strconv.Itoa(f.end)); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "More drafts: %s", f.pc.nextCall(out.NextCursor))
	} else {
		out.Complete = true
		b.WriteString("These are all your drafts.")
		if f.cut {
			b.WriteString(" Only the newest 1000 were read; give team to see others.")
		}
	}
	var files []present.FileRef
	for _, dr := range out.Drafts {
		files = append(files, dr.Files...)
	}
	return answerLinked(strings.TrimSpace(b.String()), out, fileLinks(files))
}

// ---- schedule_post: Mattermost's own scheduled posts, only where the
// server's licence and settings allow them (config.ScheduledPosts).

type schedulePostArgs struct {
	Channel   string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team      string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Message   string `json:"message" jsonschema:"The message, in Mattermost markdown."`
	RootID    string `json:"root_id,omitempty" jsonschema:"A post id to reply to, in its thread."`
	At        string `json:"at,omitempty" jsonschema:"RFC 3339, or 2024-05-01T09:00 in the person's time zone."`
	InMinutes int    `json:"in_minutes,omitempty" jsonschema:"Or: this many minutes from now."`
}

func schedulePost(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name: "schedule_post", Title: "Schedule a post", Hints: postHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetPosting, Needs: config.ScheduledPosts,
		Description: "Has Mattermost send a post as the person later, in a channel or thread; until then they can change or delete it." + confirmationNote,
	}, d.schedulePost)
}

func (d Deps) schedulePost(ctx context.Context, a schedulePostArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	if strings.TrimSpace(a.Message) == "" {
		return res, refusal.New("Give message: the text to send.", "")
	}
	loc := c.Location()
	at, err := timeAhead(a.At, a.InMinutes, time.Now(), loc)
	if err != nil {
		return res, err
	}
	view, err := resolveChannel(c, a.Channel, a.Team)
	if err != nil {
		return res, err
	}
	dest := view.destination(c)
	dest.RootID = strings.TrimSpace(a.RootID)
	plan, err := d.stagePost(ctx, c, dest, a.Message, nil, nil)
	if err != nil {
		return res, err
	}
	return d.write(ctx, c, approval.SchedulePost.Plan(plan, approval.SendTime{SendAt: at.UTC(), SendZone: loc.String()}))
}

type draftArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	RootID  string `json:"root_id,omitempty" jsonschema:"A thread's post id there, for its reply box."`
	Message string `json:"message,omitempty" jsonschema:"The draft, in Mattermost markdown."`
}

// draftTools are save_draft and delete_draft: the person's own message box.
func draftTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "save_draft", Title: "Leave a draft in the message box", Hints: ownViewHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Puts a draft in the person's message box of a channel (or thread: root_id), replacing any; they send it themselves." + ownViewNote,
		}, d.saveDraft),
		catalogue.Define(catalogue.Tool{
			Name: "delete_draft", Title: "Clear a draft", Hints: ownUndoHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
			Description: "Removes the person's draft from a channel's message box (or a thread's: root_id); no draft there is fine." + ownViewNote,
		}, d.deleteDraft),
	}
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
	return answer(draftSavedAnswer(view, draft))
}

// draftSavedAnswer tells where the draft Mattermost kept now waits.
func draftSavedAnswer(view place, draft *model.Draft) (string, OwnViewResult) {
	where := view.shown()
	if draft.RootId != "" {
		where = "the thread " + draft.RootId + " in " + where
	}
	return fmt.Sprintf("Saved a draft in the person's message box of %s. It is not sent: they send it themselves from Mattermost (it is also under Drafts).", where),
		OwnViewResult{Done: "draft_saved", ChannelID: draft.ChannelId, RootID: draft.RootId}
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
	return answer(draftDeletedAnswer(view, root))
}

// draftDeletedAnswer tells which message box (of the channel, or of the
// thread root in it) is empty now.
func draftDeletedAnswer(view place, root string) (string, OwnViewResult) {
	where := view.shown()
	if root != "" {
		where = "the thread " + root + " in " + where
	}
	return "The person's message box of " + where + " holds no draft now.", OwnViewResult{Done: "draft_deleted", ChannelID: view.ch.Id, RootID: root}
}
