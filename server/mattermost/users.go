package mattermost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// A caller sees another person only when they share a team, a direct
// message or a group message, and, when the caller may not view members (a
// guest), only as Mattermost's restricted view allows (privacy.go); anyone
// else is not found. Whoever is found is shown as Mattermost shows them to
// the caller.

// User finds a person by id, @username or email, if the caller can see them.
// While email addresses are hidden from the caller, an email is refused with
// ErrEmailHidden, whoever it belongs to.
func (c *Caller) User(ref string) (*model.User, error) {
	ref = strings.TrimSpace(ref)
	var u *model.User
	var err error
	switch {
	case model.IsValidId(ref):
		u, err = c.g.api.User.Get(ref)
	case strings.Contains(ref, "@") && !strings.HasPrefix(ref, "@"):
		if !c.emailsShown() {
			return nil, ErrEmailHidden
		}
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
	return c.shown(u), nil
}

// searchFetched is how many people each search asks Mattermost for: the
// plugin API searches without view restrictions, so some of what it finds
// is dropped here. (It matches usernames and nicknames only: its options
// allow neither full names nor emails, which namesStarting adds.)
const searchFetched = 200

// SearchUsers finds up to limit people the caller can see whose username,
// nickname, and (when the caller is shown them) names or email start with
// each word of term: people of the caller's teams, and those they have
// direct or group messages with. A name or email hidden from the caller
// never matches, as in Mattermost's own search.
func (c *Caller) SearchUsers(term string, limit int) ([]*model.User, error) {
	memberships, err := c.Teams()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*model.User
	add := func(users []*model.User) error {
		for _, u := range users {
			if len(out) >= limit || seen[u.Id] {
				continue
			}
			seen[u.Id] = true
			shown := c.shown(u)
			if !userMatches(shown, term) {
				continue
			}
			if visible, err := c.sees(u.Id); err != nil {
				return err
			} else if visible {
				out = append(out, shown)
			}
		}
		return nil
	}
	for _, m := range memberships {
		found, err := c.g.api.User.Search(&model.UserSearch{Term: term, TeamId: m.Team.Id, AllowInactive: true, Limit: max(limit, searchFetched)})
		if err != nil && !isNotFound(err) {
			return nil, fmt.Errorf("search users: %w", err)
		}
		if err := add(found); err != nil {
			return nil, err
		}
	}
	if len(out) < limit {
		p := c.policy()
		teamIDs := make([]string, 0, len(memberships))
		for _, m := range memberships {
			teamIDs = append(teamIDs, m.Team.Id)
		}
		ids, err := c.namesStarting(teamIDs, term, p.options["fullname"], p.options["email"], searchFetched)
		if err != nil {
			return nil, err
		}
		if err := c.addByID(ids, seen, add); err != nil {
			return nil, err
		}
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
		if err := add(users); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addByID reads the people of ids not seen yet and hands them to add.
func (c *Caller) addByID(ids []string, seen map[string]bool, add func([]*model.User) error) error {
	var unseen []string
	for _, id := range ids {
		if !seen[id] {
			unseen = append(unseen, id)
		}
	}
	if len(unseen) == 0 {
		return nil
	}
	users, err := c.g.api.User.ListByUserIDs(unseen)
	if err != nil {
		return fmt.Errorf("read people found by name: %w", err)
	}
	return add(users)
}

// namesStarting are the ids of up to n active or deactivated members of
// the teams whose first or last name (when names are shown) or email (when
// emails are shown) starts with the first word of term: what the plugin
// API's search leaves out. The caller's view of each is checked after.
func (c *Caller) namesStarting(teamIDs []string, term string, names, emails bool, n int) ([]string, error) {
	words := strings.Fields(strings.ToLower(strings.TrimPrefix(strings.TrimSpace(term), "@")))
	if len(words) == 0 || len(teamIDs) == 0 || (!names && !emails) || !c.g.hasDB {
		return nil, nil
	}
	p, err := placeholders(c.g.driverName(), len(teamIDs)+1)
	if err != nil {
		return nil, err
	}
	like := p[len(teamIDs)]
	var match []string
	if names {
		match = append(match, "LOWER(u.FirstName) LIKE "+like, "LOWER(u.LastName) LIKE "+like)
	}
	if emails {
		match = append(match, "LOWER(u.Email) LIKE "+like)
	}
	// The same placeholder stands three times: PostgreSQL numbers it once,
	// MySQL's ? needs the value once per use.
	args := make([]any, 0, len(teamIDs)+len(match))
	for _, id := range teamIDs {
		args = append(args, id)
	}
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(words[0]) + "%"
	if c.g.driverName() == driverMySQL {
		for range match {
			args = append(args, pattern)
		}
	} else {
		args = append(args, pattern)
	}
	query := "SELECT DISTINCT u.Id FROM Users u JOIN TeamMembers tm ON tm.UserId = u.Id WHERE tm.DeleteAt = 0 AND tm.TeamId IN (" +
		strings.Join(p[:len(teamIDs)], ", ") + ") AND (" + strings.Join(match, " OR ") + fmt.Sprintf(") LIMIT %d", n)
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	var ids []string
	err = queryRows(db, query, args, 1, func(scan func(...any) error) error {
		var id string
		if err := scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search people by name: %w", err)
	}
	return ids, nil
}

// userMatches is Mattermost's user search on a profile as the caller is
// shown it: every word of term starts the username, a name, the nickname
// or the email (blank fields, hidden ones included, match nothing).
func userMatches(u *model.User, term string) bool {
	words := strings.Fields(strings.ToLower(strings.TrimPrefix(strings.TrimSpace(term), "@")))
	if len(words) == 0 {
		return false
	}
	fields := []string{u.Username, u.FirstName, u.LastName, u.Nickname, u.Email}
	for _, w := range words {
		w = strings.TrimPrefix(w, "@")
		found := false
		for _, f := range fields {
			if f != "" && strings.HasPrefix(strings.ToLower(f), w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sees reports whether the caller may see a person: they share a team or a
// direct or group message and, for a caller who may not view members, as
// Mattermost's restricted view allows (a team where the caller may view
// members, or a shared channel).
func (c *Caller) sees(userID string) (bool, error) {
	if userID == c.userID {
		return true, nil
	}
	r, err := c.restricted()
	if err != nil {
		return false, err
	}
	if r != nil {
		return c.seesRestricted(r, userID)
	}
	theirs, err := c.g.api.Team.List(pluginapi.FilterTeamsByUser(userID))
	if err != nil && !isNotFound(err) {
		return false, fmt.Errorf("list a user's teams: %w", err)
	}
	for _, t := range theirs {
		if _, err := c.myTeam(t.Id); err == nil {
			if tm, err := c.teamMember(t.Id, userID); err == nil && tm.DeleteAt == 0 {
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
