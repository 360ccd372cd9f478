package mattermost

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
)

const (
	// admissionFor is how long this node answers who a person is (guest or
	// not, their teams and groups) from what it read, for the rule of who
	// may connect: every MCP request is checked, and reading them each time
	// costs up to three plugin API round trips. A change of membership or
	// role applies within this; a change of the setting applies at once,
	// since the rule is asked again on every request. plugin.json's help
	// text states it.
	admissionFor = time.Minute
	// maxAdmissionPeople bounds the people whose facts a node holds: more
	// people than this active within a minute on one node are read again.
	maxAdmissionPeople = 5_000
	// maxHeldMemberships bounds the teams, and the groups, held for one
	// person: the facts of someone in more are read on every request
	// rather than held, so the cache stays small and the answer exact.
	maxHeldMemberships = 64
)

// admissionCache is what this node read of people for the rule of who may
// connect, per person.
type admissionCache struct {
	mu     sync.Mutex
	people map[string]heldFacts
	// now is the clock; nil is time.Now (tests set another).
	now func() time.Time
}

func (c *admissionCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

type heldFacts struct {
	// at is when the oldest of the facts was read.
	at    time.Time
	facts admission.Facts
}

// AdmissionFacts reads what the rule of who may connect needs of a person
// (admission.Needs), from what this node read in the last minute where it
// can. Teams are the person's active memberships of teams not archived;
// groups the ones not deleted.
func (g *Gateway) AdmissionFacts(userID string, need admission.Need) (admission.Facts, error) {
	if need == 0 {
		return admission.Facts{}, nil
	}
	c := &g.admission
	now := c.clock()
	c.mu.Lock()
	held, ok := c.people[userID]
	c.mu.Unlock()
	if !ok || now.Sub(held.at) >= admissionFor || now.Before(held.at) {
		held = heldFacts{at: now}
	}
	missing := need &^ held.facts.Has
	if missing == 0 {
		return held.facts, nil
	}
	f, err := g.readFacts(userID, missing)
	if err != nil {
		return admission.Facts{}, err
	}
	merged := held.facts
	merged.Has |= f.Has
	if f.Has&admission.NeedGuest != 0 {
		merged.Guest = f.Guest
	}
	if f.Has&admission.NeedTeams != 0 {
		merged.Teams = f.Teams
	}
	if f.Has&admission.NeedGroups != 0 {
		merged.Groups = f.Groups
	}
	if len(merged.Teams) <= maxHeldMemberships && len(merged.Groups) <= maxHeldMemberships {
		c.hold(userID, heldFacts{at: held.at, facts: merged}, now)
	}
	return merged, nil
}

// hold keeps a person's facts: past the bound the expired ones go, and
// when none has expired, all.
func (c *admissionCache) hold(userID string, h heldFacts, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.people == nil {
		c.people = map[string]heldFacts{}
	}
	if _, ok := c.people[userID]; !ok && len(c.people) >= maxAdmissionPeople {
		for id, p := range c.people {
			if now.Sub(p.at) >= admissionFor {
				delete(c.people, id)
			}
		}
		if len(c.people) >= maxAdmissionPeople {
			clear(c.people)
		}
	}
	c.people[userID] = h
}

// readFacts asks Mattermost for the facts in need.
func (g *Gateway) readFacts(userID string, need admission.Need) (admission.Facts, error) {
	f := admission.Facts{Has: need}
	if need&admission.NeedGuest != 0 {
		u, err := g.api.User.Get(userID)
		if err != nil {
			return f, fmt.Errorf("read the user's roles: %w", err)
		}
		f.Guest = u.IsGuest()
	}
	if need&admission.NeedTeams != 0 {
		// Mattermost lists only active memberships of teams not archived,
		// with their names, in one round trip.
		teams, appErr := g.raw.GetTeamsForUser(userID)
		if appErr != nil {
			return f, fmt.Errorf("list the user's teams: %w", appErr)
		}
		for _, t := range teams {
			if t.DeleteAt == 0 {
				f.Teams = append(f.Teams, admission.Named{ID: t.Id, Name: t.Name})
			}
		}
	}
	if need&admission.NeedGroups != 0 {
		groups, appErr := g.raw.GetGroupsForUser(userID)
		if appErr != nil {
			return f, fmt.Errorf("list the user's groups: %w", appErr)
		}
		for _, gr := range groups {
			// Mattermost lists a deleted group with its members kept.
			if gr.DeleteAt == 0 {
				f.Groups = append(f.Groups, admission.Named{ID: gr.Id, Name: gr.GetName()})
			}
		}
	}
	return f, nil
}

// maxGroupsCompared bounds the groups an entry that names none is compared
// with for the nearest names: the check runs while the admin saves, and a
// directory with more groups than this is rare (the nearest are then
// looked for among the first ones).
const maxGroupsCompared = 1_000

// TeamDirectory is this Mattermost's teams, for the check of the admin's
// list of teams when the settings are saved.
func (g *Gateway) TeamDirectory() admission.Directory { return teamDirectory{g.raw} }

// GroupDirectory is this Mattermost's groups, for the check of the admin's
// list of groups when the settings are saved.
func (g *Gateway) GroupDirectory() admission.Directory { return groupDirectory{g.raw} }

type teamDirectory struct{ api plugin.API }

func teamListing(t *model.Team) admission.Listing {
	return admission.Listing{Named: admission.Named{ID: t.Id, Name: t.Name}, Display: t.DisplayName, Gone: t.DeleteAt != 0}
}

// found is a lookup's answer: Mattermost's 404 is no such team or group.
func found[T any](v T, appErr *model.AppError, listing func(T) admission.Listing) (admission.Listing, bool, error) {
	if appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return admission.Listing{}, false, nil
		}
		return admission.Listing{}, false, appErr
	}
	return listing(v), true, nil
}

