package mattermost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// A caller sees another person only when they share a team, a direct
// message or a group message; anyone else is not found.

// User finds a person by id, @username or email, if the caller can see them.
func (c *Caller) User(ref string) (*model.User, error) {
	ref = strings.TrimSpace(ref)
	var u *model.User
	var err error
	switch {
	case model.IsValidId(ref):
		u, err = c.g.api.User.Get(ref)
	case strings.Contains(ref, "@") && !strings.HasPrefix(ref, "@"):
		u, err = c.g.api.User.GetByEmail(strings.ToLower(ref))
	case ref != "":
		u, err = c.g.api.User.GetByUsername(strings.ToLower(strings.TrimPrefix(ref, "@")))
	default:
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, notFoundOr(err, "read user")
	}
	visible, err := c.sees(u.Id)
	if err != nil {
		return nil, err
	}
	if !visible {
		return nil, ErrNotFound
	}
	return u, nil
}

// SearchUsers finds up to limit people the caller can see whose username,
// name, nickname or email matches term: people of the caller's teams, and
// those they have direct or group messages with.
func (c *Caller) SearchUsers(term string, limit int) ([]*model.User, error) {
	memberships, err := c.Teams()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*model.User
	add := func(users []*model.User) {
		for _, u := range users {
			if len(out) < limit && !seen[u.Id] {
				seen[u.Id] = true
				out = append(out, u)
			}
		}
	}
	for _, m := range memberships {
		found, err := c.g.api.User.Search(&model.UserSearch{Term: term, TeamId: m.Team.Id, AllowInactive: true, Limit: limit})
		if err != nil && !isNotFound(err) {
			return nil, fmt.Errorf("search users: %w", err)
		}
		add(found)
	}
	partners, err := c.messagePartners()
	if err != nil {
		return nil, err
	}
	var ids []string
	for id := range partners {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 && len(out) < limit {
		users, err := c.g.api.User.ListByUserIDs(ids)
		if err != nil {
			return nil, fmt.Errorf("read message partners: %w", err)
		}
		var matching []*model.User
		for _, u := range users {
			if userMatches(u, term) {
				matching = append(matching, u)
			}
		}
		add(matching)
	}
	return out, nil
}

func userMatches(u *model.User, term string) bool {
	term = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(term), "@"))
	for _, f := range []string{u.Username, u.FirstName, u.LastName, u.Nickname, u.Email, u.GetFullName()} {
		if strings.HasPrefix(strings.ToLower(f), term) {
			return true
		}
	}
	return false
}

// sees reports whether the caller may see a person.
func (c *Caller) sees(userID string) (bool, error) {
	if userID == c.userID {
		return true, nil
	}
	theirs, err := c.g.api.Team.List(pluginapi.FilterTeamsByUser(userID))
	if err != nil && !isNotFound(err) {
		return false, fmt.Errorf("list a user's teams: %w", err)
	}
	for _, t := range theirs {
		if _, err := c.myTeam(t.Id); err == nil {
			if tm, err := c.g.api.Team.GetMember(t.Id, userID); err == nil && tm.DeleteAt == 0 {
				return true, nil
			}
		} else if !errors.Is(err, ErrNotFound) {
			return false, err
		}
	}
	partners, err := c.messagePartners()
	if err != nil {
		return false, err
	}
	return partners[userID], nil
}

// messagePartners are the people the caller shares a direct or group
// message with.
func (c *Caller) messagePartners() (map[string]bool, error) {
	channels, err := c.g.api.Channel.ListForTeamForUser("", c.userID, true)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("list the caller's channels: %w", err)
	}
	out := map[string]bool{}
	for _, ch := range channels {
		switch ch.Type {
		case model.ChannelTypeDirect:
			if other := ch.GetOtherUserIdForDM(c.userID); other != "" {
				out[other] = true
			}
		case model.ChannelTypeGroup:
			for page := 0; ; page++ {
				members, err := c.g.api.Channel.ListMembers(ch.Id, page, membersPage)
				if err != nil && !isNotFound(err) {
					return nil, fmt.Errorf("list group message members: %w", err)
				}
				for _, m := range members {
					out[m.UserId] = true
				}
				if len(members) < membersPage {
					break
				}
			}
		}
	}
	return out, nil
}
