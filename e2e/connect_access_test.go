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
	byName := map[string]any{"ConnectAccess": config.ConnectTeams, "ConnectTeams": "no-such-team, " + strings.ToUpper(team.Name)}
	whoMayConnect(t, byName)
	want := refusal(t, byName, admission.ReasonNotInTeams)
	refusedEverywhere(t, outsider, want)
	refusedEverywhere(t, leaver, want) // left the team: no active membership
	servedEverywhere(t, insider)

	// Another team only: the insider is refused too; then by id, served.
	if err := mm.PatchPluginSettings(map[string]any{"ConnectTeams": "no-such-team"}); err != nil {
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
	name := uniq(t, "pilots-")
	groupID, err := mm.CreateGroup(context.Background(), name, member.ID)
	if err != nil {
		t.Fatal(err)
	}

	byName := map[string]any{"ConnectAccess": config.ConnectGroups, "ConnectGroups": "@" + name}
	whoMayConnect(t, byName)
	want := refusal(t, byName, admission.ReasonNotInGroups)
	refusedEverywhere(t, other, want)
	servedEverywhere(t, member)

	if err := mm.PatchPluginSettings(map[string]any{"ConnectGroups": "no-such-group"}); err != nil {
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
