package mattermost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// MyChannel is a channel the caller belongs to, with their membership
// (read position and mention counts) and, for a direct message, the other
// person.
type MyChannel struct {
	Channel *model.Channel
	Member  *model.ChannelMember
	// Team is the channel's team, nil for direct and group messages.
	Team *model.Team
	// Other is the other person of a direct message (nil otherwise, or for
	// a direct message with oneself).
	Other *model.User
}

// MyChannel is one channel as MyChannels lists it, read alone: ok is false
// where MyChannels would leave it out (not a member, archived, of a team the
// caller left). The caller can read ch (Channel checked it).
func (c *Caller) MyChannel(ch *model.Channel) (m MyChannel, ok bool, err error) {
	if ch.DeleteAt != 0 {
		return MyChannel{}, false, nil
	}
	member, appErr := c.g.raw.GetChannelMember(ch.Id, c.userID)
	if appErr != nil {
		if isNotFound(appErr) {
			return MyChannel{}, false, nil
		}
		return MyChannel{}, false, fmt.Errorf("read the caller's channel membership: %w", appErr)
	}
	m = MyChannel{Channel: ch, Member: member}
	if ch.TeamId != "" {
		if m.Team, ok = c.keptTeam(ch.TeamId); !ok {
			if m.Team, err = c.myTeam(ch.TeamId); errors.Is(err, ErrNotFound) {
				return MyChannel{}, false, nil // a channel of a team the caller has left
			} else if err != nil {
				return MyChannel{}, false, err
			}
		}
	}
	if other := ch.GetOtherUserIdForDM(c.userID); ch.Type == model.ChannelTypeDirect && other != "" {
		u, err := c.g.api.User.Get(other)
		if err != nil && !isNotFound(err) {
			return MyChannel{}, false, fmt.Errorf("read the person of a direct message: %w", err)
		}
		if u != nil {
			m.Other = c.shown(u)
		}
	}
	return m, true, nil
}

// Unread is how many messages arrived since the caller last read the channel.
func (m MyChannel) Unread() int64 {
	return max(0, m.Channel.TotalMsgCount-m.Member.MsgCount)
}

// UnreadRoot is Unread counting only thread roots.
func (m MyChannel) UnreadRoot() int64 {
	return max(0, m.Channel.TotalMsgCountRoot-m.Member.MsgCountRoot)
}

// membersPage is how many channel memberships are read per plugin API call.
const membersPage = 200

// MyChannels lists every channel the caller is a member of (not archived),
// across their teams, with direct and group messages. Sorted by the newest
// post first.
func (c *Caller) MyChannels() ([]MyChannel, error) {
	// An empty team id lists the caller's channels of every team at once.
	channels, err := c.g.api.Channel.ListForTeamForUser("", c.userID, false)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("list the caller's channels: %w", err)
	}
	return c.myChannelsOf(channels, "")
}

// MyTeamChannels lists the channels of one of the caller's teams they are a
// member of (not archived; no direct or group messages), newest post first.
// Its listing of the team is the one TeamArchivedChannels reads in the same
// call, so a page of a team's channels asks for it once.
func (c *Caller) MyTeamChannels(teamID string) ([]MyChannel, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	listed, err := c.teamListed(teamID)
	if err != nil {
		return nil, err
	}
	channels := make([]*model.Channel, 0, len(listed))
	for _, ch := range listed {
		if ch.TeamId == teamID {
			channels = append(channels, ch)
		}
	}
	return c.myChannelsOf(channels, teamID)
}

