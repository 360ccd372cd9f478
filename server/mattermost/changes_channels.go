package mattermost

import (
	"errors"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

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

// MayAddMembers reports whether the caller's role lets them add people to
// a channel they can read (manage_public_channel_members or
// manage_private_channel_members).
func (c *Caller) MayAddMembers(ch *model.Channel) bool {
	perm := model.PermissionManagePublicChannelMembers
	if ch.Type == model.ChannelTypePrivate {
		perm = model.PermissionManagePrivateChannelMembers
	}
	return c.g.api.User.HasPermissionToChannel(c.userID, ch.Id, perm)
}

// InTeam reports whether a person is an active member of a team.
func (c *Caller) InTeam(teamID, userID string) (bool, error) {
	m, appErr := c.g.raw.GetTeamMember(teamID, userID)
	if appErr != nil {
		if isNotFound(appErr) {
			return false, nil
		}
		return false, fmt.Errorf("read team member: %w", appErr)
	}
	return m.DeleteAt == 0, nil
}

// AddChannelMember adds a person of the channel's team to a channel the
// caller may add people to, as the caller: Mattermost posts "added to the
// channel by" them.
func (c *Caller) AddChannelMember(channelID, userID string) error {
	defer c.forget() // memberships change: nothing this call read of them holds
	ch, err := c.Channel(channelID)
	if err != nil {
		return err
	}
	if ch.DeleteAt != 0 {
		return ErrArchived
	}
	if ch.IsGroupOrDirect() || !c.MayAddMembers(ch) {
		return ErrNotAllowed
	}
	if _, err := c.User(userID); err != nil {
		return err
	}
	if in, err := c.InTeam(ch.TeamId, userID); err != nil || !in {
		if err == nil {
			err = ErrNotFound
		}
		return err
	}
	if _, appErr := c.g.raw.AddUserToChannel(ch.Id, userID, c.userID); appErr != nil {
		return fmt.Errorf("add channel member: %w", appErr)
	}
	return nil
}
