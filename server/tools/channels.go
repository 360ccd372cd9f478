package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
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

// A place is a channel or a conversation (a direct or group message) with
// what naming it needs, and the one way every reader names it: label for
// the person's question (with ids), shown for the model, words and where
// for a confirmation's heading and details (no ids), name as a person says
// it, brief in a file's answer, destination for a write's plan.
type place struct {
	ch     *model.Channel
	team   *model.Team
	member *model.ChannelMember
	other  *model.User
}

// placeOfMine is one of the caller's channels as a place.
func placeOfMine(m mattermost.MyChannel) place {
	return place{ch: m.Channel, team: m.Team, member: m.Member, other: m.Other}
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

func channelType(t model.ChannelType) string {
	switch t {
	case model.ChannelTypeOpen:
		return "public"
	case model.ChannelTypePrivate:
		return "private"
	case model.ChannelTypeDirect:
		return "direct"
	case model.ChannelTypeGroup:
		return "group"
	}
	return string(t)
}

// displayName is how a person would name the channel: a direct message is
// the other person's @username.
func (v place) name() string {
	if v.ch.Type == model.ChannelTypeDirect {
		if v.other != nil {
			return "@" + v.other.Username
		}
		return "direct message"
	}
	return v.ch.DisplayName
}

func (v place) teamName() string {
	if v.team == nil {
		return ""
	}
	return v.team.Name
}

func (v place) info() ChannelInfo {
	ci := ChannelInfo{
		ID: v.ch.Id, Name: v.ch.Name, DisplayName: present.Name(v.name()), Type: channelType(v.ch.Type),
		Member: v.member != nil, Archived: v.ch.DeleteAt != 0,
	}
	if v.team != nil {
		ci.TeamID, ci.TeamName = v.team.Id, v.team.Name
	}
	if v.member != nil {
		mc := mattermost.MyChannel{Channel: v.ch, Member: v.member}
		ci.Unread, ci.UnreadRoot, ci.Mentions = mc.Unread(), mc.UnreadRoot(), v.member.MentionCount
	}
	if v.ch.LastPostAt > 0 {
		ci.LastPostAt = rfc3339(v.ch.LastPostAt)
	}
	return ci
}

// label is a channel in one line of text for the person's question (the
// write flow): names cleaned of controls, hidden text not decoded into it,
// where it could turn into markup.
func (v place) label() string { return v.labelWith(present.Clean) }

// shown is a channel in one line of text for the model: the characters
// Mattermost does not display in its names are made visible.
func (v place) shown() string { return v.labelWith(present.Name) }

func (v place) labelWith(name func(string) string) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return fmt.Sprintf("direct message with %s (id %s)", name(v.name()), v.ch.Id)
	case model.ChannelTypeGroup:
		return fmt.Sprintf("group message %q (id %s)", name(v.ch.DisplayName), v.ch.Id)
	}
	team := ""
	if v.team != nil {
		team = ", team " + name(v.team.DisplayName) + " (" + v.team.Name + ")"
	}
	return fmt.Sprintf("~%s %q (%s%s, id %s)", v.ch.Name, name(v.ch.DisplayName), channelType(v.ch.Type), team, v.ch.Id)
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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

type createChannelArgs struct {
	Team        string   `json:"team,omitempty" jsonschema:"Team name or id; may be left out if the person is in one team."`
	DisplayName string   `json:"display_name" jsonschema:"The channel's name as people see it: one line, at most 64 characters."`
	Name        string   `json:"name,omitempty" jsonschema:"The ~name in its link (a-z, 0-9, - and _); made from display_name if left out."`
	Private     bool     `json:"private,omitempty" jsonschema:"true for a private channel; public when left out."`
	Purpose     string   `json:"purpose,omitempty" jsonschema:"What the channel is for, at most 250 characters."`
	Header      string   `json:"header,omitempty" jsonschema:"The header shown at its top, at most 1024 characters."`
	Members     []string `json:"members,omitempty" jsonschema:"Up to 20 people of the team: @usernames or user ids."`
}

var (
	joinHints   = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	leaveHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
	createHints = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
)

