package admission

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// settings parses the System Console's values as the plugin does, so the
// lists are what config makes of them (lower case, "@" dropped).
func settings(t *testing.T, values map[string]any) config.Configuration {
	t.Helper()
	c, err := config.Parse(values)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	engID    = "k3d9qzq5tpf8dm1e7wc4xnuy6a"
	salesID  = "ba8w1mfo3jg7x5tyr4nhzcq2ep"
	pilotsID = "p1l0tsgr0up1dxxxxxxxxxxxxx"
)

var (
	engineering = Named{ID: engID, Name: "engineering"}
	sales       = Named{ID: salesID, Name: "sales"}
	pilots      = Named{ID: pilotsID, Name: "AI-Pilots"}
	all         = NeedGuest | NeedTeams | NeedGroups
)

func TestWhoMayConnectFollowsTheModeTheListsAndTheGuestSwitch(t *testing.T) {
	cases := []struct {
		name     string
		settings map[string]any
		facts    Facts
		reason   string // "" for allowed
	}{
		{"everyone lets a member of no team in", map[string]any{}, Facts{Has: all}, ""},
		{"everyone lets a guest in when guests may connect", map[string]any{}, Facts{Has: all, Guest: true}, ""},
		{"everyone refuses a guest when guests may not connect", map[string]any{"AllowGuests": false}, Facts{Has: all, Guest: true}, ReasonGuest},
		{"everyone lets a non-guest in when guests may not connect", map[string]any{"AllowGuests": false}, Facts{Has: all}, ""},

		{"teams by name lets a member in", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering"}, Facts{Has: all, Teams: []Named{sales, engineering}}, ""},
		{"teams by id lets a member in", map[string]any{"ConnectAccess": "teams", "ConnectTeams": engID}, Facts{Has: all, Teams: []Named{engineering}}, ""},
		{"teams listed in upper case match", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "Marketing, ENGINEERING"}, Facts{Has: all, Teams: []Named{engineering}}, ""},
		{"teams match a team id in upper case", map[string]any{"ConnectAccess": "teams", "ConnectTeams": strings.ToUpper(engID)}, Facts{Has: all, Teams: []Named{engineering}}, ""},
		{"teams refuse a member of other teams", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering"}, Facts{Has: all, Teams: []Named{sales}}, ReasonNotInTeams},
		{"teams refuse a member of no team", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering"}, Facts{Has: all}, ReasonNotInTeams},
		{"teams do not count a group of the listed name", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "ai-pilots"}, Facts{Has: all, Groups: []Named{pilots}}, ReasonNotInTeams},
		{"teams let a guest member in when guests may connect", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering"}, Facts{Has: all, Guest: true, Teams: []Named{engineering}}, ""},
		{"teams refuse a guest member when guests may not connect", map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering", "AllowGuests": false}, Facts{Has: all, Guest: true, Teams: []Named{engineering}}, ReasonGuest},

		{"groups by name lets a member in", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots"}, Facts{Has: all, Groups: []Named{pilots}}, ""},
		{"groups by mention lets a member in", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "@AI-Pilots"}, Facts{Has: all, Groups: []Named{pilots}}, ""},
		{"groups by id lets a member in", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "other " + pilotsID}, Facts{Has: all, Groups: []Named{pilots}}, ""},
		{"groups refuse a member of other groups", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots"}, Facts{Has: all, Groups: []Named{{ID: salesID, Name: "sales"}}}, ReasonNotInGroups},
		{"groups refuse a member of no group", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots"}, Facts{Has: all}, ReasonNotInGroups},
		{"groups do not count a team of the listed name", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "engineering"}, Facts{Has: all, Teams: []Named{engineering}}, ReasonNotInGroups},
		{"groups do not match a group without a name by an empty entry", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots"}, Facts{Has: all, Groups: []Named{{ID: salesID}}}, ReasonNotInGroups},
		{"groups refuse a guest member when guests may not connect", map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots", "AllowGuests": false}, Facts{Has: all, Guest: true, Groups: []Named{pilots}}, ReasonGuest},

		{"guests off refuses when whether the person is a guest was not read", map[string]any{"AllowGuests": false}, Facts{Has: NeedTeams | NeedGroups}, ReasonGuest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Decide(settings(t, tc.settings), tc.facts)
			if tc.reason == "" {
				if !v.Allowed || v.Reason != "" || v.Message != "" {
					t.Fatalf("refused: %+v", v)
				}
				return
			}
			if v.Allowed || v.Reason != tc.reason {
				t.Fatalf("got %+v, want refused for %q", v, tc.reason)
			}
			if strings.Contains(v.Message, "\n") || !strings.HasPrefix(v.Message, "Your Mattermost admin has not enabled MCP for") ||
				!strings.Contains(v.Message, "ask your Mattermost admin to let you connect an AI client (System Console > Plugins > MCP Server > ") {
				t.Fatalf("the line the person reads: %q", v.Message)
			}
		})
	}
}

func TestARefusalNamesNoListedTeamOrGroup(t *testing.T) {
	for _, values := range []map[string]any{
		{"ConnectAccess": "teams", "ConnectTeams": "secret-board"},
		{"ConnectAccess": "groups", "ConnectGroups": "secret-board"},
	} {
		v := Decide(settings(t, values), Facts{Has: all})
		if v.Allowed || strings.Contains(v.Message, "secret-board") {
			t.Fatalf("%v: %+v", values, v)
		}
	}
}

func TestTheSettingsNeedOnlyTheFactsTheyRead(t *testing.T) {
	cases := []struct {
		settings map[string]any
		want     Need
	}{
		{map[string]any{}, 0},
		{map[string]any{"AllowGuests": false}, NeedGuest},
		{map[string]any{"ConnectAccess": "teams", "ConnectTeams": "engineering"}, NeedTeams},
		{map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots"}, NeedGroups},
		{map[string]any{"ConnectAccess": "groups", "ConnectGroups": "ai-pilots", "AllowGuests": false}, NeedGroups | NeedGuest},
	}
	for _, tc := range cases {
		if got := Needs(settings(t, tc.settings)); got != tc.want {
			t.Errorf("%v needs %b, want %b", tc.settings, got, tc.want)
		}
	}
}

func TestAnEntryInTheFormOfAnIdMatchesIdsOnlyAndAnyOtherEntryNamesOnly(t *testing.T) {
	// lookalike is a team or group whose name someone chose to be a listed id.
	lookalike := func(id string) Named { return Named{ID: "zzzzzzzzzzzzzzzzzzzzzzzzzz", Name: id} }
	cases := []struct {
		name    string
		access  string
		entries string
		member  Named
		allowed bool
	}{
		{"a team listed by id lets its member in", "teams", engID, engineering, true},
		{"a team listed by id in upper case lets its member in", "teams", strings.ToUpper(engID), engineering, true},
		{"a team named after the listed id does not let its member in", "teams", engID, lookalike(engID), false},
		{"a team named after the listed id in upper case does not let its member in", "teams", strings.ToUpper(engID), lookalike(engID), false},
		{"a team named after the listed id in upper case is no match either", "teams", engID, Named{ID: salesID, Name: strings.ToUpper(engID)}, false},
		{"a team listed by name lets its member in", "teams", "engineering", engineering, true},
		{"a team listed by name in upper case lets its member in", "teams", "ENGINEERING", engineering, true},
		{"a name matches no team whose id it is", "teams", "engineering", Named{ID: "engineering", Name: "sales"}, false},
		{"a name matches a whole name only", "teams", "engineer", engineering, false},
		{"a name one character short of an id's form is a name", "teams", engID[:25], Named{ID: salesID, Name: engID[:25]}, true},
		{"a name of an id's length with a hyphen is a name", "teams", "k3d9qzq5tp-8dm1e7wc4xnuy6a", Named{ID: salesID, Name: "k3d9qzq5tp-8dm1e7wc4xnuy6a"}, true},

		{"a group listed by id lets its member in", "groups", pilotsID, pilots, true},
		{"a group listed by id as a mention lets its member in", "groups", "@" + pilotsID, pilots, true},
		{"a group named after the listed id does not let its member in", "groups", pilotsID, lookalike(pilotsID), false},
		{"a group named after the listed id, listed as a mention, does not let its member in", "groups", "@" + strings.ToUpper(pilotsID), lookalike(pilotsID), false},
		{"a group listed by name lets its member in", "groups", "ai-pilots", pilots, true},
		{"a group name matches no group whose id it is", "groups", "ai-pilots", Named{ID: "ai-pilots", Name: "crew"}, false},
		{"a group without a name is matched by its id only", "groups", pilotsID, Named{ID: pilotsID}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			values := map[string]any{"ConnectAccess": tc.access, "ConnectTeams": tc.entries}
			f := Facts{Has: all, Teams: []Named{tc.member}}
			if tc.access == "groups" {
				values = map[string]any{"ConnectAccess": tc.access, "ConnectGroups": tc.entries}
				f = Facts{Has: all, Groups: []Named{tc.member}}
			}
			if v := Decide(settings(t, values), f); v.Allowed != tc.allowed {
				t.Fatalf("%q with %+v: %+v", tc.entries, tc.member, v)
			}
		})
	}
}

func TestAnIdIsMattermostsShapeOfOne(t *testing.T) {
	for entry, want := range map[string]bool{
		engID:                        true,
		"zzzzzzzzzzzzzzzzzzzzzzzzzz": true,
		engID[:25]:                   false,
		engID + "a":                  false,
		"k3d9qzq5tp-8dm1e7wc4xnuy6a": false,
		"k3d9qzq5tp_8dm1e7wc4xnuy6a": false,
		"engineering":                false,
		"":                           false,
	} {
		if got := IsID(entry); got != want {
			t.Errorf("IsID(%q) = %v", entry, got)
		}
	}
}
