package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// Every change beyond posts, edits and reactions is asked through the
// client's form here (the Mattermost page path is the same one, tested
// with posts): a declined one changes nothing, an accepted one changes
// exactly what was shown. Each is read back with its own REST request.

// askers are a client whose person declines every question and one whose
// person ticks the box, both signed in as u.
func askers(t *testing.T, u harness.User) (no *client.Client, yes *client.Client, asked *person) {
	t.Helper()
	allowWrites(t, config.ConfirmClientThenMattermost)
	no = connectAsking(t, mm.URL, u.Token, "", formOnly, &person{answer: respond(mcp.ElicitationResponseActionDecline)})
	asked = &person{answer: tick}
	yes = connectAsking(t, mm.URL, u.Token, "", formOnly, asked)
	return no, yes, asked
}

// declined calls a tool whose question the person declines.
func declined(t *testing.T, c *client.Client, tool string, args map[string]any) {
	t.Helper()
	if res := call(t, c, tool, args); !res.IsError || !strings.Contains(text(res), "did not accept") {
		t.Fatalf("%s declined answered: %s", tool, text(res))
	}
}

// accepted calls a tool whose question the person accepts, and answers the
// question they were shown.
func accepted(t *testing.T, c *client.Client, p *person, tool string, args map[string]any) string {
	t.Helper()
	before := len(p.asked())
	res := call(t, c, tool, args)
	if res.IsError {
		t.Fatalf("%s accepted answered: %s", tool, text(res))
	}
	q := p.asked()
	if len(q) != before+1 {
		t.Fatalf("%s asked %d questions", tool, len(q)-before)
	}
	return q[len(q)-1].Message
}

func refusedWith(t *testing.T, c *client.Client, tool string, args map[string]any, want string) {
	t.Helper()
	if res := call(t, c, tool, args); !res.IsError || !strings.Contains(strings.ToLower(text(res)), want) {
		t.Fatalf("%s: want a refusal saying %q, got %s", tool, want, text(res))
	}
}

func shows(t *testing.T, question string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(question, p) {
			t.Fatalf("the question lacks %q:\n%s", p, question)
		}
	}
}

func TestDeletePostDeclinedKeepsThePostAndAcceptedDeletesItWithTheRepliesAndFilesItNamed(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	no, yes, asked := askers(t, alice)
	ch := townSquare(t)
	marker := uniq(t, "doomed")
	root, _ := postFiles(t, alice, ch.Id, marker, map[string][]byte{marker + ".txt": []byte("bye\n")})
	reply := createPost(t, bob, ch.Id, "a reply", root.Id)
	ctx := context.Background()

	declined(t, no, "delete_post", map[string]any{"post_id": root.Id})
	if p, _, err := mm.Client(bob).GetPost(ctx, root.Id, ""); err != nil || p.Message != marker {
		t.Fatalf("after a decline the post reads %v %v", p, err)
	}

	q := accepted(t, yes, asked, "delete_post", map[string]any{"post_id": root.Id})
	shows(t, q, "Delete your post in", "1 reply", "1 file", marker+".txt", marker)
	for _, id := range []string{root.Id, reply.Id} {
		if _, resp, err := mm.Client(bob).GetPost(ctx, id, ""); err == nil || resp.StatusCode != 404 {
			t.Fatalf("post %s is still there after the delete: %v", id, err)
		}
	}
}

