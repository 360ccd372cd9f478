package e2e

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestGetUserFindsATeammateByIDUsernameAndEmail(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	c := connect(t, mm.URL, alice.Token)
	for _, ref := range []string{bob.ID, "@bob", "bob", bob.Email} {
		res := call(t, c, "get_user", map[string]any{"user": ref})
		var got tools.UserInfo
		structuredAs(t, res, &got)
		if res.IsError || got.ID != bob.ID || got.Username != "bob" {
			t.Errorf("get_user(%q) = %+v %s", ref, got, text(res))
		}
	}
}

func TestSomeoneWhoSharesNoTeamOrConversationIsNotFound(t *testing.T) {
	// The harness adds new users to the team; a user who then leaves it
	// shares nothing with alice.
	loner, err := mm.CreateUser("loner" + strings.ToLower(uniq(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.Client(mm.Admin).RemoveTeamMember(t.Context(), mm.Team.Id, loner.ID); err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, mm.Users[0].Token)
	for _, ref := range []string{loner.ID, "@" + loner.Username, loner.Email} {
		res := call(t, c, "get_user", map[string]any{"user": ref})
		if !res.IsError || !strings.Contains(text(res), "No person") || strings.Contains(text(res), loner.ID) && ref != loner.ID {
			t.Errorf("get_user(%q) for a stranger: %s", ref, text(res))
		}
	}
	var found tools.UserList
	structuredAs(t, call(t, c, "search_users", map[string]any{"term": loner.Username}), &found)
	if len(found.Users) != 0 {
		t.Errorf("search_users found a stranger: %+v", found)
	}
}

func TestSearchUsersFindsTeammatesByTheStartOfTheirName(t *testing.T) {
	c := connect(t, mm.URL, mm.Users[0].Token)
	var found tools.UserList
	structuredAs(t, call(t, c, "search_users", map[string]any{"term": "bo"}), &found)
	ok := false
	for _, u := range found.Users {
		ok = ok || u.ID == mm.Users[1].ID
	}
	if !ok {
		t.Fatalf("search_users(bo) did not find bob: %+v", found)
	}
}
