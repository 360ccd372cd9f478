package tools

import (
	"context"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

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
		Name: "schedule_post", Title: "Schedule a post", Hints: postHints, Effect: catalogue.ChangesMattermost, Needs: config.ScheduledPosts,
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
	dest := posting.Destination{ChannelID: view.ch.Id, RootID: strings.TrimSpace(a.RootID), Label: view.label(), Place: view.place(c), Where: view.where(c)}
	plan, err := d.stagePost(ctx, c, dest, a.Message, nil)
	if err != nil {
		return res, err
	}
	plan.Action, plan.SendAt, plan.SendZone = posting.ActionSchedule, at.UTC(), loc.String()
	return d.write(ctx, c, plan)
}
