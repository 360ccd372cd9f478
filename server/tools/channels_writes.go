package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// The channel tools that change something: joining, leaving and creating
// a channel, which the person confirms, and marking one read, which only
// they see.

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
			Name: "join_channel", Title: "Join a public channel", Hints: joinHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetChannelChanges,
			Description: "Joins a public channel of one of the person's teams; its members see that they joined." + confirmationNote,
		}, d.joinChannel),
		catalogue.Define(catalogue.Tool{
			Name: "leave_channel", Title: "Leave a channel", Hints: leaveHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetChannelChanges,
			Description: "Leaves a channel the person is in; rejoining a private one needs an invitation." + confirmationNote,
		}, d.leaveChannel),
		catalogue.Define(catalogue.Tool{
			Name: "create_channel", Title: "Create a channel", Hints: createHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetChannelChanges,
			Description: "Creates a public or private channel in one of the person's teams, with them as its admin, and optionally first members." + confirmationNote,
		}, d.createChannel),
	}
}

// channelPlan is the plan of a change about an existing channel, before
// its kind is given, and the channel as the person is shown it.
func channelPlan(c *mattermost.Caller, v place) (posting.Plan, *posting.ChannelSpec) {
	spec := &posting.ChannelSpec{ID: v.ch.Id, TeamID: v.ch.TeamId, Name: v.ch.Name, DisplayName: v.ch.DisplayName,
		Private: v.ch.Type == model.ChannelTypePrivate, Purpose: v.ch.Purpose}
	if v.team != nil {
		spec.Team = v.team.DisplayName
	}
	return posting.Plan{CallerID: c.UserID(), Dest: v.destination(c)}, spec
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
	base, spec := channelPlan(c, v)
	plan := approval.JoinChannel.Plan(base, approval.ChannelShown{Channel: spec})
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
	base, spec := channelPlan(c, v)
	plan := approval.LeaveChannel.Plan(base, approval.ChannelShown{Channel: spec})
	me, err := c.Me()
	if err != nil {
		return res, err
	}
	plan.Notes = []string{fmt.Sprintf("Mattermost posts “@%s left the channel.” in %s; it notifies nobody.", me.Username, plan.Dest.Place)}
	if spec.Private {
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
	plan := approval.CreateChannel.Plan(posting.Plan{CallerID: c.UserID(),
		Dest: posting.Destination{Label: fmt.Sprintf("the new %s ~%s in team %s", spec.Kind(), name, team.Name),
			Place: "the new channel in " + present.Clean(team.DisplayName), Where: fmt.Sprintf("a new %s of team %s", spec.Kind(), present.Clean(team.DisplayName))}},
		approval.ChannelMembers{Channel: spec, Members: members})
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
			Name: "mark_channel_read", Title: "Mark a channel read", Hints: ownViewHints, Effect: catalogue.ChangesOwnView, Toolset: config.ToolsetOwnView,
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