// myChannelsOf is MyChannels of the channels listed: those the caller is a
// member of (their memberships read for teamID, "" for every team), not
// archived and not of a team they left.
func (c *Caller) myChannelsOf(channels []*model.Channel, teamID string) ([]MyChannel, error) {
	memberships, err := c.Teams()
	if err != nil {
		return nil, err
	}
	teams := make(map[string]*model.Team, len(memberships))
	for _, m := range memberships {
		teams[m.Team.Id] = m.Team
	}
	members := map[string]*model.ChannelMember{}
	for page := 0; ; page++ {
		ms, err := c.g.api.Channel.ListMembersForUser(teamID, c.userID, page, membersPage)
		if err != nil && !isNotFound(err) {
			return nil, fmt.Errorf("list the caller's channel memberships: %w", err)
		}
		for _, m := range ms {
			members[m.ChannelId] = m
		}
		if len(ms) < membersPage {
			break
		}
	}
	var out []MyChannel
	var others []string
	for _, ch := range channels {
		m, ok := members[ch.Id]
		if !ok || ch.DeleteAt != 0 {
			continue
		}
		mc := MyChannel{Channel: ch, Member: m}
		if ch.TeamId != "" {
			if mc.Team, ok = teams[ch.TeamId]; !ok {
				// A channel of a team the caller has left.
				continue
			}
		}
		if ch.Type == model.ChannelTypeDirect {
			if other := ch.GetOtherUserIdForDM(c.userID); other != "" {
				others = append(others, other)
			}
		}
		out = append(out, mc)
	}
	if len(others) > 0 {
		users, err := c.g.api.User.ListByUserIDs(others)
		if err != nil {
			return nil, fmt.Errorf("read the people of direct messages: %w", err)
		}
		byID := make(map[string]*model.User, len(users))
		for _, u := range users {
			byID[u.Id] = c.shown(u)
		}
		for i := range out {
			if out[i].Channel.Type == model.ChannelTypeDirect {
				out[i].Other = byID[out[i].Channel.GetOtherUserIdForDM(c.userID)]
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Channel.LastPostAt > out[j].Channel.LastPostAt })
	return out, nil
}

// ChannelByName is a team's channel by its exact name (the URL name), if the
// caller can read it: a public channel of one of the caller's teams, or a
// private one the caller belongs to.
func (c *Caller) ChannelByName(teamID, name string) (*model.Channel, error) {
	if !model.IsValidId(teamID) || name == "" {
		return nil, ErrNotFound
	}
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	ch, err := c.g.api.Channel.GetByName(teamID, strings.ToLower(name), false)
	if err != nil {
		return nil, notFoundOr(err, "read channel by name")
	}
	if ch.DeleteAt != 0 || !c.canReadChannel(ch) {
		return nil, ErrNotFound
	}
	return ch, nil
}

// SearchPublicChannels finds public channels of one of the caller's teams
// whose name or display name matches term, as Mattermost lists them to a
// team member (list_team_channels). Private channels never come from here,
// joined or not.
func (c *Caller) SearchPublicChannels(teamID, term string) ([]*model.Channel, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	found, err := c.g.api.Channel.Search(teamID, term)
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("search channels: %w", err)
	}
	var out []*model.Channel
	for _, ch := range found {
		if ch.Type != model.ChannelTypeOpen || ch.DeleteAt != 0 || ch.TeamId != teamID ||
			!c.may("", teamID, model.PermissionListTeamChannels) {
			continue
		}
		out = append(out, ch)
	}
	return out, nil
}

// Team is one of the caller's teams.
func (c *Caller) Team(teamID string) (*model.Team, error) { return c.myTeam(teamID) }

func (c *Caller) myTeam(teamID string) (*model.Team, error) {
	if !model.IsValidId(teamID) {
		return nil, ErrNotFound
	}
	if t, ok := c.keptTeam(teamID); ok {
		return t, nil
	}
	// Not among the teams as this node last read them (joined a moment
	// ago): Mattermost is asked.
	m, err := c.teamMember(teamID, c.userID)
	if err != nil {
		return nil, notFoundOr(err, "read team membership")
	}
	if m.DeleteAt != 0 {
		return nil, ErrNotFound
	}
	t, err := c.team(teamID)
	if err != nil {
		return nil, notFoundOr(err, "read team")
	}
	if t.DeleteAt != 0 {
		return nil, ErrNotFound
	}
	return t, nil
}

var (
	// ErrArchived refuses a change in an archived channel.
	ErrArchived = errors.New("the channel is archived")
	// ErrNotAllowed is a change the caller's role does not allow.
	ErrNotAllowed = errors.New("not allowed for the caller")
	// ErrNotMember is a channel the caller is not in.
	ErrNotMember = errors.New("not a member of the channel")
)

// IsMember reports whether the caller is in a channel.
func (c *Caller) IsMember(channelID string) (bool, error) {
	_, appErr := c.g.raw.GetChannelMember(channelID, c.userID)
	if appErr != nil {
		if isNotFound(appErr) {
			return false, nil
		}
		return false, fmt.Errorf("read channel membership: %w", appErr)
	}
	return true, nil
}

