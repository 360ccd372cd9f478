package mattermost

import (
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
)

// A person's teams are read with two plugin API round trips and more (the
// teams, then the membership in each), and nearly every tool needs them:
// for names, for the people the person may see, for where to search. Each
// node keeps them a few seconds. What the person may read is still asked
// of Mattermost channel by channel on every call; what lags is only which
// teams are named, for at most teamsFor after the person joined or left
// one on another node.
const (
	// teamsFor is how long a node trusts a person's teams, as long as it
	// trusts that their account is active (transport's activeFor).
	teamsFor = 10 * time.Second
	// maxTeamsKept bounds the people whose teams a node keeps.
	maxTeamsKept = 5000
	// teamFor is how long a node keeps a team read by its id, for its names
	// (a permalink's team, a file's place): a renamed team shows its old
	// name that long. Whether the caller belongs to it is asked apart.
	teamFor = time.Minute
	// maxTeamsByID bounds the teams kept by id.
	maxTeamsByID = 1000
	// maxSystemPermissionsKept bounds the (person, permission) answers kept.
	maxSystemPermissionsKept = 10_000
	// accountFor is how long a node keeps a person's account: their own,
	// which get_me, the times shown in their time zone and their mention
	// keys read, and an author's, for the names shown beside posts. It
	// decides no access (a deactivation is heard apart: transport's
	// activeFor; whom a caller may see is asked per call): a changed name
	// or time zone shows that late.
	accountFor = 5 * time.Second
	// maxAccountsKept bounds the accounts kept, about 1 KiB each.
	maxAccountsKept = 5000
)

func newAccounts() *expiring.Map[string, *model.User] {
	return expiring.New[string, *model.User](accountFor, maxAccountsKept)
}

// keptAccount is the account of userID as this node read it within
// accountFor. It is shared: read it, or change a copy (Caller.shown makes
// one).
func (g *Gateway) keptAccount(userID string) (*model.User, error) {
	now := time.Now()
	if u, ok := g.accounts.Get(userID, now); ok {
		return u, nil
	}
	u, err := g.api.User.Get(userID)
	if err != nil {
		return nil, err
	}
	g.accounts.Put(userID, u, now)
	return u, nil
}

// keptAccounts are the accounts of ids, those this node read within
// accountFor and the rest read in one round trip; ids Mattermost does not
// know are left out. They are shared, as keptAccount's.
func (g *Gateway) keptAccounts(ids []string) ([]*model.User, error) {
	now := time.Now()
	out := make([]*model.User, 0, len(ids))
	var missing []string
	for _, id := range ids {
		if u, ok := g.accounts.Get(id, now); ok {
			out = append(out, u)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	users, err := g.api.User.ListByUserIDs(missing)
	if err != nil {
		return out, err
	}
	for _, u := range users {
		g.accounts.Put(u.Id, u, now)
		out = append(out, u)
	}
	return out, nil
}

// keptSystemPermissions are the system permissions whose answer a node
// keeps for teamsFor: they only decide what of people is shown (whether
// the caller sees every member, and emails as an admin does), which nearly
// every read asks; a role taken away shows for that long.
var keptSystemPermissions = map[string]bool{model.PermissionViewMembers.Id: true, model.PermissionManageSystem.Id: true}

func newSystemPermissions() *expiring.Map[[2]string, bool] {
	return expiring.New[[2]string, bool](teamsFor, maxSystemPermissionsKept)
}

// systemPermission asks Mattermost whether the caller holds a system
// permission, or takes the answer this node kept (keptSystemPermissions).
func (c *Caller) systemPermission(p *model.Permission) bool {
	if !keptSystemPermissions[p.Id] {
		return c.g.api.User.HasPermissionTo(c.userID, p)
	}
	key, now := [2]string{c.userID, p.Id}, time.Now()
	if ok, found := c.g.systemPerms.Get(key, now); found {
		return ok
	}
	ok := c.g.api.User.HasPermissionTo(c.userID, p)
	c.g.systemPerms.Put(key, ok, now)
	return ok
}

func newTeamsByID() *expiring.Map[string, model.Team] {
	return expiring.New[string, model.Team](teamFor, maxTeamsByID)
}

// keptTeamByID is a team by its id as this node read it within teamFor.
func (g *Gateway) keptTeamByID(id string) (*model.Team, error) {
	now := time.Now()
	if t, ok := g.teamsByID.Get(id, now); ok {
		return &t, nil
	}
	t, err := g.api.Team.Get(id)
	if err != nil {
		return nil, err
	}
	g.teamsByID.Put(id, *t, now)
	return t, nil
}

func newTeamsCache() *expiring.Map[string, []Membership] {
	return expiring.New[string, []Membership](teamsFor, maxTeamsKept)
}

// keptTeams reads the caller's teams through the node's copy (the callers
// of myTeams get copies of the teams, so the kept ones stay as read).
func (c *Caller) keptTeams() ([]Membership, error) {
	now := time.Now()
	if mine, ok := c.g.teams.Get(c.userID, now); ok {
		return mine, nil
	}
	mine, err := c.readTeams()
	if err != nil {
		return nil, err
	}
	c.g.teams.Put(c.userID, mine, now)
	return mine, nil
}

// keptTeam is one of the caller's teams from their teams as this call or
// this node already read them, without asking Mattermost anything: when
// they were not read, reading them all would cost more than the one team.
func (c *Caller) keptTeam(teamID string) (*model.Team, bool) {
	c.memo.mu.Lock()
	mine := c.memo.mine
	c.memo.mu.Unlock()
	if mine == nil {
		var ok bool
		if mine, ok = c.g.teams.Get(c.userID, time.Now()); !ok {
			return nil, false
		}
	}
	for _, m := range mine {
		if m.Team.Id == teamID && m.Team.DeleteAt == 0 {
			t := *m.Team
			return &t, true
		}
	}
	return nil, false
}

// ForgetPerson drops what this node kept of a person whose teams or
// channels changed: their teams and the two system permissions.
func (g *Gateway) ForgetPerson(userID string) {
	g.teams.Drop(userID)
	g.systemPerms.Drop([2]string{userID, model.PermissionViewMembers.Id}, [2]string{userID, model.PermissionManageSystem.Id})
}
