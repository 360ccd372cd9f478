package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// readOnly are the hints of every tool that only reads Mattermost.
var readOnly = catalogue.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false}

// Bounds of the channel tools.
const (
	// maxChannelsListed keeps list_channels under about 8k tokens.
	maxChannelsListed = 200
	// maxChannelsFound bounds search_channels; a search that finds more
	// should be narrowed.
	maxChannelsFound = 50
	// closestShown is how many near names a refusal offers.
	closestShown = 5
)

// TeamInfo is a team in structured answers.
type TeamInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
}

// ChannelInfo is a channel in structured answers.
type ChannelInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	// Type is public, private, direct or group.
	Type       string `json:"type"`
	TeamID     string `json:"team_id,omitempty"`
	TeamName   string `json:"team_name,omitempty"`
	Member     bool   `json:"member"`
	Unread     int64  `json:"unread"`
	UnreadRoot int64  `json:"unread_root"`
	Mentions   int64  `json:"mentions"`
	LastPostAt string `json:"last_post_at,omitempty"`
	Purpose    string `json:"purpose,omitempty"`
	Header     string `json:"header,omitempty"`
	// Archived is a channel read after it was archived, which only a server
	// that lets people view archived channels shows: read-only.
	Archived bool `json:"archived,omitempty"`
}

// listChannelViews writes up to max channels, a line each, into the text and
// the structured answer.
func listChannelViews(b *strings.Builder, out *ChannelList, views []place, max int) {
	for _, v := range views[:min(len(views), max)] {
		ci := v.info()
		out.Channels = append(out.Channels, ci)
		fmt.Fprintf(b, "- %s: %s\n", v.shown(), activity(ci))
	}
	out.Shown = len(out.Channels)
}

func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339) }

// ---- list_teams

type listTeamsArgs struct{}

// TeamList is list_teams' structured answer.
type TeamList struct {
	Teams []TeamInfo `json:"teams"`
}

func listTeams(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_teams",
		Title:       "List my Mattermost teams",
		Description: "Lists the teams you belong to; a team's name is what the team argument of other tools takes.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listTeams)
}

func (d Deps) listTeams(ctx context.Context, _ listTeamsArgs) (res catalogue.Result[TeamList], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	ms, err := c.Teams()
	if err != nil {
		return res, err
	}
	return listTeamsAnswer(ms), nil
}

// listTeamsAnswer writes list_teams' answer from the caller's teams.
func listTeamsAnswer(ms []mattermost.Membership) catalogue.Result[TeamList] {
	out := TeamList{Teams: []TeamInfo{}}
	var b strings.Builder
	if len(ms) == 0 {
		b.WriteString("You belong to no team. Direct and group messages are still listed by list_channels.")
	} else {
		fmt.Fprintf(&b, "Your teams (%d):\n", len(ms))
	}
	for _, m := range ms {
		out.Teams = append(out.Teams, TeamInfo{ID: m.Team.Id, Name: m.Team.Name, DisplayName: present.Name(m.Team.DisplayName)})
		fmt.Fprintf(&b, "- %s (name %q, id %s)\n", present.Name(m.Team.DisplayName), m.Team.Name, m.Team.Id)
	}
	return catalogue.Result[TeamList]{Text: strings.TrimRight(b.String(), "\n"), Data: out}
}

// scopedChannels is what the channel tools work on: the caller's teams, the
// team an argument names (nil for all) and the caller's channels in it.
type scopedChannels struct {
	teams []mattermost.Membership
	team  *model.Team
	mine  []mattermost.MyChannel
}

// channelScope resolves the caller, a team argument and the caller's
// channels in that team, or a refusal that says what to pass instead.
func (d Deps) channelScope(ctx context.Context, teamRef string) (*mattermost.Caller, scopedChannels, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return nil, scopedChannels{}, err
	}
	ms, team, err := teamScope(c, teamRef)
	if err != nil {
		return nil, scopedChannels{}, err
	}
	all, err := c.MyChannels()
	if err != nil {
		return nil, scopedChannels{}, err
	}
	sc := scopedChannels{teams: ms, team: team}
	for _, m := range all {
		if team == nil || m.Channel.TeamId == team.Id {
			sc.mine = append(sc.mine, m)
		}
	}
	return c, sc, nil
}

// teamScope is the caller's teams and the one a team argument names (nil
// for all), or a refusal that says what to pass instead.
func teamScope(c *mattermost.Caller, ref string) ([]mattermost.Membership, *model.Team, error) {
	ms, err := c.Teams()
	if err != nil {
		return nil, nil, err
	}
	team, err := pickTeam(ms, ref)
	if err != nil {
		return nil, nil, err
	}
	return ms, team, nil
}

