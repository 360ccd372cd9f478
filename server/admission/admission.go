// Package admission decides who may connect an MCP client: everyone, or
// only members of the teams or groups an admin lists, and guests only when
// the admin lets them. It is a pure rule over the settings and what is
// known of the person; reading memberships is the caller's business, and
// Needs says which of them the settings read at all.
package admission

import (
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// Refusal reasons, as the audit trail records them.
const (
	// ReasonNotInTeams: the admin lets only members of chosen teams connect
	// and the person belongs to none of them.
	ReasonNotInTeams = "not_in_teams"
	// ReasonNotInGroups: the admin lets only members of chosen groups
	// connect and the person belongs to none of them.
	ReasonNotInGroups = "not_in_groups"
	// ReasonGuest: the person is a guest and the admin lets no guests
	// connect.
	ReasonGuest = "guest"
	// ReasonDeactivated: the account is deactivated or no longer exists.
	// Not the rule's (Decide never answers it): whoever asks checks the
	// account first, and records a refusal for it under this code.
	ReasonDeactivated = "deactivated"
)

// Need is which facts about a person a configuration reads; a bit mask.
type Need uint8

const (
	// NeedGuest is whether the person is a guest.
	NeedGuest Need = 1 << iota
	// NeedTeams is the teams the person is an active member of.
	NeedTeams
	// NeedGroups is the groups the person is a member of.
	NeedGroups
)

// Needs is what c reads of a person: nothing when everyone, guests
// included, may connect.
func Needs(c config.Configuration) Need {
	var n Need
	if !c.AllowGuests {
		n |= NeedGuest
	}
	switch c.ConnectAccess {
	case config.ConnectTeams:
		n |= NeedTeams
	case config.ConnectGroups:
		n |= NeedGroups
	}
	return n
}

// Named is a team or group the person belongs to, by id and name.
type Named struct {
	ID   string
	Name string
}

// Facts are what is known of the person; only what Needs asked for is
// read, the rest is left zero.
type Facts struct {
	// Has is which of the facts below were read.
	Has    Need
	Guest  bool
	Teams  []Named
	Groups []Named
}

// Verdict is the answer for one person.
type Verdict struct {
	Allowed bool
	// Reason is the refusal's code (Reason*), empty when allowed.
	Reason string
	// Message is the one line the person reads when refused.
	Message string
}

// Allowed is the verdict for a person who may connect.
var Allowed = Verdict{Allowed: true}

// askAdmin is what every refusal tells the person to do: the setting is
// named as the System Console shows it, so the admin finds it.
const askAdmin = "ask your Mattermost admin to let you connect an AI client (System Console > Plugins > MCP Server > "

// Decide answers whether the person with facts f may connect under c. A
// guest when guests are off is refused whoever else may connect. A fact
// c needs but f lacks counts as not belonging: the caller reads what
// Needs(c) says.
func Decide(c config.Configuration, f Facts) Verdict {
	if !c.AllowGuests && (f.Guest || f.Has&NeedGuest == 0) {
		return Verdict{Reason: ReasonGuest, Message: "Your Mattermost admin has not enabled MCP for guest accounts, so this AI client may not connect as you: " +
			askAdmin + "Guests may connect)."}
	}
	switch c.ConnectAccess {
	case config.ConnectTeams:
		if !listed(c.ConnectTeamList(), f.Teams) {
			return Verdict{Reason: ReasonNotInTeams, Message: "Your Mattermost admin has not enabled MCP for you (only members of chosen teams may connect an AI client): " +
				askAdmin + "Who may connect)."}
		}
	case config.ConnectGroups:
		if !listed(c.ConnectGroupList(), f.Groups) {
			return Verdict{Reason: ReasonNotInGroups, Message: "Your Mattermost admin has not enabled MCP for you (only members of chosen groups may connect an AI client): " +
				askAdmin + "Who may connect)."}
		}
	}
	return Allowed
}

// listed reports whether any membership is on the admin's list (lower
// case, as config keeps it). An entry in the form of an id (IsID) is an
// id and matches a team's or group's id only; any other entry is a name
// and matches a name only. Names are chosen by whoever creates a team or
// a custom group, ids by Mattermost: were an id entry also compared with
// names, anyone who may create a team could name theirs after a listed
// team's id and be let in.
func listed(list []string, memberships []Named) bool {
	for _, l := range list {
		byID := IsID(l)
		for _, m := range memberships {
			if byID && l == strings.ToLower(m.ID) || !byID && m.Name != "" && l == strings.ToLower(m.Name) {
				return true
			}
		}
	}
	return false
}

// IsID reports whether an entry of the admin's lists is an id: Mattermost's
// shape of one (26 letters or digits). Every such entry is an id, so a team
// or group whose name has that shape can be listed by its id only.
func IsID(entry string) bool { return model.IsValidId(entry) }