func TestDeletingSomeoneElsesPostIsRefusedAndPostsOfAnotherPersonsDMAreNotFound(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	_, yes, asked := askers(t, alice)
	ctx := context.Background()
	bobs := createPost(t, bob, townSquare(t).Id, "bob's words", "")
	refusedWith(t, yes, "delete_post", map[string]any{"post_id": bobs.Id}, "not the signed-in person's own")
	dm, _, err := mm.Client(bob).CreateDirectChannel(ctx, bob.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	secret := createPost(t, bob, dm.Id, "between bob and admin", "")
	for _, tool := range []string{"delete_post", "pin_post"} {
		refusedWith(t, yes, tool, map[string]any{"post_id": secret.Id}, "not found")
	}
	if len(asked.asked()) != 0 {
		t.Fatalf("a refused change was asked: %+v", asked.asked())
	}
	for _, id := range []string{bobs.Id, secret.Id} {
		if p, _, err := mm.Client(bob).GetPost(ctx, id, ""); err != nil || p.IsPinned {
			t.Fatalf("post %s changed: %v %v", id, p, err)
		}
	}
}

func TestPinAndUnpinAreAskedAndTheChannelSeesExactlyTheAcceptedOne(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	no, yes, asked := askers(t, alice)
	ctx := context.Background()
	p := createPost(t, bob, townSquare(t).Id, uniq(t, "pin-me"), "")
	pinned := func() bool {
		got, _, err := mm.Client(bob).GetPost(ctx, p.Id, "")
		if err != nil {
			t.Fatal(err)
		}
		return got.IsPinned
	}
	declined(t, no, "pin_post", map[string]any{"post_id": p.Id})
	if pinned() {
		t.Fatal("a declined pin pinned the post")
	}
	q := accepted(t, yes, asked, "pin_post", map[string]any{"post_id": p.Id})
	shows(t, q, "Pin a post by @"+bob.Username, "for everyone in it", p.Message)
	if !pinned() {
		t.Fatal("the accepted pin did not pin the post")
	}
	declined(t, no, "unpin_post", map[string]any{"post_id": p.Id})
	if !pinned() {
		t.Fatal("a declined unpin unpinned the post")
	}
	accepted(t, yes, asked, "unpin_post", map[string]any{"post_id": p.Id})
	if pinned() {
		t.Fatal("the accepted unpin left the post pinned")
	}
}

func isMember(t *testing.T, channelID, userID string) bool {
	t.Helper()
	_, resp, err := mm.Client(mm.Admin).GetChannelMember(context.Background(), channelID, userID, "")
	if err != nil && resp != nil && resp.StatusCode == 404 {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func TestJoinAndLeaveAreAskedAndLeavingAPrivateChannelSaysThereIsNoWayBackWithoutAnInvitation(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	no, yes, asked := askers(t, alice)
	public := createChannel(t, mm.Admin, uniq(t, "open"), "Open house", model.ChannelTypeOpen)
	declined(t, no, "join_channel", map[string]any{"channel": public.Id})
	if isMember(t, public.Id, alice.ID) {
		t.Fatal("a declined join joined")
	}
	q := accepted(t, yes, asked, "join_channel", map[string]any{"channel": public.Id})
	shows(t, q, "Join the public channel Open house", "joined the channel")
	if !isMember(t, public.Id, alice.ID) {
		t.Fatal("the accepted join did not join")
	}

	private := createChannel(t, alice, uniq(t, "den"), "Den", model.ChannelTypePrivate)
	// Mattermost before 11 lets nobody leave a private channel they are the
	// last member of.
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), private.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	declined(t, no, "leave_channel", map[string]any{"channel": private.Id})
	if !isMember(t, private.Id, alice.ID) {
		t.Fatal("a declined leave left")
	}
	q = accepted(t, yes, asked, "leave_channel", map[string]any{"channel": private.Id})
	shows(t, q, "Leave the private channel Den", "cannot rejoin it without an invitation")
	if isMember(t, private.Id, alice.ID) {
		t.Fatal("the accepted leave did not leave")
	}

	// A private channel bob is not in is not found (no channel matches it),
	// whatever he asks.
	_, bobYes, bobAsked := askers(t, bob)
	vault := createChannel(t, mm.Admin, uniq(t, "vault"), "Vault", model.ChannelTypePrivate)
	refusedWith(t, bobYes, "join_channel", map[string]any{"channel": vault.Id}, "no channel matches")
	refusedWith(t, bobYes, "add_channel_members", map[string]any{"channel": vault.Id, "users": []string{alice.Username}}, "no channel matches")
	if len(bobAsked.asked()) != 0 || isMember(t, vault.Id, bob.ID) || isMember(t, vault.Id, alice.ID) {
		t.Fatal("a channel bob cannot see was asked about or changed")
	}
}

func TestCreateChannelIsAskedNamingTheTeamAndTheMembersAndMakesExactlyThat(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	no, yes, asked := askers(t, alice)
	ctx := context.Background()
	name := uniq(t, "harbour")
	args := map[string]any{"display_name": "Harbour " + name, "name": name, "private": true, "purpose": "Ship things", "members": []string{"@" + bob.Username}}
	declined(t, no, "create_channel", args)
	if _, resp, err := mm.Client(mm.Admin).GetChannelByName(ctx, name, mm.Team.Id, ""); err == nil || resp.StatusCode != 404 {
		t.Fatalf("a declined create made the channel: %v", err)
	}
	q := accepted(t, yes, asked, "create_channel", args)
	shows(t, q, "Create the private channel “Harbour "+name+"” in "+mm.Team.DisplayName+" with @"+bob.Username, "~"+name, "Ship things", "@"+bob.Username+" is notified")
	ch, _, err := mm.Client(mm.Admin).GetChannelByName(ctx, name, mm.Team.Id, "")
	if err != nil || ch.Type != model.ChannelTypePrivate || ch.Purpose != "Ship things" || ch.DisplayName != "Harbour "+name {
		t.Fatalf("the created channel: %+v %v", ch, err)
	}
	if !isMember(t, ch.Id, alice.ID) || !isMember(t, ch.Id, bob.ID) {
		t.Fatal("the channel lacks alice or bob")
	}
	if m, _, err := mm.Client(mm.Admin).GetChannelMember(ctx, ch.Id, alice.ID, ""); err != nil || !m.SchemeAdmin {
		t.Fatalf("alice is not the channel's admin: %+v %v", m, err)
	}
}

func TestAddChannelMembersNamesEachPersonAndThatTheyAreNotifiedAndAddsOnlyThem(t *testing.T) {
	alice := mm.Users[0]
	carol, err := mm.CreateUser(uniq(t, "carol"))
	if err != nil {
		t.Fatal(err)
	}
	no, yes, asked := askers(t, alice)
	ch := createChannel(t, alice, uniq(t, "crew"), "Crew", model.ChannelTypePrivate)
	args := map[string]any{"channel": ch.Id, "users": []string{"@" + carol.Username}}
	declined(t, no, "add_channel_members", args)
	if isMember(t, ch.Id, carol.ID) {
		t.Fatal("a declined add added")
	}
	q := accepted(t, yes, asked, "add_channel_members", args)
	shows(t, q, "Add @"+carol.Username+" to Crew", "@"+carol.Username+" is notified", "added to the channel by @"+alice.Username)
	if !isMember(t, ch.Id, carol.ID) || isMember(t, ch.Id, mm.Users[1].ID) {
		t.Fatal("the accepted add did not add exactly carol")
	}
}

func TestSetStatusIsAskedAndSetsExactlyTheStatusAndCustomStatusShown(t *testing.T) {
	dave, err := mm.CreateUser(uniq(t, "dave"))
	if err != nil {
		t.Fatal(err)
	}
	no, yes, asked := askers(t, dave)
	ctx := context.Background()
	until := time.Now().Add(3 * time.Hour).UTC().Truncate(time.Minute)
	args := map[string]any{"status": "dnd", "dnd_until": until.Format(time.RFC3339), "custom_text": "In the lab", "custom_emoji": "test_tube"}
	declined(t, no, "set_status", args)
	if s, _, err := mm.Client(mm.Admin).GetUserStatus(ctx, dave.ID, ""); err != nil || s.Status == model.StatusDnd {
		t.Fatalf("a declined status was set: %+v %v", s, err)
	}
	q := accepted(t, yes, asked, "set_status", args)
	shows(t, q, "Set your status to Do not disturb until", "In the lab", ":test_tube:")
	s, _, err := mm.Client(mm.Admin).GetUserStatus(ctx, dave.ID, "")
	if err != nil || s.Status != model.StatusDnd || s.DNDEndTime != until.Unix() {
		t.Fatalf("the status after the accept: %+v %v", s, err)
	}
	u, _, err := mm.Client(mm.Admin).GetUser(ctx, dave.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if cs := u.GetCustomStatus(); cs == nil || cs.Text != "In the lab" || cs.Emoji != "test_tube" {
		t.Fatalf("the custom status after the accept: %+v", cs)
	}
}
