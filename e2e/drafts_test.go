package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func draft(t *testing.T, u harness.User, channelID, rootID, message string) {
	t.Helper()
	if _, _, err := mm.Client(u).UpsertDraft(context.Background(), &model.Draft{UserId: u.ID, ChannelId: channelID, RootId: rootID, Message: message}); err != nil {
		t.Fatalf("save draft: %v", err)
	}
}

func TestListDraftsShowsTheCallersOwnDraftsWithTheirThreadAndOnlyTheirs(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	fay, err := mm.CreateUser(uniq(t, "fay"))
	if err != nil {
		t.Fatal(err)
	}
	ch := createChannel(t, alice, uniq(t, "drafts-"), "Drafts", model.ChannelTypeOpen)
	for _, u := range []harness.User{bob, fay} {
		if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	root := createPost(t, alice, ch.Id, "the plan", "")
	draft(t, fay, ch.Id, "", "half a thought about "+ch.Name)
	draft(t, fay, ch.Id, root.Id, "a reply not sent yet")
	draft(t, bob, ch.Id, "", "bob's own draft")

	var got tools.DraftList
	res := call(t, connect(t, mm.URL, fay.Token), "list_drafts", map[string]any{"team": mm.Team.Name})
	structuredAs(t, res, &got)
	if res.IsError || !got.Synced || !got.Complete || len(got.Drafts) != 2 || strings.Contains(text(res), "bob's own draft") {
		t.Fatalf("fay's drafts: %s", text(res))
	}
	byRoot := map[string]tools.DraftInfo{}
	for _, d := range got.Drafts {
		byRoot[d.RootID] = d
	}
	if byRoot[""].Message != "half a thought about "+ch.Name || byRoot[root.Id].Message != "a reply not sent yet" || byRoot[""].ChannelID != ch.Id {
		t.Fatalf("drafts %+v", got.Drafts)
	}
	stored, _, err := mm.Client(fay).GetDrafts(context.Background(), fay.ID, mm.Team.Id)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 {
		t.Fatalf("Mattermost keeps %d drafts for fay, want 2", len(stored))
	}
	for _, d := range stored {
		if byRoot[d.RootId].Message != d.Message || byRoot[d.RootId].ChannelID != d.ChannelId {
			t.Errorf("Mattermost's draft %+v is listed as %+v", d, byRoot[d.RootId])
		}
	}
}

func TestADraftInAPrivateChannelTheCallerHasLeftIsNotListed(t *testing.T) {
	alice := mm.Users[0]
	gil, err := mm.CreateUser(uniq(t, "gil"))
	if err != nil {
		t.Fatal(err)
	}
	secret := createChannel(t, alice, uniq(t, "left-"), "Left", model.ChannelTypePrivate)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), secret.Id, gil.ID); err != nil {
		t.Fatal(err)
	}
	draft(t, gil, secret.Id, "", "words about "+secret.Name)
	if _, err := mm.Client(alice).RemoveUserFromChannel(context.Background(), secret.Id, gil.ID); err != nil {
		t.Fatal(err)
	}
	var got tools.DraftList
	res := call(t, connect(t, mm.URL, gil.Token), "list_drafts", nil)
	structuredAs(t, res, &got)
	if res.IsError || len(got.Drafts) != 0 || strings.Contains(text(res), secret.Name) || !strings.Contains(text(res), "no drafts") {
		t.Fatalf("a draft where gil can no longer read must not be listed: %s", text(res))
	}
}
