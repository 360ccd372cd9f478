package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// uniq makes names that no other test uses.
func uniq(t *testing.T, prefix string) string {
	t.Helper()
	return fmt.Sprintf("%s%s", prefix, strings.ToLower(model.NewId()[:8]))
}

func createChannel(t *testing.T, u harness.User, name, display string, typ model.ChannelType) *model.Channel {
	t.Helper()
	ch, _, err := mm.Client(u).CreateChannel(context.Background(), &model.Channel{TeamId: mm.Team.Id, Name: name, DisplayName: display, Type: typ})
	if err != nil {
		t.Fatalf("create channel %s: %v", name, err)
	}
	return ch
}

func createPost(t *testing.T, u harness.User, channelID, message, rootID string, fileIDs ...string) *model.Post {
	t.Helper()
	p, _, err := mm.Client(u).CreatePost(context.Background(), &model.Post{ChannelId: channelID, Message: message, RootId: rootID, FileIds: fileIDs})
	if err != nil {
		t.Fatalf("create post: %v", err)
	}
	return p
}

func TestListTeamsAnswersTheCallersTeam(t *testing.T) {
	c := connect(t, mm.URL, mm.Users[0].Token)
	var got tools.TeamList
	structuredAs(t, call(t, c, "list_teams", nil), &got)
	if len(got.Teams) != 1 || got.Teams[0].ID != mm.Team.Id || got.Teams[0].Name != mm.Team.Name {
		t.Fatalf("list_teams = %+v, want only %s", got, mm.Team.Name)
	}
}

func TestListChannelsShowsAlicesChannelsWithUnreadCountsAndTheDMByUsername(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	name := uniq(t, "unread-")
	ch := createChannel(t, alice, name, "Unread "+name, model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		createPost(t, alice, ch.Id, fmt.Sprintf("unread %d", i), "")
	}
	dm, _, err := mm.Client(alice).CreateDirectChannel(context.Background(), alice.ID, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	createPost(t, alice, dm.Id, "hello bob", "")

	var got tools.ChannelList
	res := call(t, connect(t, mm.URL, bob.Token), "list_channels", nil)
	structuredAs(t, res, &got)
	var chInfo, dmInfo *tools.ChannelInfo
	for i, ci := range got.Channels {
		switch ci.ID {
		case ch.Id:
			chInfo = &got.Channels[i]
		case dm.Id:
			dmInfo = &got.Channels[i]
		}
	}
	if chInfo == nil || dmInfo == nil {
		t.Fatalf("bob's list_channels lacks the channel or the DM: %s", text(res))
	}
	if chInfo.Unread < 3 || chInfo.Type != "public" || chInfo.TeamName != mm.Team.Name {
		t.Errorf("channel listed as %+v, want 3 unread, public, team %s", chInfo, mm.Team.Name)
	}
	if dmInfo.DisplayName != "@alice" || dmInfo.Type != "direct" || dmInfo.Unread < 1 {
		t.Errorf("DM listed as %+v, want @alice, direct, unread", dmInfo)
	}
	if got.Channels[0].Unread == 0 {
		t.Errorf("unread channels must come first: %+v", got.Channels[0])
	}
}

func TestGetChannelFindsAChannelByTildeNameDisplayNameAndPermalink(t *testing.T) {
	alice := mm.Users[0]
	name := uniq(t, "finder-")
	ch := createChannel(t, alice, name, "Finder Room "+name[7:], model.ChannelTypeOpen)
	p := createPost(t, alice, ch.Id, "anchor", "")
	c := connect(t, mm.URL, alice.Token)
	for _, ref := range []string{
		"~" + name,
		strings.ToUpper(ch.DisplayName),
		strings.ReplaceAll(name, "-", " "),
		ch.Id,
		mm.URL + "/" + mm.Team.Name + "/channels/" + name,
		mm.URL + "/" + mm.Team.Name + "/pl/" + p.Id,
	} {
		res := call(t, c, "get_channel", map[string]any{"channel": ref})
		if res.IsError {
			t.Errorf("get_channel(%q) refused: %s", ref, text(res))
			continue
		}
		var got tools.ChannelInfo
		structuredAs(t, res, &got)
		if got.ID != ch.Id {
			t.Errorf("get_channel(%q) = %s, want %s", ref, got.ID, ch.Id)
		}
	}
}

func TestGetChannelWithATypoListsTheClosestNamesAndTheNextStep(t *testing.T) {
	alice := mm.Users[0]
	name := uniq(t, "marketing")
	createChannel(t, alice, name, "Marketing "+name, model.ChannelTypeOpen)
	typo := strings.Replace(name, "marketing", "marketng", 1)
	res := call(t, connect(t, mm.URL, alice.Token), "get_channel", map[string]any{"channel": typo})
	msg := text(res)
	if !res.IsError || !strings.Contains(msg, "No channel matches") || !strings.Contains(msg, "~"+name) || !strings.Contains(msg, "list_channels") {
		t.Fatalf("a typo should be refused with the closest names and list_channels, got %v: %s", res.IsError, msg)
	}
}

func TestSearchChannelsFindsPublicChannelsNotJoinedButNoOthersPrivateOnes(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	stem := uniq(t, "srch")
	pub := createChannel(t, alice, stem+"-open", "Open "+stem, model.ChannelTypeOpen)
	priv := createChannel(t, alice, stem+"-secret", "Secret "+stem, model.ChannelTypePrivate)
	ids := func(u harness.User) map[string]bool {
		var got tools.ChannelList
		structuredAs(t, call(t, connect(t, mm.URL, u.Token), "search_channels", map[string]any{"term": stem}), &got)
		out := map[string]bool{}
		for _, ci := range got.Channels {
			out[ci.ID] = true
		}
		return out
	}
	if a := ids(alice); !a[pub.Id] || !a[priv.Id] {
		t.Errorf("alice should find her public and private channel: %v", a)
	}
	b := ids(bob)
	if !b[pub.Id] {
		t.Errorf("bob should find the public channel he has not joined: %v", b)
	}
	if b[priv.Id] {
		t.Errorf("bob found alice's private channel")
	}
}

func TestAPublicChannelBobHasNotJoinedIsReadableLikeInMattermost(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	stem := uniq(t, "open")
	pub := createChannel(t, alice, stem, "Open "+stem, model.ChannelTypeOpen)
	_, infos := postFiles(t, alice, pub.Id, "agenda for "+stem, map[string][]byte{"agenda.txt": []byte("1. harbour dues\n")})
	b := connect(t, mm.URL, bob.Token)
	if res := call(t, b, "read_channel", map[string]any{"channel": pub.Id}); res.IsError || !strings.Contains(text(res), "agenda for "+stem) {
		t.Fatalf("bob cannot read a public channel of his team: %s", text(res))
	}
	if res, _ := readFile(t, b, map[string]any{"file_id": infos[0].Id}); res.IsError || !strings.Contains(text(res), "harbour dues") {
		t.Fatalf("bob cannot read a file in a public channel of his team: %s", text(res))
	}
}
