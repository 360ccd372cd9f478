package mattermost

import (
	"sync"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// A Caller lives for one tool call, and within one call the same channel,
// team, membership or permission is often asked several times (a file's
// channel when checking it and again for its permalink; a team for each of
// its channels). Each ask is a plugin API round trip that costs Mattermost
// more than the answer: memo answers the repeats from what the call
// already learned. It keeps only what one call reads: writes that change
// membership forget it (forget), a call that waits (for the person to
// confirm a write) asks again after memoFor, and the next call starts
// afresh.
type memo struct {
	mu sync.Mutex
	// since is when the first of these answers was read.
	since    time.Time
	channels map[string]*model.Channel
	teams    map[string]*model.Team
	members  map[[2]string]*model.TeamMember
	perms    map[permAsk]bool
	// mine is the caller's teams (Teams), when read.
	mine []Membership
	// threads are the thread rows PostMeta read with its roots' priority
	// (threadsOf names the roots asked), for Threads to answer from.
	threads   map[string]Thread
	threadsOf map[string]bool
}

// memoFor bounds how long a call trusts what it read: a read call takes
// well under a second; a write that waited a minute for the person checks
// again what it checked before.
const memoFor = 5 * time.Second

// fresh drops the answers once they are older than memoFor; the caller
// holds mu.
func (m *memo) fresh() {
	now := time.Now()
	if m.since.IsZero() || now.Sub(m.since) > memoFor {
		m.since = now
		m.channels, m.teams, m.members, m.perms, m.mine = nil, nil, nil, nil, nil
		m.threads, m.threadsOf = nil, nil
	}
}

// permAsk is one permission asked of the caller, on a channel, a team or
// the system ("" for both).
type permAsk struct {
	channelID, teamID, permission string
}

// forget drops what the call learned, after a write that changed it.
func (c *Caller) forget() {
	c.memo.mu.Lock()
	defer c.memo.mu.Unlock()
	c.memo.since = time.Time{}
}

// channel is the channel with that id, read once per call; each caller
// gets its own copy, so none can change another's.
func (c *Caller) channel(id string) (*model.Channel, error) {
	c.memo.mu.Lock()
	c.memo.fresh()
	ch, ok := c.memo.channels[id]
	c.memo.mu.Unlock()
	if !ok {
		var err error
		if ch, err = c.g.api.Channel.Get(id); err != nil {
			return nil, err
		}
		c.memo.mu.Lock()
		if c.memo.channels == nil {
			c.memo.channels = map[string]*model.Channel{}
		}
		c.memo.channels[id] = ch
		c.memo.mu.Unlock()
	}
	cp := *ch
	return &cp, nil
}

// team is the team with that id, read once per call (a copy, as channel).
func (c *Caller) team(id string) (*model.Team, error) {
	c.memo.mu.Lock()
	c.memo.fresh()
	t, ok := c.memo.teams[id]
	c.memo.mu.Unlock()
	if !ok {
		var err error
		if t, err = c.g.keptTeamByID(id); err != nil {
			return nil, err
		}
		c.memo.mu.Lock()
		if c.memo.teams == nil {
			c.memo.teams = map[string]*model.Team{}
		}
		c.memo.teams[id] = t
		c.memo.mu.Unlock()
	}
	cp := *t
	return &cp, nil
}

// teamMember is someone's membership of a team, read once per call (a copy).
func (c *Caller) teamMember(teamID, userID string) (*model.TeamMember, error) {
	key := [2]string{teamID, userID}
	c.memo.mu.Lock()
	c.memo.fresh()
	m, ok := c.memo.members[key]
	c.memo.mu.Unlock()
	if !ok {
		var err error
		if m, err = c.g.api.Team.GetMember(teamID, userID); err != nil {
			return nil, err
		}
		c.memo.mu.Lock()
		if c.memo.members == nil {
			c.memo.members = map[[2]string]*model.TeamMember{}
		}
		c.memo.members[key] = m
		c.memo.mu.Unlock()
	}
	cp := *m
	return &cp, nil
}

// may answers whether the caller has a permission, asked once per call:
// on channelID when given, else on teamID when given, else system-wide.
func (c *Caller) may(channelID, teamID string, p *model.Permission) bool {
	key := permAsk{channelID: channelID, teamID: teamID, permission: p.Id}
	c.memo.mu.Lock()
	c.memo.fresh()
	ok, seen := c.memo.perms[key]
	c.memo.mu.Unlock()
	if seen {
		return ok
	}
	switch {
	case channelID != "":
		ok = c.g.api.User.HasPermissionToChannel(c.userID, channelID, p)
	case teamID != "":
		ok = c.g.api.User.HasPermissionToTeam(c.userID, teamID, p)
	default:
		ok = c.systemPermission(p)
	}
	c.memo.mu.Lock()
	if c.memo.perms == nil {
		c.memo.perms = map[permAsk]bool{}
	}
	c.memo.perms[key] = ok
	c.memo.mu.Unlock()
	return ok
}

// myTeams is the caller's teams, read once per call (copies, as channel).
func (c *Caller) myTeams(read func() ([]Membership, error)) ([]Membership, error) {
	c.memo.mu.Lock()
	c.memo.fresh()
	mine := c.memo.mine
	c.memo.mu.Unlock()
	if mine == nil {
		var err error
		if mine, err = read(); err != nil {
			return nil, err
		}
		c.memo.mu.Lock()
		c.memo.mine = mine
		c.memo.mu.Unlock()
	}
	out := make([]Membership, len(mine))
	for i, m := range mine {
		t := *m.Team
		out[i] = Membership{Team: &t, Roles: m.Roles}
	}
	return out, nil
}
