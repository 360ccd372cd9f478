package mattermost

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// UserIDByUsername is the id of the active account with this username, or
// "" when there is none, whether or not the caller can see it: a mention of
// it notifies all the same. Only the pipeline reads the id; nobody is shown
// it.
func (c *Caller) UserIDByUsername(name string) (string, error) {
	u, appErr := c.g.raw.GetUserByUsername(strings.ToLower(strings.TrimPrefix(name, "@")))
	if appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return "", nil
		}
		return "", fmt.Errorf("read user: %w", appErr)
	}
	if u.DeleteAt != 0 {
		return "", nil
	}
	return u.Id, nil
}

// IsChannelMember reports whether a user is a member of a channel the caller
// can read: Mattermost notifies a mention only of the channel's members.
func (c *Caller) IsChannelMember(channelID, userID string) (bool, error) {
	if _, err := c.Channel(channelID); err != nil {
		return false, err
	}
	m, appErr := c.g.raw.GetChannelMember(channelID, userID)
	if appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, fmt.Errorf("read channel member: %w", appErr)
	}
	return m != nil, nil
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

// ChannelMember is a member of a channel and their roles in it.
type ChannelMember struct {
	User *model.User
	// Admin is a channel admin; Guest a guest account.
	Admin, Guest bool
}

// ChannelMembers are the members of a channel the caller can read, page by
// page in username order (active accounts, as Mattermost lists members).
// Every person comes as Authors shows them, so the privacy settings apply;
// hidden counts those the caller may not see.
func (c *Caller) ChannelMembers(channelID string, page, perPage int) (members []ChannelMember, hidden int, err error) {
	if _, err := c.Channel(channelID); err != nil {
		return nil, 0, err
	}
	listed, err := c.g.api.User.ListInChannel(channelID, model.ChannelSortByUsername, page, perPage)
	if err != nil && !isNotFound(err) {
		return nil, 0, fmt.Errorf("list channel members: %w", err)
	}
	if len(listed) == 0 {
		return nil, 0, nil
	}
	ids := make([]string, 0, len(listed))
	for _, u := range listed {
		ids = append(ids, u.Id)
	}
	roles, err := c.g.api.Channel.ListMembersByIDs(channelID, ids)
	if err != nil && !isNotFound(err) {
		return nil, 0, fmt.Errorf("read channel memberships: %w", err)
	}
	byID := make(map[string]*model.ChannelMember, len(roles))
	for _, m := range roles {
		byID[m.UserId] = m
	}
	shown, err := c.Authors(ids)
	if err != nil {
		return nil, 0, err
	}
	for _, id := range ids {
		u, ok := shown[id]
		if !ok {
			hidden++
			continue
		}
		m := ChannelMember{User: u, Guest: u.IsGuest()}
		if cm := byID[id]; cm != nil {
			m.Admin, m.Guest = cm.SchemeAdmin, m.Guest || cm.SchemeGuest
		}
		members = append(members, m)
	}
	sort.SliceStable(members, func(i, j int) bool { return members[i].User.Username < members[j].User.Username })
	return members, hidden, nil
}