// channelWriteTools are join_channel, leave_channel and create_channel:
// memberships and channels others see.
func channelWriteTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "join_channel", Title: "Join a public channel", Hints: joinHints, Effect: catalogue.ChangesMattermost,
			Description: "Joins a public channel of one of the person's teams; its members see that they joined." + confirmationNote,
		}, d.joinChannel),
		catalogue.Define(catalogue.Tool{
			Name: "leave_channel", Title: "Leave a channel", Hints: leaveHints, Effect: catalogue.ChangesMattermost,
			Description: "Leaves a channel the person is in; rejoining a private one needs an invitation." + confirmationNote,
		}, d.leaveChannel),
		catalogue.Define(catalogue.Tool{
			Name: "create_channel", Title: "Create a channel", Hints: createHints, Effect: catalogue.ChangesMattermost,
			Description: "Creates a public or private channel in one of the person's teams, with them as its admin, and optionally first members." + confirmationNote,
		}, d.createChannel),
	}
}

// channelPlan is the plan of a change about an existing channel.
func channelPlan(c *mattermost.Caller, v place, action string) posting.Plan {
	plan := posting.Plan{CallerID: c.UserID(), Action: action, Dest: v.destination(c),
		Channel: &posting.ChannelSpec{ID: v.ch.Id, TeamID: v.ch.TeamId, Name: v.ch.Name, DisplayName: v.ch.DisplayName,
			Private: v.ch.Type == model.ChannelTypePrivate, Purpose: v.ch.Purpose}}
	if v.team != nil {
		plan.Channel.Team = v.team.DisplayName
	}
	return plan
}

// teamChannel refuses what is not a public or private channel, or archived.
func teamChannel(v place) error {
	if v.ch.IsGroupOrDirect() {
		return refusal.New(v.label()+" is a direct or group message, not a channel.", "Give a public or private channel; list_channels lists them.")
	}
	if v.ch.DeleteAt != 0 {
		return refusal.New(v.label()+" is archived: nothing in it can change.", "")
	}
	return nil
}

// startChannelWrite starts a write to a team channel (not a direct or
// group message, not archived) that ref names; a nil caller means res and
// err are the answer.
func (d Deps) startChannelWrite(ctx context.Context, ref, teamRef string) (*mattermost.Caller, place, catalogue.Result[WriteResult], error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return nil, place{}, res, err
	}
	v, err := resolveChannel(c, ref, teamRef)
	if err == nil {
		err = teamChannel(v)
	}
	if err != nil {
		return nil, place{}, res, err
	}
	return c, v, res, nil
}

func (d Deps) joinChannel(ctx context.Context, a channelRefArgs) (res catalogue.Result[WriteResult], err error) {
	c, v, res, err := d.startChannelWrite(ctx, a.Channel, a.Team)
	if c == nil {
		return res, err
	}
	if v.ch.Type != model.ChannelTypeOpen {
		return res, refusal.New(v.label()+" is private: only an invitation from a member brings someone in.", "")
	}
	if member, err := c.IsMember(v.ch.Id); err != nil || member {
		if err != nil {
			return res, err
		}
		return res, refusal.New("The person is already in "+v.label()+"; nothing needs to change.", "")
	}
	plan := channelPlan(c, v, approval.ActionJoin)
	n, err := c.MemberCount(v.ch.Id)
	if err != nil {
		return res, err
	}
	me, err := c.Me()
	if err != nil {
		return res, err
	}
	plan.Notes = []string{fmt.Sprintf("Mattermost posts “@%s joined the channel.” in %s, for its %d members to see; it notifies nobody.", me.Username, plan.Dest.Place, n)}
	return d.write(ctx, c, plan)
}

