package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestGetChannelMembersPagesTheMembersWithTheirChannelRoles(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "members-"), "Members", model.ChannelTypePrivate)
	ctx := context.Background()
	if _, _, err := mm.Client(alice).AddChannelMember(ctx, ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, bob.Token)
	var first, second tools.MemberList
	res := call(t, c, "get_channel_members", map[string]any{"channel": ch.Id, "limit": 1})
	structuredAs(t, res, &first)
	if res.IsError || first.Total != 2 || len(first.Members) != 1 || first.NextCursor == "" || !strings.Contains(text(res), "get_channel_members ") {
		t.Fatalf("first page of one: %s", text(res))
	}
	res = call(t, c, "get_channel_members", map[string]any{"channel": ch.Id, "limit": 1, "cursor": first.NextCursor})
	structuredAs(t, res, &second)
	if res.IsError || len(second.Members) != 1 || !second.Complete {
		t.Fatalf("second page of one: %s", text(res))
	}
	roles := map[string]string{}
	for _, m := range append(first.Members, second.Members...) {
		roles[m.User.Username] = m.Role
	}

	members, _, err := mm.Client(alice).GetChannelMembers(ctx, ch.Id, 0, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 {
		t.Fatalf("Mattermost has %d members, want 2", len(members))
	}
	for _, m := range members {
		name := map[string]string{alice.ID: "alice", bob.ID: "bob"}[m.UserId]
		want := "member"
		if m.SchemeAdmin {
			want = "admin"
		}
		if roles[name] != want {
			t.Errorf("%s listed as %q, Mattermost says %q (%v)", name, roles[name], want, roles)
		}
	}
	if roles["alice"] != "admin" || roles["bob"] != "member" {
		t.Errorf("the creator is the channel admin, bob a member: %v", roles)
	}
}

func TestTheMembersOfAPrivateChannelTheCallerIsNotInAreNotFound(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "closed-"), "Closed", model.ChannelTypePrivate)
	res := call(t, connect(t, mm.URL, mm.Users[1].Token), "get_channel_members", map[string]any{"channel": ch.Id})
	if !res.IsError || !strings.Contains(text(res), "No channel matches") || strings.Contains(text(res), "@alice") {
		t.Fatalf("bob should not find alice's private channel: %s", text(res))
	}
}
