package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Who may connect: the tests change the settings (applied on the next
// request) and use people made for them, never a change of membership of
// someone the plugin already read (it holds what it read for a minute).
// They start the second node, so this file sorts after cluster_test.go,
// the first to start it: the tests before run on one node as they expect.

// whoMayConnect saves the settings of who may connect for one test and
// lets everyone, guests included, connect again after it: other tests
// share the server. Both nodes run, so that each refuses on its own.
func whoMayConnect(t *testing.T, settings map[string]any) {
	t.Helper()
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v (log %s)", err, mm.ServerLog())
	}
	if n := len(mm.NodeURLs()); n != 2 {
		t.Fatalf("%d nodes run, want 2", n)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ConnectAccess": nil, "ConnectTeams": nil, "ConnectGroups": nil, "AllowGuests": nil}); err != nil {
			t.Errorf("let everyone connect again: %v", err)
		}
	})
	if err := mm.PatchPluginSettings(settings); err != nil {
		t.Fatal(err)
	}
}

// refusal is the one line the rule gives a person refused for reason
// under settings.
func refusal(t *testing.T, settings map[string]any, reason string) string {
	t.Helper()
	c, err := config.Parse(settings)
	if err != nil {
		t.Fatal(err)
	}
	f := admission.Facts{Has: admission.NeedGuest | admission.NeedTeams | admission.NeedGroups, Guest: reason == admission.ReasonGuest}
	v := admission.Decide(c, f)
	if v.Reason != reason || v.Message == "" {
		t.Fatalf("the rule gives %+v, want a refusal for %s", v, reason)
	}
	return v.Message
}

// refusedEverywhere checks that u gets 403 on every node, with the one
// line want and nothing else: on /mcp as a JSON-RPC error without id and
// without a session, on the workspace API as plain text.
func refusedEverywhere(t *testing.T, u harness.User, want string) {
	t.Helper()
	for _, node := range mm.NodeURLs() {
		var code int
		var h http.Header
		var body string
		eventually(t, u.Username+" is refused on "+node, func() bool {
			code, h, body = rawPost(t, http.MethodPost, mcpURL(node), u.Token, initializeAs(legacyVersion), nil)
			return code == http.StatusForbidden
		})
		var answer rpcAnswer
		if err := json.Unmarshal([]byte(body), &answer); err != nil || answer.Error == nil || answer.Result != nil ||
			string(answer.ID) != "null" || answer.Error.Message != want || h.Get(server.HeaderKeySessionID) != "" {
			t.Fatalf("%s's initialize on %s: %d %s", u.Username, node, code, body)
		}
		files := strings.TrimRight(node, "/") + "/plugins/mcp-server" + workspace.APIPath
		code, _, body = rawPost(t, http.MethodGet, files, u.Token, "", nil)
		if code != http.StatusForbidden || strings.TrimSpace(body) != want {
			t.Fatalf("%s on the workspace API of %s: %d %q", u.Username, node, code, body)
		}
	}
}

// servedEverywhere checks that u opens a session on every node, and that a
// tool call answers as u.
func servedEverywhere(t *testing.T, u harness.User) {
	t.Helper()
	for _, node := range mm.NodeURLs() {
		eventually(t, u.Username+" is served on "+node, func() bool {
			code, h, _ := rawPost(t, http.MethodPost, mcpURL(node), u.Token, initializeAs(legacyVersion), nil)
			return code == http.StatusOK && h.Get(server.HeaderKeySessionID) != ""
		})
	}
	var me tools.Me
	res := call(t, connect(t, mm.URL, u.Token), "get_me", nil)
	structuredAs(t, res, &me)
	if res.IsError || me.UserID != u.ID {
		t.Fatalf("get_me as %s: %s", u.Username, text(res))
	}
}

