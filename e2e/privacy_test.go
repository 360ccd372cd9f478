package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// Privacy parity: for each of Mattermost's privacy rules, what the plugin
// answers a person equals what Mattermost's own REST API answers them,
// read with separate requests.

// setBool sets one boolean server setting through the config API as the
// admin, checks with a separate read that it took, and puts the old value
// back when the test ends.
func setBool(t *testing.T, name string, field func(*model.Config) **bool, value bool) {
	t.Helper()
	ctx := context.Background()
	ac := mm.Client(mm.Admin)
	put := func(v *bool) {
		t.Helper()
		patch := &model.Config{}
		*field(patch) = v
		if _, _, err := ac.PatchConfig(ctx, patch); err != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		cfg, _, err := ac.GetConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := *field(cfg); (got == nil) != (v == nil) || got != nil && *got != *v {
			t.Fatalf("%s reads back %v after setting it", name, got)
		}
	}
	before, _, err := ac.GetConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := *field(before)
	t.Cleanup(func() {
		if old != nil {
			put(old)
		}
	})
	put(model.NewPointer(value))
}

func showFullName(c *model.Config) **bool { return &c.PrivacySettings.ShowFullName }

func showEmailAddress(c *model.Config) **bool { return &c.PrivacySettings.ShowEmailAddress }

// namedUser is a new member of the team with a first and last name, a
// nickname and a position.
func namedUser(t *testing.T, prefix string) harness.User {
	t.Helper()
	u, err := mm.CreateUser(uniq(t, prefix))
	if err != nil {
		t.Fatal(err)
	}
	patch := &model.UserPatch{FirstName: model.NewPointer("Ann"), LastName: model.NewPointer("Secretname"),
		Nickname: model.NewPointer("Nick" + u.Username), Position: model.NewPointer("Keeper of secrets")}
	if _, _, err := mm.Client(mm.Admin).PatchUser(context.Background(), u.ID, patch); err != nil {
		t.Fatal(err)
	}
	return u
}

// asMattermostShowsIt compares the plugin's person with Mattermost's.
func asMattermostShowsIt(t *testing.T, what string, got tools.UserInfo, want *model.User) {
	t.Helper()
	if got.ID != want.Id || got.Username != want.Username || got.FirstName != want.FirstName || got.LastName != want.LastName ||
		got.Nickname != want.Nickname || got.Position != want.Position {
		t.Errorf("%s: the plugin shows %+v, Mattermost shows id %s @%s first %q last %q nickname %q position %q",
			what, got, want.Id, want.Username, want.FirstName, want.LastName, want.Nickname, want.Position)
	}
}

// pluginUser is get_user's answer (ok false when it refused).
func pluginUser(t *testing.T, token, ref string) (tools.UserInfo, string, bool) {
	t.Helper()
	res := call(t, connect(t, mm.URL, token), "get_user", map[string]any{"user": ref})
	var u tools.UserInfo
	if !res.IsError {
		structuredAs(t, res, &u)
	}
	return u, text(res), !res.IsError
}

func pluginSearch(t *testing.T, token, term string) (map[string]tools.UserInfo, string) {
	t.Helper()
	res := call(t, connect(t, mm.URL, token), "search_users", map[string]any{"term": term})
	if res.IsError {
		t.Fatalf("search_users(%q): %s", term, text(res))
	}
	var list tools.UserList
	structuredAs(t, res, &list)
	out := map[string]tools.UserInfo{}
	for _, u := range list.Users {
		out[u.ID] = u
	}
	return out, text(res)
}

func restSearch(t *testing.T, u harness.User, term string) map[string]*model.User {
	t.Helper()
	found, _, err := mm.Client(u).SearchUsers(context.Background(), &model.UserSearch{Term: term, TeamId: mm.Team.Id, AllowInactive: true})
	if err != nil {
		t.Fatalf("REST search %q: %v", term, err)
	}
	out := map[string]*model.User{}
	for _, f := range found {
		out[f.Id] = f
	}
	return out
}

func statusOf(err error) int {
	var appErr *model.AppError
	if errors.As(err, &appErr) {
		return appErr.StatusCode
	}
	return 0
}

