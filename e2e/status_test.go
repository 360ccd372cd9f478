package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestGetStatusAnswersPresenceDoNotDisturbEndAndCustomStatusOfSeveralPeople(t *testing.T) {
	alice := mm.Users[0]
	erin, err := mm.CreateUser(uniq(t, "erin"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	end := time.Now().Add(2 * time.Hour).Unix()
	if _, _, err := mm.Client(erin).UpdateUserStatus(ctx, erin.ID, &model.Status{UserId: erin.ID, Status: model.StatusDnd, DNDEndTime: end}); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(3 * time.Hour).UTC().Truncate(time.Second)
	if _, _, err := mm.Client(erin).UpdateUserCustomStatus(ctx, erin.ID, &model.CustomStatus{
		Emoji: "palm_tree", Text: "On the boat", Duration: "date_and_time", ExpiresAt: until,
	}); err != nil {
		t.Fatal(err)
	}

	var got tools.StatusList
	res := call(t, connect(t, mm.URL, alice.Token), "get_status", map[string]any{"users": []string{"@" + erin.Username, alice.ID}})
	structuredAs(t, res, &got)
	if res.IsError || len(got.Statuses) != 2 || len(got.NotFound) != 0 {
		t.Fatalf("get_status: %s", text(res))
	}
	e := got.Statuses[0]
	status, _, err := mm.Client(alice).GetUserStatus(ctx, erin.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if e.User.ID != erin.ID || e.Status != status.Status || e.Status != "dnd" {
		t.Errorf("erin is %q, Mattermost says %q", e.Status, status.Status)
	}
	if want := time.Unix(status.DNDEndTime, 0).UTC().Format(time.RFC3339); e.DNDEnd != want {
		t.Errorf("do not disturb ends %q, Mattermost says %q", e.DNDEnd, want)
	}
	if e.CustomText != "On the boat" || e.CustomEmoji != "palm_tree" || e.CustomUntil == "" {
		t.Errorf("custom status %+v", e)
	}
	if !strings.Contains(text(res), "do not disturb until") || !strings.Contains(text(res), "On the boat") {
		t.Errorf("the text should say it: %s", text(res))
	}
}

func TestTheStatusOfSomeoneWhoSharesNothingWithTheCallerIsNotFound(t *testing.T) {
	loner, err := mm.CreateUser(uniq(t, "hermit"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.Client(mm.Admin).RemoveTeamMember(t.Context(), mm.Team.Id, loner.ID); err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, mm.Users[0].Token)
	res := call(t, c, "get_status", map[string]any{"users": []string{loner.ID}})
	if !res.IsError || !strings.Contains(text(res), "Nobody you share") || !strings.Contains(text(res), "search_users") {
		t.Fatalf("a stranger's status should be refused as not found: %s", text(res))
	}
	var got tools.StatusList
	res = call(t, c, "get_status", map[string]any{"users": []string{"@" + loner.Username, "@bob"}})
	structuredAs(t, res, &got)
	if res.IsError || len(got.Statuses) != 1 || got.Statuses[0].User.Username != "bob" || len(got.NotFound) != 1 {
		t.Fatalf("bob found, the stranger not: %s", text(res))
	}
}