func (d Deps) leaveChannel(ctx context.Context, a channelRefArgs) (res catalogue.Result[WriteResult], err error) {
	c, v, res, err := d.startChannelWrite(ctx, a.Channel, a.Team)
	if c == nil {
		return res, err
	}
	if member, err := c.IsMember(v.ch.Id); err != nil || !member {
		if err != nil {
			return res, err
		}
		return res, refusal.New("The person is not in "+v.label()+"; there is nothing to leave.", "")
	}
	if v.ch.Name == model.DefaultChannelName {
		return res, refusal.New("Mattermost lets nobody leave ~"+model.DefaultChannelName+", the channel every team member is in.", "")
	}
	plan := channelPlan(c, v, approval.ActionLeave)
	me, err := c.Me()
	if err != nil {
		return res, err
	}
	plan.Notes = []string{fmt.Sprintf("Mattermost posts “@%s left the channel.” in %s; it notifies nobody.", me.Username, plan.Dest.Place)}
	if plan.Channel.Private {
		plan.Notes = append(plan.Notes, fmt.Sprintf("%s is private: you cannot rejoin it without an invitation from one of its members.", plan.Dest.Place))
	}
	return d.write(ctx, c, plan)
}

var notNameRE = regexp.MustCompile(`[^a-z0-9_-]+`)

// channelAddress refuses a ~name Mattermost would refuse
// (model.Channel.IsValid), or one it would read as an id.
func channelAddress(name string) error {
	if len(name) < minChannelName || len(name) > model.ChannelNameMaxLength || !model.IsValidChannelIdentifier(name) || model.IsValidId(name) {
		return refusal.New(fmt.Sprintf("%s cannot be a channel's address.", quoteValue(name)),
			fmt.Sprintf("Give name: %d to %d lowercase letters, digits, - and _, starting with a letter or digit, not 26 characters of letters and digits alone (that reads as an id).", minChannelName, model.ChannelNameMaxLength))
	}
	return nil
}

// channelName is the address a display name gives: lowercase, with runs of
// anything else made one -.
func channelName(display string) string {
	return strings.Trim(notNameRE.ReplaceAllString(strings.ToLower(display), "-"), "-_")
}

func (d Deps) createChannel(ctx context.Context, a createChannelArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	display := strings.TrimSpace(a.DisplayName)
	if display == "" {
		return res, refusal.New("display_name is empty.", fmt.Sprintf("Give display_name: the channel's name as people see it, 1 to %d characters.", model.ChannelDisplayNameMaxRunes))
	}
	for _, v := range []error{
		oneLine("display_name", display, model.ChannelDisplayNameMaxRunes),
		someLines("purpose", a.Purpose, model.ChannelPurposeMaxRunes),
		someLines("header", a.Header, model.ChannelHeaderMaxRunes),
	} {
		if v != nil {
			return res, v
		}
	}
	name := strings.TrimPrefix(strings.TrimSpace(a.Name), "~")
	if name == "" {
		name = channelName(display)
	}
	if err := channelAddress(name); err != nil {
		return res, err
	}
	team, err := oneTeam(c, a.Team, "create_channel")
	if err != nil {
		return res, err
	}
	allowed, err := c.MayCreateChannel(team.Id, a.Private)
	if err != nil {
		return res, err
	}
	spec := &posting.ChannelSpec{TeamID: team.Id, Team: team.DisplayName, Name: name, DisplayName: display, Private: a.Private,
		Purpose: a.Purpose, Header: a.Header}
	if !allowed {
		return res, refusal.Newf("The person's role does not let them create a %s in %s.", spec.Kind(), present.Clean(team.DisplayName))
	}
	taken, err := c.ChannelNameTaken(team.Id, name)
	if err != nil {
		return res, err
	}
	if taken {
		return res, refusal.New(fmt.Sprintf("%s already has a channel ~%s (perhaps archived).", present.Clean(team.DisplayName), name), "Give another name, or use the existing channel.")
	}
	members, err := newMembers(c, team.Id, "", a.Members)
	if err != nil {
		return res, err
	}
	// The place is worded without the model's names: they are shown apart,
	// as the model's, wherever the change is shown.
	plan := posting.Plan{CallerID: c.UserID(), Action: approval.ActionCreateChan, Channel: spec, Members: members,
		Dest: posting.Destination{Label: fmt.Sprintf("the new %s ~%s in team %s", spec.Kind(), name, team.Name),
			Place: "the new channel in " + present.Clean(team.DisplayName), Where: fmt.Sprintf("a new %s of team %s", spec.Kind(), present.Clean(team.DisplayName))}}
	plan.Notes = addedNotes(c, members, plan.Dest.Place)
	if len(plan.Notes) == 0 {
		plan.Notes = []string{"Nobody is notified: only you are in it at first."}
	}
	return d.write(ctx, c, plan)
}