func TestWithShowFullNameOffThePluginShowsNoNamesJustAsMattermostDoes(t *testing.T) {
	ann := namedUser(t, "ann")
	bob := mm.Users[1]
	ctx := context.Background()
	for _, on := range []bool{true, false} {
		setBool(t, "PrivacySettings.ShowFullName", showFullName, on)
		want, _, err := mm.Client(bob).GetUserByUsername(ctx, ann.Username, "")
		if err != nil {
			t.Fatal(err)
		}
		if on != (want.LastName == "Secretname") || want.Nickname == "" || want.Position == "" {
			t.Fatalf("Show Full Name %v: Mattermost itself shows %+v", on, want)
		}
		for _, ref := range []string{"@" + ann.Username, ann.ID} {
			got, msg, ok := pluginUser(t, bob.Token, ref)
			if !ok {
				t.Fatalf("get_user(%q): %s", ref, msg)
			}
			asMattermostShowsIt(t, "get_user "+ref, got, want)
			if !on && strings.Contains(msg, "Secretname") {
				t.Errorf("get_user's text names a hidden name: %s", msg)
			}
		}
		found, msg := pluginSearch(t, bob.Token, ann.Username)
		asMattermostShowsIt(t, "search_users", found[ann.ID], want)
		if !on && strings.Contains(msg, "Secretname") {
			t.Errorf("search_users' text names a hidden name: %s", msg)
		}
		// A shown name finds the person and a hidden one matches nothing,
		// in Mattermost's search as in the plugin's.
		rest := restSearch(t, bob, "Secretname")
		byName, _ := pluginSearch(t, bob.Token, "Secretname")
		_, restFinds := rest[ann.ID]
		_, pluginFinds := byName[ann.ID]
		if restFinds != on || pluginFinds != restFinds {
			t.Errorf("Show Full Name %v: search by last name finds ann in Mattermost %v, in the plugin %v", on, restFinds, pluginFinds)
		}
		// A post's author, where shown.
		p := createPost(t, ann, townSquare(t).Id, "privacy parity "+ann.Username, "")
		res := call(t, connect(t, mm.URL, bob.Token), "read_thread", map[string]any{"post": p.Id})
		if res.IsError || !strings.Contains(text(res), "@"+ann.Username) || !on && strings.Contains(text(res), "Secretname") {
			t.Errorf("read_thread's author with Show Full Name %v: %s", on, text(res))
		}
	}
	// Nobody's own name is hidden from them, in Mattermost as in the plugin.
	me, _, err := mm.Client(ann).GetMe(ctx, "")
	if err != nil || me.LastName != "Secretname" {
		t.Fatalf("Mattermost's own answer to ann: %+v %v", me, err)
	}
	got, msg, ok := pluginUser(t, ann.Token, "@"+ann.Username)
	if !ok {
		t.Fatal(msg)
	}
	asMattermostShowsIt(t, "get_user of oneself", got, me)
}

