package mattermost

import (
	"fmt"
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
	memberships, err := c.Teams()
	if err != nil {
		return nil, err
	}
	teams := make(map[string]*model.Team, len(memberships))
	for _, m := range memberships {
		teams[m.Team.Id] = m.Team
	}
	// An empty team id lists the caller's channels of every team at once.
	channels, err := c.g.api.Channel.ListForTeamForUser("", c.userID, false)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("list the caller's channels: %w", err)
	}
	members := map[string]*model.ChannelMember{}
	for page := 0; ; page++ {
		ms, err := c.g.api.Channel.ListMembersForUser("", c.userID, page, membersPage)
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