// oneTeam is the team a call names, or the person's only team; with
// several and none named, the refusal lists them for tool's next call.
func oneTeam(c *mattermost.Caller, ref, tool string) (*model.Team, error) {
	ms, team, err := teamScope(c, ref)
	if err != nil || team != nil {
		return team, err
	}
	switch len(ms) {
	case 1:
		return ms[0].Team, nil
	case 0:
		return nil, refusal.New("The person belongs to no team.", "list_channels lists their direct and group messages.")
	}
	var list []string
	for _, m := range ms {
		list = append(list, fmt.Sprintf("%s (name %q)", present.Name(m.Team.DisplayName), m.Team.Name))
	}
	return nil, refusal.New(fmt.Sprintf("Give team: the person belongs to %d teams: %s.", len(list), strings.Join(list, ", ")),
		fmt.Sprintf("Call %s again with team set to one of these names.", tool))
}

// pickTeam resolves a team argument (id, name or display name) among the
// caller's teams. An empty argument is every team (nil).
func pickTeam(ms []mattermost.Membership, ref string) (*model.Team, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, nil
	}
	for _, m := range ms {
		if m.Team.Id == ref || names.Same(ref, m.Team.Name) || names.Same(ref, m.Team.DisplayName) {
			return m.Team, nil
		}
	}
	var list []string
	for _, m := range ms {
		list = append(list, fmt.Sprintf("%s (name %q)", present.Name(m.Team.DisplayName), m.Team.Name))
	}
	if len(list) == 0 {
		return nil, refusal.New(fmt.Sprintf("No team matches %q: you belong to no team.", present.Name(ref)), "Call again without team.")
	}
	return nil, refusal.New(fmt.Sprintf("No team matches %q. Your teams: %s.", present.Name(ref), strings.Join(list, ", ")),
		"Call again with one of these names, or without team; list_teams lists them.")
}

// ---- list_channels

type listChannelsArgs struct {
	Team string `json:"team,omitempty" jsonschema:"Only this team's channels; left out: all teams, DMs and groups."`
}

// ChannelList is list_channels' and search_channels' structured answer.
type ChannelList struct {
	Channels []ChannelInfo `json:"channels"`
	Total    int           `json:"total"`
	Shown    int           `json:"shown"`
}

func listChannels(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_channels",
		Title:       "List my Mattermost channels",
		Description: "Lists the channels you are in (all teams, DMs and groups) with unread and mention counts, unread first, then by latest post; at most 200.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listChannels)
}

func (d Deps) listChannels(ctx context.Context, args listChannelsArgs) (res catalogue.Result[ChannelList], err error) {
	_, sc, err := d.channelScope(ctx, args.Team)
	if err != nil {
		return res, err
	}
	var views []place
	for _, m := range sc.mine {
		views = append(views, placeOfMine(m))
	}
	sort.SliceStable(views, func(i, j int) bool {
		ui, uj := views[i].info().Unread > 0, views[j].info().Unread > 0
		if ui != uj {
			return ui
		}
		return views[i].ch.LastPostAt > views[j].ch.LastPostAt
	})
	return listChannelsAnswer(views, sc.team), nil
}

// listChannelsAnswer writes list_channels' answer from the caller's
// channels, in the order listed, in team (nil: every team).
func listChannelsAnswer(views []place, team *model.Team) catalogue.Result[ChannelList] {
	out := ChannelList{Channels: []ChannelInfo{}, Total: len(views)}
	var b strings.Builder
	where := "in all your teams, with direct and group messages"
	if team != nil {
		where = fmt.Sprintf("in team %s (%s); direct and group messages are listed when no team is given", present.Name(team.DisplayName), team.Name)
	}
	fmt.Fprintf(&b, "You are a member of %d channels %s. Unread first, then by latest post.\n", len(views), where)
	listChannelViews(&b, &out, views, maxChannelsListed)
	if out.Total > out.Shown {
		fmt.Fprintf(&b, "%d more channels are not listed (the list stops at %d). Give team to narrow it, or call search_channels with part of a name.\n",
			out.Total-out.Shown, maxChannelsListed)
	}
	return catalogue.Result[ChannelList]{Text: strings.TrimRight(b.String(), "\n"), Data: out}
}

func activity(ci ChannelInfo) string {
	var parts []string
	if !ci.Member {
		parts = append(parts, "you are not a member")
	} else if ci.Unread > 0 {
		parts = append(parts, fmt.Sprintf("%d unread (%d thread roots)", ci.Unread, ci.UnreadRoot))
	} else {
		parts = append(parts, "no unread")
	}
	if ci.Mentions > 0 {
		parts = append(parts, present.Count(int(ci.Mentions), "mention", "mentions"))
	}
	if ci.LastPostAt != "" {
		parts = append(parts, "last post "+ci.LastPostAt)
	} else {
		parts = append(parts, "no posts")
	}
	return strings.Join(parts, ", ")
}

// ---- get_channel