func TestOnlyMembersOfTheListedTeamsConnectByTeamNameOrId(t *testing.T) {
	ctx := context.Background()
	team, _, err := mm.Client(mm.Admin).CreateTeam(ctx, &model.Team{Name: uniq(t, "access-"), DisplayName: "Access", Type: model.TeamOpen})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := mm.Client(mm.Admin).CreateTeam(ctx, &model.Team{Name: uniq(t, "other-"), DisplayName: "Other", Type: model.TeamOpen})
	if err != nil {
		t.Fatal(err)
	}
	insider, outsider, leaver := newPerson(t, "insider"), newPerson(t, "outsider"), newPerson(t, "leaver")
	for _, u := range []harness.User{insider, leaver} {
		if _, _, err := mm.Client(mm.Admin).AddTeamMember(ctx, team.Id, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mm.Client(mm.Admin).RemoveTeamMember(ctx, team.Id, leaver.ID); err != nil {
		t.Fatal(err)
	}

	// By name, as the admin may type it.
	byName := map[string]any{"ConnectAccess": config.ConnectTeams, "ConnectTeams": other.Name + ", " + strings.ToUpper(team.Name)}
	whoMayConnect(t, byName)
	want := refusal(t, byName, admission.ReasonNotInTeams)
	refusedEverywhere(t, outsider, want)
	refusedEverywhere(t, leaver, want) // left the team: no active membership
	servedEverywhere(t, insider)

	// Another team only: the insider is refused too; then by id, served.
	if err := mm.PatchPluginSettings(map[string]any{"ConnectTeams": other.Name}); err != nil {
		t.Fatal(err)
	}
	refusedEverywhere(t, insider, want)
	if err := mm.PatchPluginSettings(map[string]any{"ConnectTeams": team.Id}); err != nil {
		t.Fatal(err)
	}
	servedEverywhere(t, insider)
	refusedEverywhere(t, outsider, want)
}

func TestOnlyMembersOfTheListedGroupsConnectByGroupNameOrId(t *testing.T) {
	member, other := newPerson(t, "member"), newPerson(t, "other")
	name, otherName := uniq(t, "pilots-"), uniq(t, "others-")
	groupID, err := mm.CreateGroup(context.Background(), name, member.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.CreateGroup(context.Background(), otherName); err != nil {
		t.Fatal(err)
	}

	byName := map[string]any{"ConnectAccess": config.ConnectGroups, "ConnectGroups": "@" + name}
	whoMayConnect(t, byName)
	want := refusal(t, byName, admission.ReasonNotInGroups)
	refusedEverywhere(t, other, want)
	servedEverywhere(t, member)

	if err := mm.PatchPluginSettings(map[string]any{"ConnectGroups": otherName}); err != nil {
		t.Fatal(err)
	}
	refusedEverywhere(t, member, want)
	if err := mm.PatchPluginSettings(map[string]any{"ConnectGroups": groupID}); err != nil {
		t.Fatal(err)
	}
	servedEverywhere(t, member)
	refusedEverywhere(t, other, want)
}

func TestAGuestIsRefusedWhenGuestsMayNotConnectEvenWhenEveryoneMayAndServedWhenTheyMay(t *testing.T) {
	guest, plain := newPerson(t, "guest"), newPerson(t, "plain")
	if err := mm.MakeGuest(context.Background(), guest.ID); err != nil {
		t.Fatal(err)
	}
	u, _, err := mm.Client(mm.Admin).GetUser(context.Background(), guest.ID, "")
	if err != nil || !u.IsGuest() {
		t.Fatalf("the guest reads back as %+v (%v)", u, err)
	}

	noGuests := map[string]any{"AllowGuests": false}
	whoMayConnect(t, noGuests)
	refusedEverywhere(t, guest, refusal(t, noGuests, admission.ReasonGuest))
	servedEverywhere(t, plain)

	if err := mm.PatchPluginSettings(map[string]any{"AllowGuests": true}); err != nil {
		t.Fatal(err)
	}
	servedEverywhere(t, guest)
}

// A team's name is chosen by whoever creates it, and any member may create
// teams by default: bob names his after the listed team's id. An entry in
// the form of an id is an id, so his team admits no one.
func TestATeamNamedAfterTheListedTeamsIdAdmitsNoOne(t *testing.T) {
	ctx := context.Background()
	listed, _, err := mm.Client(mm.Admin).CreateTeam(ctx, &model.Team{Name: uniq(t, "listed-"), DisplayName: "Listed", Type: model.TeamOpen})
	if err != nil {
		t.Fatal(err)
	}
	insider, bob := newPerson(t, "insider"), newPerson(t, "bob")
	if _, _, err := mm.Client(mm.Admin).AddTeamMember(ctx, listed.Id, insider.ID); err != nil {
		t.Fatal(err)
	}
	lookalike, _, err := mm.Client(bob).CreateTeam(ctx, &model.Team{Name: listed.Id, DisplayName: "Lookalike", Type: model.TeamInvite})
	if err != nil {
		t.Fatalf("bob creates a team named %s: %v", listed.Id, err)
	}
	if lookalike.Name != listed.Id || lookalike.Id == listed.Id {
		t.Fatalf("bob's team: %+v", lookalike)
	}

	byID := map[string]any{"ConnectAccess": config.ConnectTeams, "ConnectTeams": listed.Id}
	whoMayConnect(t, byID)
	refusedEverywhere(t, bob, refusal(t, byID, admission.ReasonNotInTeams))
	servedEverywhere(t, insider)
}

// A custom group's name may be any id-shaped text: a group named after the
// listed group's id admits no one.
func TestAGroupNamedAfterTheListedGroupsIdAdmitsNoOne(t *testing.T) {
	ctx := context.Background()
	member, bob := newPerson(t, "member"), newPerson(t, "bob")
	listedID, err := mm.CreateGroup(ctx, uniq(t, "listed-"), member.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.CreateGroup(ctx, listedID, bob.ID); err != nil {
		t.Fatalf("a group named %s with bob in it: %v", listedID, err)
	}

	byID := map[string]any{"ConnectAccess": config.ConnectGroups, "ConnectGroups": listedID}
	whoMayConnect(t, byID)
	refusedEverywhere(t, bob, refusal(t, byID, admission.ReasonNotInGroups))
	servedEverywhere(t, member)
}

// saveRefused saves settings through the System Console's own API (PUT
// /api/v4/config) and wants a 400 saying every one of want; the saved
// settings stay as they were.
func saveRefused(t *testing.T, settings map[string]any, want ...string) {
	t.Helper()
	ctx := context.Background()
	admin := mm.Client(mm.Admin)
	before, err := mm.PluginSettings()
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := admin.GetConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range settings {
		cfg.PluginSettings.Plugins[harness.PluginID][strings.ToLower(k)] = v
	}
	_, resp, err := admin.UpdateConfig(ctx, cfg)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("saving %v: %v (status %v)", settings, err, resp)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("saving %v: %q does not say %q", settings, err, w)
		}
	}
	after, err := mm.PluginSettings()
	if err != nil {
		t.Fatal(err)
	}
	for k := range settings {
		if settingValue(after, k) != settingValue(before, k) {
			t.Errorf("%s is %q after the refused save, was %q", k, settingValue(after, k), settingValue(before, k))
		}
	}
}

func TestSavingATeamOrGroupThatIsNoneIsRefusedNamingTheNearestOrWhatTheEntryIs(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ConnectTeams": nil, "ConnectGroups": nil}); err != nil {
			t.Errorf("clear the lists: %v", err)
		}
	})
	team, _, err := mm.Client(mm.Admin).CreateTeam(ctx, &model.Team{Name: uniq(t, "nearby-"), DisplayName: "Nearby", Type: model.TeamOpen})
	if err != nil {
		t.Fatal(err)
	}
	group := uniq(t, "crew-")
	if _, err := mm.CreateGroup(ctx, group); err != nil {
		t.Fatal(err)
	}
	// A team whose name has the form of an id, and no team has that id.
	bob, shaped := newPerson(t, "bob"), model.NewId()
	if _, _, err := mm.Client(bob).CreateTeam(ctx, &model.Team{Name: shaped, DisplayName: "Shaped", Type: model.TeamInvite}); err != nil {
		t.Fatal(err)
	}

	saveRefused(t, map[string]any{"ConnectTeams": team.Name + "x"},
		`"Teams whose members may connect" names "`+team.Name+`x", which is no team`, team.Name)
	saveRefused(t, map[string]any{"ConnectTeams": shaped},
		`"Teams whose members may connect" lists "`+shaped+`", which has the form of an id but is no team's id`, "matches ids only")
	saveRefused(t, map[string]any{"ConnectGroups": "@" + group + "x"},
		`"Groups whose members may connect" names "`+group+`x", which is no group`, group)
	saveRefused(t, map[string]any{"ConnectGroups": model.NewId()},
		`"Groups whose members may connect" lists`, "which has the form of an id but is no group's id")

	// What names a team or group is saved.
	whoMayConnect(t, map[string]any{"ConnectTeams": team.Name + ", " + team.Id, "ConnectGroups": "@" + group})
}
