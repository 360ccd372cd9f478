package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// The smaller findings of the security review (issue 17, part 4).

func TestBobWritingTheSameBytesAsAliceReadsHisOwnFileNameNotHers(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	same := numberedText(1500)
	a, b := connect(t, mm.URL, alice.Token), connect(t, mm.URL, bob.Token)
	secret := uniq(t, "alice-secret-plan") + ".png"
	if res := call(t, a, "files_write", map[string]any{"name": secret, "text": same}); res.IsError {
		t.Fatalf("alice's files_write: %s", text(res))
	}
	// Alice's first window keeps the whole text for her next one.
	if res := call(t, a, "files_read", map[string]any{"name": secret}); res.IsError || !strings.Contains(text(res), secret+": its name says") {
		t.Fatalf("alice's files_read should note her name against the bytes: %s", text(res))
	}
	mine := uniq(t, "notes") + ".png"
	if res := call(t, b, "files_write", map[string]any{"name": mine, "text": same}); res.IsError {
		t.Fatalf("bob's files_write: %s", text(res))
	}
	for _, offset := range []int{1, 501} {
		res := call(t, b, "files_read", map[string]any{"name": mine, "offset": offset})
		if res.IsError || strings.Contains(text(res), "alice-secret-plan") || !strings.Contains(text(res), mine+": its name says") {
			t.Fatalf("bob's files_read at line %d: %s", offset, text(res))
		}
	}
	listed := listWorkspace(t, bob.Token)
	for _, e := range listed {
		if strings.Contains(e.Name, "alice-secret-plan") {
			t.Fatalf("bob's workspace lists alice's file: %+v", listed)
		}
	}
}

// withoutPermission takes permissions from everyone's system_user role for
// one test, as an admin does in System Console > Permissions.
func withoutPermission(t *testing.T, ids ...string) {
	t.Helper()
	ctx := context.Background()
	ac := mm.Client(mm.Admin)
	role, _, err := ac.GetRoleByName(ctx, model.SystemUserRoleId)
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(role.Permissions)
	kept := slices.DeleteFunc(slices.Clone(role.Permissions), func(p string) bool { return slices.Contains(ids, p) })
	if _, _, err := ac.PatchRole(ctx, role.Id, &model.RolePatch{Permissions: &kept}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, _, err := ac.PatchRole(ctx, role.Id, &model.RolePatch{Permissions: &before}); err != nil {
			t.Errorf("give the permissions back: %v", err)
		}
	})
}

// conversationsOf are the direct and group messages u is in.
func conversationsOf(t *testing.T, u harness.User) []*model.Channel {
	t.Helper()
	all, _, err := mm.Client(u).GetChannelsForTeamForUser(context.Background(), mm.Team.Id, u.ID, false, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []*model.Channel
	for _, ch := range all {
		if ch.Type == model.ChannelTypeDirect || ch.Type == model.ChannelTypeGroup {
			out = append(out, ch)
		}
	}
	return out
}

func TestWithoutCreateDirectAndGroupChannelNoNewConversationIsOpenedButAnExistingOneIsWrittenIn(t *testing.T) {
	ctx := context.Background()
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	gus, err := mm.CreateUser(uniq(t, "gus"))
	if err != nil {
		t.Fatal(err)
	}
	hal, err := mm.CreateUser(uniq(t, "hal"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mm.Client(alice).CreateDirectChannel(ctx, alice.ID, bob.ID); err != nil {
		t.Fatal(err)
	}
	withoutPermission(t, model.PermissionCreateDirectChannel.Id, model.PermissionCreateGroupChannel.Id)
	// Mattermost's own API refuses a new direct message now.
	if _, resp, err := mm.Client(gus).CreateDirectChannel(ctx, gus.ID, hal.ID); err == nil || resp.StatusCode != 403 {
		t.Fatalf("Mattermost opened a direct message without create_direct_channel: %v", err)
	}
	a := aliceClient(t)
	res := call(t, a, "dm", map[string]any{"user": "@" + gus.Username, "message": "a new conversation"})
	if !res.IsError || !strings.Contains(text(res), "create_direct_channel") || !strings.Contains(text(res), "Nothing was asked or posted") {
		t.Errorf("dm to someone alice has no direct message with: %s", text(res))
	}
	res = call(t, a, "group_message", map[string]any{"users": []string{"@" + gus.Username, "@" + hal.Username}, "message": "a new group"})
	if !res.IsError || !strings.Contains(text(res), "create_group_channel") {
		t.Errorf("group_message to a new group: %s", text(res))
	}
	for _, u := range []harness.User{gus, hal} {
		if c := conversationsOf(t, u); len(c) != 0 {
			t.Errorf("%s is in %d direct or group messages after the refusals", u.Username, len(c))
		}
	}

	marker := uniq(t, "still-written")
	res = call(t, a, "dm", map[string]any{"user": "@" + bob.Username, "message": marker})
	if res.IsError {
		t.Fatalf("dm in the existing direct message with bob: %s", text(res))
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	if p, _, err := mm.Client(bob).GetPost(ctx, out.PostID, ""); err != nil || p.Message != marker {
		t.Fatalf("bob reads the dm: %v %v", p, err)
	}
}
