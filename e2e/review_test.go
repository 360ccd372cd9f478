package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
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

func TestASessionThatCalledMCPForAliceCannotAnswerHerPendingWriteThatAnotherClientAskedButHerBrowserCan(t *testing.T) {
	alice := mm.Users[0]
	// The write is asked through one MCP client (alice's own login session).
	w := startWaitingWrite(t, aliceClient(t))
	// A second MCP client of alice's signs in with a session of its own,
	// with a CSRF token as the web app has, and calls /mcp.
	web, csrf := cookieSession(t, alice)
	token := sessionToken(t, web)
	if res := call(t, connect(t, mm.URL, token), "get_me", map[string]any{}); res.IsError {
		t.Fatalf("the second client's get_me: %s", text(res))
	}
	rows, bytes, err := mm.KVRows(context.Background(), "pcs_"+alice.ID, "")
	if err != nil || rows != 1 || bytes > 8<<10 {
		t.Fatalf("alice's noted MCP client sessions: %d rows, %d bytes (%v); want one record of at most 8 KiB", rows, bytes, err)
	}
	cannotAnswer(t, w, asSessionCookie(token), csrf)
	cannotAnswer(t, w, asBearer(token), csrf)
	nothingHappened(t, w)
	if t.Failed() {
		t.FailNow()
	}
	personAcceptsInTheBrowser(t, w)
}

// atPosition is cursor with its position replaced, as a client that edits
// the opaque cursor sends it.
func atPosition(t *testing.T, cursor, position string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	c["p"] = position
	raw, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

func TestACursorOffsetNearTheIntegerMaximumIsRefusedWithTheCallThatStartsOver(t *testing.T) {
	fay, err := mm.CreateUser(uniq(t, "fay"))
	if err != nil {
		t.Fatal(err)
	}
	word := uniq(t, "harbourword")
	for i := range 2 {
		draft(t, fay, townSquare(t).Id, createPost(t, fay, townSquare(t).Id, fmt.Sprintf("%s root %d", word, i), "").Id, "a draft reply")
	}
	c := connect(t, mm.URL, fay.Token)
	var drafts tools.DraftList
	res := call(t, c, "list_drafts", map[string]any{"limit": 1})
	structuredAs(t, res, &drafts)
	var hits tools.PostPage
	res = call(t, c, "search_posts", map[string]any{"terms": word, "limit": 1})
	structuredAs(t, res, &hits)
	if drafts.NextCursor == "" || hits.NextCursor == "" {
		t.Fatalf("two drafts and two hits should page: %+v %+v", drafts, hits)
	}
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		cursor string
	}{
		{"list_drafts", map[string]any{"limit": 1}, drafts.NextCursor},
		{"search_posts", map[string]any{"terms": word, "limit": 1}, hits.NextCursor},
	} {
		for _, at := range []string{"9223372036854775807", "9223372036854775800", "99999999999999999999"} {
			args := map[string]any{"cursor": atPosition(t, tc.cursor, at)}
			for k, v := range tc.args {
				args[k] = v
			}
			res := call(t, c, tc.tool, args)
			if !res.IsError || !strings.Contains(text(res), "points beyond any page") || !strings.Contains(text(res), "Call "+tc.tool+" again without cursor") {
				t.Errorf("%s at position %s: %s", tc.tool, at, text(res))
			}
		}
	}
	// The listing itself is untouched: its own next cursor still pages on.
	res = call(t, c, "list_drafts", map[string]any{"limit": 1, "cursor": drafts.NextCursor})
	structuredAs(t, res, &drafts)
	if res.IsError || len(drafts.Drafts) != 1 || !drafts.Complete {
		t.Fatalf("the second page of drafts: %s", text(res))
	}
	stored, _, err := mm.Client(fay).GetDrafts(context.Background(), fay.ID, mm.Team.Id)
	if err != nil || len(stored) != 2 {
		t.Fatalf("Mattermost keeps %d drafts for fay (%v), want 2", len(stored), err)
	}
}

func TestGetChannelSaysAnArchivedChannelIsArchivedWhileTheServerShowsArchivedChannels(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "gone-"), "Gone", model.ChannelTypeOpen)
	if _, err := mm.Client(alice).DeleteChannel(context.Background(), ch.Id); err != nil {
		t.Fatal(err)
	}
	got, _, err := mm.Client(alice).GetChannel(context.Background(), ch.Id)
	if err != nil || got.DeleteAt == 0 {
		t.Fatalf("Mattermost shows alice the archived channel: %v %v", got, err)
	}
	var info tools.ChannelInfo
	res := call(t, aliceClient(t), "get_channel", map[string]any{"channel": ch.Id})
	structuredAs(t, res, &info)
	if res.IsError || !info.Archived || !strings.Contains(text(res), "archived: read-only") {
		t.Fatalf("get_channel of an archived channel: %s", text(res))
	}
	var live tools.ChannelInfo
	res = call(t, aliceClient(t), "get_channel", map[string]any{"channel": townSquare(t).Id})
	structuredAs(t, res, &live)
	if res.IsError || live.Archived || strings.Contains(text(res), "archived") {
		t.Fatalf("get_channel of a live channel: %s", text(res))
	}
}
