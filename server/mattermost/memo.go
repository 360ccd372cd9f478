package mattermost

import (
	"fmt"
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
	// listed is the caller's channels of a team, archived ones included,
	// by team id (teamListed).
	listed map[string][]*model.Channel
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
		m.channels, m.teams, m.members, m.perms, m.mine, m.listed = nil, nil, nil, nil, nil, nil
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
	return remembered(c, &c.memo.channels, id, c.g.api.Channel.Get)
}

// team is the team with that id, read once per call (a copy, as channel).
func (c *Caller) team(id string) (*model.Team, error) {
	return remembered(c, &c.memo.teams, id, c.g.keptTeamByID)
}

// teamMember is someone's membership of a team, read once per call (a copy).
func (c *Caller) teamMember(teamID, userID string) (*model.TeamMember, error) {
	return remembered(c, &c.memo.members, [2]string{teamID, userID}, func(key [2]string) (*model.TeamMember, error) {
		return c.g.api.Team.GetMember(key[0], key[1])
	})
}

// remembered is what read answers for key, asked once per call and kept in
// the call's map m; the caller gets a copy of its own.
func remembered[K comparable, V any](c *Caller, m *map[K]*V, key K, read func(K) (*V, error)) (*V, error) {
	c.memo.mu.Lock()
	c.memo.fresh()
	v, ok := (*m)[key]
	c.memo.mu.Unlock()
	if !ok {
		var err error
		if v, err = read(key); err != nil {
			return nil, err
		}
		c.memo.mu.Lock()
		if *m == nil {
			*m = map[K]*V{}
		}
		(*m)[key] = v
		c.memo.mu.Unlock()
	}
	cp := *v
	return &cp, nil
}

// teamListed is the caller's channels of a team with its direct and group
// messages, archived ones included, listed once per call; each caller gets
// copies of the channels, as channel.
func (c *Caller) teamListed(teamID string) ([]*model.Channel, error) {
	c.memo.mu.Lock()
	c.memo.fresh()
	listed, ok := c.memo.listed[teamID]
	c.memo.mu.Unlock()
	if !ok {
		var err error
		if listed, err = c.g.api.Channel.ListForTeamForUser(teamID, c.userID, true); err != nil && !isNotFound(err) {
			return nil, fmt.Errorf("list the caller's channels: %w", err)
		}
		c.memo.mu.Lock()
		if c.memo.listed == nil {
			c.memo.listed = map[string][]*model.Channel{}
		}
		c.memo.listed[teamID] = listed
		c.memo.mu.Unlock()
	}
	out := make([]*model.Channel, len(listed))
	for i, ch := range listed {
		cp := *ch
		out[i] = &cp
	}
	return out, nil
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
