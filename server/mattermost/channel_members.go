package mattermost

import (
	"fmt"
	"sort"

	"github.com/mattermost/mattermost/server/public/model"
)

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
