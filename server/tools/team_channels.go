package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Bounds of list_team_channels: a channel a line, 50 is about 2.5k tokens.
const (
	defaultTeamChannels = 50
	maxTeamChannels     = 200
)

type listTeamChannelsArgs struct {
	Team  string `json:"team,omitempty" jsonschema:"Team name or id; may be left out if you are in one team."`
	Limit int    `json:"limit,omitempty" jsonschema:"Channels per page, 1-200; default 50."`
	paged
}

// TeamChannelList is list_team_channels' structured answer.
type TeamChannelList struct {
	Team TeamInfo `json:"team"`
	// Channels are public channels, joined or not.
	Channels []ChannelInfo `json:"channels"`
	// Archived are archived channels you can read (none while the server
	// hides archived channels).
	Archived         []ChannelInfo `json:"archived"`
	ArchivedViewable bool          `json:"archived_viewable"`
	NextCursor       string        `json:"next_cursor,omitempty"`
	Complete         bool          `json:"complete"`
}

func listTeamChannels(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_team_channels",
		Title:       "Browse a team's channels",
		Description: "Lists a team's public channels, joined or not, then the archived channels you can read, paged. Read one with read_channel.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listTeamChannels)
}

func (d Deps) listTeamChannels(ctx context.Context, args listTeamChannelsArgs) (res catalogue.Result[TeamChannelList], err error) {
	limit, err := limitOf(args.Limit, defaultTeamChannels, maxTeamChannels)
	if err != nil {
		return res, err
	}
	pc, at, err := openPage("list_team_channels", args)
	if err != nil {
		return res, err
	}
	// at is "o<page>" inside the public channels, "a<offset>" inside the
	// archived ones that follow them.
	phase, pos := "o", 0
	if at != "" {
		if at[0] != 'o' && at[0] != 'a' {
			return res, pc.refuse(paging.ErrMalformed)
		}
		n, err := paging.Offset(at[1:])
		if err != nil {
			return res, pc.refuse(err)
		}
		phase, pos = at[:1], n
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	team, err := oneTeam(c, args.Team, "list_team_channels")
	if err != nil {
		return res, err
	}
	mine, err := c.MyTeamChannels(team.Id)
	if err != nil {
		return res, err
	}
	joined := map[string]mattermost.MyChannel{}
	for _, m := range mine {
		joined[m.Channel.Id] = m
	}
	found := teamChannels{cursor: pc, team: team, publicFrom: pos * limit, archivedViewable: c.ViewArchivedChannels()}
	room := limit
	if phase == "o" {
		public, err := c.TeamPublicChannels(team.Id, pos, limit)
		if err != nil {
			return res, err
		}
		for _, ch := range public {
			v := place{ch: ch, team: team}
			if m, ok := joined[ch.Id]; ok {
				v = placeOfMine(m)
			}
			found.public = append(found.public, v)
		}
		room -= len(public)
		if len(public) == limit {
			found.next = "o" + strconv.Itoa(pos+1)
		} else {
			phase, pos = "a", 0
		}
	}
	if phase == "a" && found.next == "" {
		archived, err := c.TeamArchivedChannels(team.Id)
		if err != nil {
			return res, err
		}
		end := min(pos+room, len(archived))
		for _, ch := range archived[min(pos, end):end] {
			found.archived = append(found.archived, place{ch: ch, team: team})
		}
		if end < len(archived) {
			found.next = "a" + strconv.Itoa(end)
		}
	}
	return listTeamChannelsAnswer(found)
}

// teamChannels is what list_team_channels fetched: one page of a team's
// public channels (the caller's membership where they are in one), then
// of the archived ones the caller can read.
type teamChannels struct {
	cursor pageCursor
	team   *model.Team
	// publicFrom is the position of the first public channel shown.
	publicFrom       int
	public, archived []place
	// next is the cursor position after the page, "" at the end.
	next             string
	archivedViewable bool
}

// listTeamChannelsAnswer writes list_team_channels' answer.
func listTeamChannelsAnswer(f teamChannels) (res catalogue.Result[TeamChannelList], err error) {
	pc, team := f.cursor, f.team
	out := TeamChannelList{Team: TeamInfo{ID: team.Id, Name: team.Name, DisplayName: present.Name(team.DisplayName)},
		Channels: []ChannelInfo{}, Archived: []ChannelInfo{}, ArchivedViewable: f.archivedViewable}
	var b strings.Builder
	fmt.Fprintf(&b, "Channels of team %s (%s):\n", present.Name(team.DisplayName), team.Name)
	if len(f.public) > 0 {
		fmt.Fprintf(&b, "Public channels, by display name (%d to %d):\n", f.publicFrom+1, f.publicFrom+len(f.public))
	}
	for _, v := range f.public {
		out.Channels = append(out.Channels, teamChannelLine(&b, v, false))
	}
	if len(f.archived) > 0 {
		b.WriteString("Archived channels you can read (read-only):\n")
		for _, v := range f.archived {
			out.Archived = append(out.Archived, teamChannelLine(&b, v, true))
		}
	}
	if len(out.Channels)+len(out.Archived) == 0 {
		b.WriteString("No channels past the previous page.\n")
	}
	if f.next != "" {
		if out.NextCursor, err = pc.next(f.next); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "More channels: %s", pc.nextCall(out.NextCursor))
	} else {
		out.Complete = true
		b.WriteString("These are all the channels you can browse in this team.")
		if !out.ArchivedViewable {
			b.WriteString(" Archived channels are hidden on this server (TeamSettings.ExperimentalViewArchivedChannels is off).")
		}
		b.WriteString(" Your private channels are listed by list_channels.")
	}
	return answer(b.String(), out)
}

// teamChannelLine writes a channel of a team listing and returns it.
func teamChannelLine(b *strings.Builder, v place, archived bool) ChannelInfo {
	ci := v.info()
	if archived {
		ci.Member = true
	}
	ci.Purpose, _ = present.Text(cut(v.ch.Purpose, 200))
	state := "you can join it"
	switch {
	case archived:
		state = "archived"
	case ci.Member:
		state = "you are a member"
	}
	fmt.Fprintf(b, "- %s: %s", v.shown(), state)
	if ci.Purpose != "" {
		fmt.Fprintf(b, "; purpose: %s", present.Name(ci.Purpose))
	}
	b.WriteString("\n")
	return ci
}