func TestWithShowEmailAddressOffALookupByEmailIsRefusedJustAsMattermostRefusesIt(t *testing.T) {
	ann := namedUser(t, "ann")
	bob := mm.Users[1]
	ctx := context.Background()
	// With emails shown, the start of an address finds the person in both.
	setBool(t, "PrivacySettings.ShowEmailAddress", showEmailAddress, true)
	prefix := strings.SplitN(ann.Email, "@", 2)[0] + "@e2e" // not the start of a username
	if _, ok := restSearch(t, bob, prefix)[ann.ID]; !ok {
		t.Fatalf("Mattermost's own search by the start of %s does not find ann", ann.Email)
	}
	if found, msg := pluginSearch(t, bob.Token, prefix); found[ann.ID].ID != ann.ID {
		t.Errorf("search_users by the start of the email, emails shown: %s", msg)
	}
	setBool(t, "PrivacySettings.ShowEmailAddress", showEmailAddress, false)
	if _, _, err := mm.Client(bob).GetUserByEmail(ctx, ann.Email, ""); statusOf(err) != http.StatusForbidden {
		t.Fatalf("Mattermost's own lookup by email: %v, want 403", err)
	}
	want, _, err := mm.Client(bob).GetUser(ctx, ann.ID, "")
	if err != nil || want.Email != "" {
		t.Fatalf("Mattermost shows bob ann's email %q (%v)", want.Email, err)
	}
	_, msg, ok := pluginUser(t, bob.Token, ann.Email)
	if ok || !strings.Contains(msg, "hides email") || !strings.Contains(msg, "@username") || !strings.Contains(msg, "search_users") {
		t.Fatalf("get_user by email with emails hidden: %s", msg)
	}
	// The address itself matches nothing in either search.
	term := strings.SplitN(ann.Email, "@", 2)[0] + "@"
	if rest := restSearch(t, bob, term); len(rest) != 0 {
		t.Fatalf("Mattermost's own search by email finds %d", len(rest))
	}
	if found, _ := pluginSearch(t, bob.Token, term); len(found) != 0 {
		t.Errorf("search_users by email with emails hidden: %+v", found)
	}
	// By @username the person is found, as Mattermost shows them.
	got, msg, ok := pluginUser(t, bob.Token, "@"+ann.Username)
	if !ok {
		t.Fatal(msg)
	}
	asMattermostShowsIt(t, "get_user by username", got, want)
	// An admin is shown emails whatever the setting, in Mattermost as in the plugin.
	if u, _, err := mm.Client(mm.Admin).GetUserByEmail(ctx, ann.Email, ""); err != nil || u.Id != ann.ID {
		t.Fatalf("Mattermost to the admin: %v", err)
	}
	if got, msg, ok := pluginUser(t, mm.Admin.Token, ann.Email); !ok || got.ID != ann.ID {
		t.Errorf("get_user by email as the admin: %s", msg)
	}
}

