package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// Settings that are off read as off: the plugin RPC drops a boolean that
// points at false, so these switch a setting off through the REST config
// API as the System Console does and check that the plugin behaves as
// Mattermost's own API then does.

// switchOff turns one of Mattermost's boolean settings off for one test.
func switchOff(t *testing.T, set func(*model.Config, *bool)) {
	t.Helper()
	patch := &model.Config{}
	set(patch, model.NewPointer(false))
	if err := mm.PatchConfig(patch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		on := &model.Config{}
		set(on, model.NewPointer(true))
		if err := mm.PatchConfig(on); err != nil {
			t.Errorf("turn the setting back on: %v", err)
		}
	})
}

func TestWithCustomStatusesOffGetStatusShowsNoneAndSetStatusRefusesOneSayingWhy(t *testing.T) {
	ctx := context.Background()
	alice := mm.Users[0]
	bob, err := mm.CreateUser(uniq(t, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mm.Client(bob).UpdateUserCustomStatus(ctx, bob.ID, &model.CustomStatus{Emoji: "palm_tree", Text: "On holiday in Lisbon"}); err != nil {
		t.Fatal(err)
	}
	dave, err := mm.CreateUser(uniq(t, "dave"))
	if err != nil {
		t.Fatal(err)
	}
	_, yes, asked := askers(t, dave)
	switchOff(t, func(c *model.Config, v *bool) { c.TeamSettings.EnableCustomUserStatuses = v })
	// Mattermost's own API refuses a custom status now: the setting is off.
	if _, resp, err := mm.Client(dave).UpdateUserCustomStatus(ctx, dave.ID, &model.CustomStatus{Emoji: "x", Text: "probe"}); err == nil || resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("Mattermost took a custom status with custom statuses off: %v", err)
	}

	var got tools.StatusList
	res := call(t, connect(t, mm.URL, alice.Token), "get_status", map[string]any{"users": []string{"@" + bob.Username}})
	structuredAs(t, res, &got)
	if res.IsError || len(got.Statuses) != 1 {
		t.Fatalf("get_status: %s", text(res))
	}
	if s := got.Statuses[0]; s.CustomText != "" || s.CustomEmoji != "" || strings.Contains(text(res), "Lisbon") {
		t.Errorf("bob's custom status is shown with custom statuses off: %+v %s", s, text(res))
	}

	res = call(t, yes, "set_status", map[string]any{"custom_text": "In the lab", "custom_emoji": "test_tube"})
	if !res.IsError || !strings.Contains(text(res), "EnableCustomUserStatuses") || !strings.Contains(text(res), "status alone") {
		t.Errorf("set_status with a custom status while they are off: %s", text(res))
	}
	if n := len(asked.asked()); n != 0 {
		t.Errorf("dave was asked %d times about a custom status Mattermost would refuse", n)
	}
	u, _, err := mm.Client(mm.Admin).GetUser(ctx, dave.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if cs := u.GetCustomStatus(); cs != nil && (cs.Text != "" || cs.Emoji != "") {
		t.Fatalf("a custom status was set while custom statuses are off: %+v", cs)
	}
}

func TestWithSyncedDraftsOffListDraftsAndSaveDraftSayTheServerKeepsNone(t *testing.T) {
	ctx := context.Background()
	c := ownViewClient(t)
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "nodrafts-"), "No drafts", model.ChannelTypeOpen)
	draft(t, alice, ch.Id, "", "kept before drafts were turned off")
	switchOff(t, func(c *model.Config, v *bool) { c.ServiceSettings.AllowSyncedDrafts = v })
	// Mattermost's own API lists no drafts now: the setting is off.
	if _, resp, err := mm.Client(alice).GetDrafts(ctx, alice.ID, mm.Team.Id); err == nil || resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("Mattermost lists drafts with synced drafts off: %v", err)
	}

	var got tools.DraftList
	res := call(t, c, "list_drafts", map[string]any{"team": mm.Team.Name})
	structuredAs(t, res, &got)
	if res.IsError || got.Synced || len(got.Drafts) != 0 || !strings.Contains(text(res), "AllowSyncedDrafts is off") || strings.Contains(text(res), "kept before") {
		t.Errorf("list_drafts with synced drafts off: %s", text(res))
	}
	for _, tool := range []string{"save_draft", "delete_draft"} {
		res = call(t, c, tool, map[string]any{"channel": ch.Id, "message": "written while drafts are off"})
		if !res.IsError || !strings.Contains(text(res), "AllowSyncedDrafts is off") || !strings.Contains(text(res), "nothing changed") {
			t.Errorf("%s with synced drafts off: %s", tool, text(res))
		}
	}

	on := &model.Config{}
	on.ServiceSettings.AllowSyncedDrafts = model.NewPointer(true)
	if err := mm.PatchConfig(on); err != nil {
		t.Fatal(err)
	}
	if d := aliceDrafts(t, ch.Id); len(d) != 1 || d[0].Message != "kept before drafts were turned off" {
		t.Fatalf("alice's drafts after save_draft and delete_draft were refused: %+v", d)
	}
}