// markReadTools are mark_channel_read: the person's unread marks.
func markReadTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "mark_channel_read", Title: "Mark a channel read", Hints: ownViewHints, Effect: catalogue.ChangesOwnView,
			Description: "Marks a channel as read by the person now. Only when they ask: reading it here leaves it unread." + ownViewNote,
		}, d.markChannelRead),
	}
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
	return answer(markedReadAnswer(view))
}

// markedReadAnswer says channel view is marked read for the person.
func markedReadAnswer(view place) (string, OwnViewResult) {
	return "Marked " + view.shown() + " read for the person, as of now.", OwnViewResult{Done: "channel_read", ChannelID: view.ch.Id}
}

// placeOf is a channel with what names it: its team, and the other person
// of a direct message.
func placeOf(c *mattermost.Caller, ch *model.Channel) place {
	v := place{ch: ch}
	if ch.TeamId != "" {
		v.team, _ = c.Team(ch.TeamId)
	}
	if other := ch.GetOtherUserIdForDM(c.UserID()); ch.Type == model.ChannelTypeDirect && other != "" {
		v.other, _ = c.User(other)
	}
	return v
}

// destination is where a write to the place goes, as its plan keeps it:
// the label the model is told, and the place in the person's words, short
// and in full.
func (v place) destination(c *mattermost.Caller) posting.Destination {
	return posting.Destination{ChannelID: v.ch.Id, Label: v.label(), Place: v.words(c), Where: v.where(c)}
}

// brief is the place in a few words, for a file's answer: "a direct
// message", or the channel's ~name and display name.
func (v place) brief() string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return "a direct message"
	case model.ChannelTypeGroup:
		return "a group message"
	}
	return fmt.Sprintf("~%s (%s)", v.ch.Name, present.Name(v.ch.DisplayName))
}

// words is the channel in the person's words, for the heading of a
// confirmation: its display name and team, or the people of a direct or
// group message; no ids.
func (v place) words(c *mattermost.Caller) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return "your direct message with " + v.partner(c)
	case model.ChannelTypeGroup:
		return "your group message with " + v.groupOthers(c)
	}
	if v.team != nil {
		return present.Clean(v.ch.DisplayName) + ", " + present.Clean(v.team.DisplayName)
	}
	return present.Clean(v.ch.DisplayName)
}

// where is the channel in full for the person, to tell apart two channels
// of the same name: its ~name, kind and team; no ids.
func (v place) where(c *mattermost.Caller) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect, model.ChannelTypeGroup:
		return v.words(c)
	}
	w := fmt.Sprintf("%s (~%s), a %s channel", present.Clean(v.ch.DisplayName), v.ch.Name, channelType(v.ch.Type))
	if v.team != nil {
		w += " of team " + present.Clean(v.team.DisplayName)
	}
	return w
}

// partner is the other person of a direct message, as @username.
func (v place) partner(c *mattermost.Caller) string {
	other := v.other
	if id := v.ch.GetOtherUserIdForDM(c.UserID()); other == nil && id != "" {
		other, _ = c.User(id)
	}
	if other == nil {
		return "someone"
	}
	return "@" + other.Username
}

// groupOthers are the people of a group message but the caller: Mattermost
// names a group message by all its members' usernames.
func (v place) groupOthers(c *mattermost.Caller) string {
	me, _ := c.Me()
	var others []string
	for _, n := range strings.Split(v.ch.DisplayName, ",") {
		if n = strings.TrimSpace(n); n != "" && (me == nil || n != me.Username) {
			others = append(others, "@"+present.Clean(n))
		}
	}
	if len(others) == 0 {
		return "others"
	}
	return strings.Join(others, ", ")
}