func (d teamDirectory) ByID(id string) (admission.Listing, bool, error) {
	t, appErr := d.api.GetTeam(id)
	return found(t, appErr, teamListing)
}

func (d teamDirectory) ByName(name string) (admission.Listing, bool, error) {
	t, appErr := d.api.GetTeamByName(name)
	return found(t, appErr, teamListing)
}

func (d teamDirectory) All() ([]admission.Listing, error) {
	teams, appErr := d.api.GetTeams()
	if appErr != nil {
		return nil, appErr
	}
	out := make([]admission.Listing, len(teams))
	for i, t := range teams {
		out[i] = teamListing(t)
	}
	return out, nil
}

type groupDirectory struct{ api plugin.API }

func groupListing(gr *model.Group) admission.Listing {
	return admission.Listing{Named: admission.Named{ID: gr.Id, Name: gr.GetName()}, Display: gr.DisplayName, Gone: gr.DeleteAt != 0}
}

func (d groupDirectory) ByID(id string) (admission.Listing, bool, error) {
	gr, appErr := d.api.GetGroup(id)
	return found(gr, appErr, groupListing)
}

func (d groupDirectory) ByName(name string) (admission.Listing, bool, error) {
	gr, appErr := d.api.GetGroupByName(name)
	return found(gr, appErr, groupListing)
}

// All is the LDAP groups, then the custom ones: the plugin API lists all
// groups only with an LDAP licence, the groups of one source without.
func (d groupDirectory) All() ([]admission.Listing, error) {
	var out []admission.Listing
	for _, source := range []model.GroupSource{model.GroupSourceLdap, model.GroupSourceCustom} {
		groups, appErr := d.api.GetGroupsBySource(source)
		if appErr != nil {
			return nil, appErr
		}
		for _, gr := range groups {
			if len(out) == maxGroupsCompared {
				return out, nil
			}
			out = append(out, groupListing(gr))
		}
	}
	return out, nil
}
