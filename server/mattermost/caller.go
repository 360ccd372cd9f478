package mattermost

import (
	"fmt"
	"sort"
	"sync"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// Caller is Mattermost as seen by one signed-in user.
type Caller struct {
	g      *Gateway
	userID string
	// session is the id of the Mattermost session the request came with,
	// for the REST calls the plugin API has no method for; "" for none.
	session string

	// What the server's settings let this caller see, read once (privacy.go).
	mu          sync.Mutex
	pol         *policy
	restr       *restrictions
	restrLoaded bool

	// memo is what this call already asked Mattermost (memo.go).
	memo memo
}

// UserID is the caller's Mattermost user id.
func (c *Caller) UserID() string { return c.userID }

// SiteURL is Mattermost's public URL.
func (c *Caller) SiteURL() string { return c.g.SiteURL() }

// Me is the caller's own account (all of it: nobody's own names or email
// are hidden from them), as this node read it within accountFor.
func (c *Caller) Me() (*model.User, error) {
	u, err := c.g.keptAccount(c.userID)
	if err != nil {
		return nil, fmt.Errorf("read the signed-in user: %w", err)
	}
	return c.shown(u), nil
}

// Membership is a team the caller belongs to and their roles in it.
type Membership struct {
	Team  *model.Team
	Roles string
}

// Teams lists the caller's teams, sorted by display name.
func (c *Caller) Teams() ([]Membership, error) { return c.myTeams(c.keptTeams) }

func (c *Caller) readTeams() ([]Membership, error) {
	teams, err := c.g.api.Team.List(pluginapi.FilterTeamsByUser(c.userID))
	if err != nil {
		return nil, fmt.Errorf("list the signed-in user's teams: %w", err)
	}
	out := make([]Membership, 0, len(teams))
	for _, t := range teams {
		m, err := c.teamMember(t.Id, c.userID)
		if err != nil {
			return nil, fmt.Errorf("read team membership: %w", err)
		}
		if m.DeleteAt != 0 {
			continue
		}
		out = append(out, Membership{Team: t, Roles: m.Roles})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Team.DisplayName < out[j].Team.DisplayName })
	return out, nil
}

// Poster is the author of a post or file the caller has already been
// allowed to read, as Mattermost shows them to the caller: not found for a
// caller restricted from seeing them (a guest and someone who left the
// channel), names and email as the privacy settings allow.
func (c *Caller) Poster(userID string) (*model.User, error) {
	if !model.IsValidId(userID) {
		return nil, ErrNotFound
	}
	u, err := c.g.api.User.Get(userID)
	if err != nil {
		return nil, notFoundOr(err, "read user")
	}
	one := map[string]*model.User{u.Id: u}
	if err := c.visibleOnly(one); err != nil {
		return nil, err
	}
	if one[u.Id] == nil {
		return nil, ErrNotFound
	}
	return c.shown(u), nil
}