type getChannelArgs struct {
	Channel string `json:"channel" jsonschema:"Id, ~name, name, display name, DM @username, channel or post link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
}

func getChannel(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "get_channel",
		Title:       "Find a Mattermost channel",
		Description: "Finds one channel you can read by what a person calls it (case, spaces, dashes aside) and describes it; lists candidates when several or none match.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.getChannel)
}

func (d Deps) getChannel(ctx context.Context, args getChannelArgs) (res catalogue.Result[ChannelInfo], err error) {
	_, view, err := d.channelOf(ctx, args.Channel, args.Team)
	if err != nil {
		return res, err
	}
	return getChannelAnswer(view), nil
}

// getChannelAnswer describes the channel get_channel found.
func getChannelAnswer(view place) catalogue.Result[ChannelInfo] {
	ci := view.info()
	var purposeHid, headerHid hidden.Found
	ci.Purpose, purposeHid = present.Text(cut(view.ch.Purpose, 500))
	ci.Header, headerHid = present.Text(cut(view.ch.Header, 500))
	var b strings.Builder
	fmt.Fprintf(&b, "Channel %s: %s.\n", view.shown(), activity(ci))
	if ci.Purpose != "" {
		fmt.Fprintf(&b, "Purpose: %s\n", present.Name(ci.Purpose))
	}
	if note := purposeHid.Note("Its purpose"); note != "" {
		fmt.Fprintf(&b, "[%s]\n", note)
	}
	if ci.Header != "" {
		fmt.Fprintf(&b, "Header: %s\n", present.Name(ci.Header))
	}
	if note := headerHid.Note("Its header"); note != "" {
		fmt.Fprintf(&b, "[%s]\n", note)
	}
	if ci.Archived {
		b.WriteString("It is archived: read-only, shown because this server lets people view archived channels (TeamSettings.ExperimentalViewArchivedChannels).\n")
	}
	fmt.Fprintf(&b, "Read it with read_channel(channel=%q).", ci.ID)
	return catalogue.Result[ChannelInfo]{Text: b.String(), Data: ci}
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if s, was := present.Cut(s, n); was {
		return s + "…"
	}
	return s
}

// ---- search_channels

type searchChannelsArgs struct {
	Term string `json:"term" jsonschema:"Part of the channel's name or display name."`
	Team string `json:"team,omitempty" jsonschema:"Only this team; left out: all your teams."`
}

func searchChannels(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "search_channels",
		Title:       "Search Mattermost channels",
		Description: "Finds channels by part of their name: your teams' public channels, joined or not, and your private channels, DMs and groups; up to 50.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.searchChannels)
}

func (d Deps) searchChannels(ctx context.Context, args searchChannelsArgs) (res catalogue.Result[ChannelList], err error) {
	term := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(args.Term), "~"))
	if term == "" {
		return res, refusal.New("Give term: part of a channel's name. Call list_channels to see all your channels.", "")
	}
	c, sc, err := d.channelScope(ctx, args.Team)
	if err != nil {
		return res, err
	}
	ms, team := sc.teams, sc.team
	seen := map[string]bool{}
	var views []place
	fq := names.Fold(term)
	for _, m := range sc.mine {
		v := placeOfMine(m)
		if strings.Contains(names.Fold(m.Channel.Name), fq) || strings.Contains(names.Fold(v.name()), fq) {
			seen[m.Channel.Id] = true
			views = append(views, v)
		}
	}
	teams := map[string]*model.Team{}
	for _, m := range ms {
		teams[m.Team.Id] = m.Team
		if team != nil && m.Team.Id != team.Id {
			continue
		}
		public, err := c.SearchPublicChannels(m.Team.Id, term)
		if err != nil && !errors.Is(err, mattermost.ErrNotFound) {
			return res, err
		}
		for _, ch := range public {
			if !seen[ch.Id] {
				seen[ch.Id] = true
				views = append(views, place{ch: ch, team: teams[ch.TeamId]})
			}
		}
	}
	return searchChannelsAnswer(term, views), nil
}

// searchChannelsAnswer writes search_channels' answer from the channels
// matching term: the caller's first, then public ones.
func searchChannelsAnswer(term string, views []place) catalogue.Result[ChannelList] {
	out := ChannelList{Channels: []ChannelInfo{}, Total: len(views)}
	var b strings.Builder
	if len(views) == 0 {
		fmt.Fprintf(&b, "No channel you can read matches %q. Try a shorter part of the name, or call list_channels to see all your channels.", present.Name(term))
		return catalogue.Result[ChannelList]{Text: b.String(), Data: out}
	}
	fmt.Fprintf(&b, "%d channels match %q:\n", len(views), present.Name(term))
	listChannelViews(&b, &out, views, maxChannelsFound)
	if out.Total > out.Shown {
		fmt.Fprintf(&b, "%d more are not shown; use a longer term or give team.\n", out.Total-out.Shown)
	}
	b.WriteString("Read one with read_channel(channel=<id>).")
	return catalogue.Result[ChannelList]{Text: b.String(), Data: out}
}
