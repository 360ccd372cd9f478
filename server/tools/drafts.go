package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Bounds of list_drafts.
const (
	defaultDrafts = 20
	maxDraftsPage = 100
)

type listDraftsArgs struct {
	Team   string `json:"team,omitempty" jsonschema:"Only this team's channels, DMs and groups; left out: all."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Drafts per page, 1-100; default 20."`
	Cursor string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.listDrafts)
}

func (d Deps) listDrafts(ctx context.Context, args listDraftsArgs) (res catalogue.Result[DraftList], err error) {
	limit, err := limitOf(args.Limit, defaultDrafts, maxDraftsPage)
	if err != nil {
		return res, err
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, offset, err := openOffset("list_drafts", args, keyArgs, args.Cursor)
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
	out := DraftList{Drafts: []DraftInfo{}, Synced: c.DraftsSynced()}
	if !out.Synced {
		out.Complete = true
		return answer("This server keeps no drafts (ServiceSettings.AllowSyncedDrafts is off): each Mattermost app keeps its own, out of reach of this tool.", out)
	}
	teamID, where := "", "in all your teams and direct and group messages"
	if team != nil {
		teamID, where = team.Id, fmt.Sprintf("in team %s (%s) and direct and group messages", present.Name(team.DisplayName), team.Name)
	}
	drafts, cut, err := c.Drafts(teamID)
	if err != nil {
		return res, err
	}
	out.Total = len(drafts)
	end := min(offset+limit, len(drafts))
	var b strings.Builder
	if len(drafts) == 0 {
		fmt.Fprintf(&b, "You have no drafts %s.", where)
	} else {
		fmt.Fprintf(&b, "Your drafts %s: %d, newest change first. Showing %d to %d.\n", where, len(drafts), min(offset+1, end), end)
	}
	for _, dr := range drafts[min(offset, end):end] {
		place, _ := placeIn(c, dr.Channel)
		info := DraftInfo{ChannelID: dr.Channel.Id, ChannelName: place, RootID: dr.RootID, Message: dr.Message,
			Files: []present.FileRef{}, UpdatedAt: rfc3339(dr.UpdateAt)}
		if r := []rune(info.Message); len(r) > maxMessageRunes {
			info.Message, info.MessageCut = string(r[:maxMessageRunes]), true
		}
		// A draft may hold text pasted from elsewhere: what it hides is shown.
		var found hidden.Found
		info.Message, found = present.Text(info.Message)
		note := found.Note("This draft")
		for _, f := range dr.Files {
			info.Files = append(info.Files, present.RefOf(f))
		}
		out.Drafts = append(out.Drafts, info)
		fmt.Fprintf(&b, "\n[%s] draft in %s (channel %s", info.UpdatedAt, place, info.ChannelID)
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
		for _, f := range info.Files {
			b.WriteString("  " + present.FileLine(f) + "\n")
		}
	}
	b.WriteString("\n")
	if end < len(drafts) {
		if out.NextCursor, err = pc.next(strconv.Itoa(end)); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "More drafts: %s", pc.nextCall(out.NextCursor))
	} else {
		out.Complete = true
		b.WriteString("These are all your drafts.")
		if cut {
			b.WriteString(" Only the newest 1000 were read; give team to see others.")
		}
	}
	return answer(strings.TrimSpace(b.String()), out)
}