// guest makes a guest account of a new user without a licence: Mattermost
// refuses to demote anyone to guest, or to sign a guest in, unlicensed, so
// the user signs in first and is then given the system_guest role (PUT
// /users/{id}/roles), which the session takes on. They are put back on the
// team as a guest, which joins them to no channel.
func guest(t *testing.T) harness.User {
	t.Helper()
	ctx := context.Background()
	ac := mm.Client(mm.Admin)
	g, err := mm.CreateUser(uniq(t, "guest"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.RemoveTeamMember(ctx, mm.Team.Id, g.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ac.UpdateUserRoles(ctx, g.ID, model.SystemGuestRoleId); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ac.AddTeamMember(ctx, mm.Team.Id, g.ID); err != nil {
		t.Fatal(err)
	}
	me, _, err := mm.Client(g).GetMe(ctx, "")
	if err != nil || !me.IsGuest() {
		t.Fatalf("the guest's own session: %+v, %v", me, err)
	}
	return g
}

func TestAGuestSeesOnlyThePeopleTheyShareAChannelWithJustAsInMattermost(t *testing.T) {
	ctx := context.Background()
	ac := mm.Client(mm.Admin)
	g := guest(t)
	near, far, gone := namedUser(t, "near"), namedUser(t, "far"), namedUser(t, "gone")
	ch := createChannel(t, mm.Admin, uniq(t, "guests-"), "Guests", model.ChannelTypePrivate)
	for _, u := range []harness.User{g, near, gone} {
		if _, _, err := ac.AddChannelMember(ctx, ch.Id, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Someone who posted and left: the guest reads the post, not the person.
	p := createPost(t, gone, ch.Id, "a post by someone who then left", "")
	if _, err := ac.RemoveUserFromChannel(ctx, ch.Id, gone.ID); err != nil {
		t.Fatal(err)
	}
	gc := mm.Client(g)

	want, _, err := gc.GetUser(ctx, near.ID, "")
	if err != nil {
		t.Fatalf("Mattermost shows the guest someone they share a channel with: %v", err)
	}
	for _, ref := range []string{near.ID, "@" + near.Username, near.Email} {
		got, msg, ok := pluginUser(t, g.Token, ref)
		if !ok {
			t.Fatalf("get_user(%q) as the guest: %s", ref, msg)
		}
		asMattermostShowsIt(t, "get_user "+ref, got, want)
	}
	for _, u := range []harness.User{far, gone, mm.Users[0]} {
		if _, _, err := gc.GetUser(ctx, u.ID, ""); statusOf(err) != http.StatusForbidden {
			t.Fatalf("Mattermost shows the guest @%s: %v", u.Username, err)
		}
		for _, ref := range []string{u.ID, "@" + u.Username, u.Email} {
			if got, msg, ok := pluginUser(t, g.Token, ref); ok {
				t.Errorf("get_user(%q) as the guest found %+v: %s", ref, got, msg)
			}
		}
	}
	// The same people in both searches.
	for _, term := range []string{"near", "far", "gone", "guest"} {
		rest := restSearch(t, g, term)
		found, _ := pluginSearch(t, g.Token, term)
		for id := range rest {
			if _, ok := found[id]; !ok {
				t.Errorf("search %q: Mattermost shows the guest %s, the plugin does not", term, id)
			}
		}
		for id := range found {
			if _, ok := rest[id]; !ok {
				t.Errorf("search %q: the plugin shows the guest %s, Mattermost does not", term, id)
			}
		}
	}
	// A post's author the guest may not see is not named.
	if users, _, err := gc.GetUsersByIds(ctx, []string{gone.ID}); err != nil || len(users) != 0 {
		t.Fatalf("Mattermost names the author who left to the guest: %+v %v", users, err)
	}
	res := call(t, connect(t, mm.URL, g.Token), "read_thread", map[string]any{"post": p.Id})
	if res.IsError || strings.Contains(text(res), gone.Username) || !strings.Contains(text(res), "unknown user") {
		t.Errorf("read_thread as the guest: %s", text(res))
	}
	// And no direct message can be addressed to someone the guest cannot see.
	if _, _, err := gc.CreateDirectChannel(ctx, g.ID, far.ID); err == nil {
		t.Fatal("Mattermost let the guest open a direct message with someone they cannot see")
	}
}

// Mattermost 11 no longer hides archived channels: it refuses
// TeamSettings.ExperimentalViewArchivedChannels=false ("Hiding archived
// channels is no longer supported"), so a member reads an archived channel
// through Mattermost and through the plugin alike. Older servers (9.11)
// accept the setting off and then hide archived channels: so does the
// plugin.
func TestAnArchivedChannelIsReadThroughThePluginExactlyWhenMattermostReadsIt(t *testing.T) {
	ctx := context.Background()
	bob := mm.Users[1]
	ac := mm.Client(mm.Admin)
	ch := createChannel(t, bob, uniq(t, "archived-"), "Archived", model.ChannelTypeOpen)
	p := createPost(t, bob, ch.Id, "said before the channel was archived", "")
	if _, err := ac.DeleteChannel(ctx, ch.Id); err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, bob.Token)
	reads := func(on bool) {
		t.Helper()
		_, _, err := mm.Client(bob).GetPostsForChannel(ctx, ch.Id, 0, 10, "", false, false)
		if (err == nil) != on {
			t.Fatalf("with archived channels shown %v, Mattermost's own read of one: %v", on, err)
		}
		res := call(t, c, "read_channel", map[string]any{"channel": ch.Id})
		if on && (res.IsError || !strings.Contains(text(res), p.Message)) || !on && (!res.IsError || strings.Contains(text(res), p.Message)) {
			t.Errorf("with archived channels shown %v, read_channel of one: %s", on, text(res))
		}
		res = call(t, c, "read_thread", map[string]any{"post": p.Id})
		if res.IsError == on {
			t.Errorf("with archived channels shown %v, read_thread in one: %s", on, text(res))
		}
	}
	reads(true)
	patch := &model.Config{}
	patch.TeamSettings.ExperimentalViewArchivedChannels = model.NewPointer(false)
	if _, _, err := ac.PatchConfig(ctx, patch); err != nil {
		if !strings.Contains(err.Error(), "no longer supported") {
			t.Fatalf("hiding archived channels refused for another reason: %v", err)
		}
		return
	}
	t.Cleanup(func() {
		patch.TeamSettings.ExperimentalViewArchivedChannels = model.NewPointer(true)
		_, _, _ = ac.PatchConfig(ctx, patch)
	})
	reads(false)
}