// JoinChannel adds the caller to a public channel of one of their teams, as
// Mattermost does when they join it (it posts that they joined).
func (c *Caller) JoinChannel(channelID string) error {
	defer c.forget() // memberships change: nothing this call read of them holds
	ch, err := c.Channel(channelID)
	if err != nil {
		return err
	}
	if ch.Type != model.ChannelTypeOpen {
		return ErrNotFound
	}
	if ch.DeleteAt != 0 {
		return ErrArchived
	}
	if _, err := c.myTeam(ch.TeamId); err != nil {
		return err
	}
	if !c.g.api.User.HasPermissionToTeam(c.userID, ch.TeamId, model.PermissionJoinPublicChannels) {
		return ErrNotAllowed
	}
	if _, appErr := c.g.raw.AddChannelMember(ch.Id, c.userID); appErr != nil {
		return fmt.Errorf("join channel: %w", appErr)
	}
	return nil
}

// LeaveChannel takes the caller out of a public or private channel they are
// in, as Mattermost does (it posts that they left).
func (c *Caller) LeaveChannel(channelID string) error {
	defer c.forget() // memberships change: nothing this call read of them holds
	ch, err := c.Channel(channelID)
	if err != nil {
		return err
	}
	member, err := c.IsMember(ch.Id)
	if err != nil {
		return err
	}
	if !member {
		return ErrNotMember
	}
	if ch.IsGroupOrDirect() {
		return ErrNotAllowed
	}
	if appErr := c.g.raw.DeleteChannelMember(ch.Id, c.userID); appErr != nil {
		return fmt.Errorf("leave channel: %w", appErr)
	}
	return nil
}

// MayCreateChannel reports whether the caller may create a public (or
// private) channel in one of their teams.
func (c *Caller) MayCreateChannel(teamID string, private bool) (bool, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return false, err
	}
	perm := model.PermissionCreatePublicChannel
	if private {
		perm = model.PermissionCreatePrivateChannel
	}
	return c.g.api.User.HasPermissionToTeam(c.userID, teamID, perm), nil
}

// ChannelNameTaken reports whether a team has a channel (archived or not)
// with this name.
func (c *Caller) ChannelNameTaken(teamID, name string) (bool, error) {
	_, appErr := c.g.raw.GetChannelByName(teamID, name, true)
	if appErr != nil {
		if isNotFound(appErr) {
			return false, nil
		}
		return false, fmt.Errorf("read channel by name: %w", appErr)
	}
	return true, nil
}

// CreateChannel creates a channel in one of the caller's teams, as them and
// with them as its admin, if their role allows that kind of channel.
func (c *Caller) CreateChannel(ch *model.Channel) (*model.Channel, error) {
	defer c.forget() // memberships change: nothing this call read of them holds
	ok, err := c.MayCreateChannel(ch.TeamId, ch.Type == model.ChannelTypePrivate)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotAllowed
	}
	ch.CreatorId = c.userID
	created, appErr := c.g.raw.CreateChannel(ch)
	if appErr != nil {
		return nil, fmt.Errorf("create channel: %w", appErr)
	}
	if _, appErr := c.g.raw.AddChannelMember(created.Id, c.userID); appErr != nil {
		return created, fmt.Errorf("join the new channel: %w", appErr)
	}
	if _, appErr := c.g.raw.UpdateChannelMemberRoles(created.Id, c.userID, model.ChannelUserRoleId+" "+model.ChannelAdminRoleId); appErr != nil {
		return created, fmt.Errorf("make the creator the channel's admin: %w", appErr)
	}
	return created, nil
}

// teamOf is the team a channel's threads are kept under: its own, or for a
// direct or group message (which belong to no team) the caller's first.
func (v *OwnView) teamOf(channelID string) (string, error) {
	ch, err := v.c.Channel(channelID)
	if err != nil {
		return "", err
	}
	if ch.TeamId != "" {
		return ch.TeamId, nil
	}
	ms, err := v.c.Teams()
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", ErrNotFound
	}
	return ms[0].Team.Id, nil
}

// MarkChannelRead marks a channel the caller is a member of as viewed by
// them now, as opening it in Mattermost does.
func (v *OwnView) MarkChannelRead(ctx context.Context, channelID string) (*model.Channel, error) {
	ch, err := v.c.Channel(channelID)
	if err != nil {
		return nil, err
	}
	if _, appErr := v.c.g.raw.GetChannelMember(channelID, v.c.userID); appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return nil, ErrNotMember
		}
		return nil, fmt.Errorf("read channel member: %w", appErr)
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	_, resp, err := client.ViewChannel(ctx, v.c.userID, &model.ChannelView{ChannelId: channelID, CollapsedThreadsSupported: true})
	if err := restErr("view channel", resp, err); err != nil {
		return nil, err
	}
	return ch, nil
}
