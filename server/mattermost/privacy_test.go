package mattermost

import (
	"errors"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"
)

// A small Mattermost for the privacy decisions: team "t" with alice, bob
// and carol (who may view members, as Mattermost's system_user role lets
// them) and gail, a guest who shares only channel "c" with alice.

var (
	team  = &model.Team{Id: model.NewId(), Name: "t", DisplayName: "T"}
	chanC = model.NewId()
	alice = &model.User{Id: model.NewId(), Username: "alice", FirstName: "Alice", LastName: "Secretname",
		Nickname: "Al", Position: "Lead", Email: "alice@example.com"}
	bob   = &model.User{Id: model.NewId(), Username: "bob", FirstName: "Bob", LastName: "Builder", Email: "bob@example.com"}
	carol = &model.User{Id: model.NewId(), Username: "carol", FirstName: "Carol", LastName: "Hidden", Email: "carol@example.com"}
	gail  = &model.User{Id: model.NewId(), Username: "gail", FirstName: "Gail", LastName: "Guest", Email: "gail@example.com",
		Roles: model.SystemGuestRoleId}
)

type world struct {
	api *plugintest.API
	cfg *model.Config
}

func newWorld(t *testing.T) *world {
	t.Helper()
	cfg := &model.Config{}
	cfg.SetDefaults()
	w := &world{api: &plugintest.API{}, cfg: cfg}
	w.api.On("GetConfig").Return(cfg)
	for _, u := range []*model.User{alice, bob, carol, gail} {
		w.api.On("GetUser", u.Id).Return(u.DeepCopy(), nil)
		w.api.On("GetUserByUsername", u.Username).Return(u.DeepCopy(), nil)
		w.api.On("GetUserByEmail", u.Email).Return(u.DeepCopy(), nil)
		w.api.On("GetTeamsForUser", u.Id).Return([]*model.Team{team}, nil)
		w.api.On("GetTeamMember", team.Id, u.Id).Return(&model.TeamMember{TeamId: team.Id, UserId: u.Id}, nil)
		w.api.On("HasPermissionTo", u.Id, model.PermissionManageSystem).Return(false)
		guest := u == gail
		w.api.On("HasPermissionTo", u.Id, model.PermissionViewMembers).Return(!guest)
		w.api.On("HasPermissionToTeam", u.Id, team.Id, model.PermissionViewMembers).Return(!guest)
		w.api.On("GetChannelsForTeamForUser", "", u.Id, true).Return([]*model.Channel{}, nil)
		var channels []*model.ChannelMember
		if u == alice || u == gail {
			channels = append(channels, &model.ChannelMember{ChannelId: chanC, UserId: u.Id})
		}
		w.api.On("GetChannelMembersForUser", "", u.Id, 0, membersPage).Return(channels, nil)
	}
	w.api.On("GetTeam", team.Id).Return(team, nil)
	return w
}

func (w *world) as(u *model.User) *Caller { return NewGateway(w.api, nil).As(u.Id) }

func (w *world) hideNames()  { w.cfg.PrivacySettings.ShowFullName = model.NewPointer(false) }
func (w *world) hideEmails() { w.cfg.PrivacySettings.ShowEmailAddress = model.NewPointer(false) }

func TestWithShowFullNameOffAnotherPersonsNamesAreBlankWhileNicknameAndPositionRemain(t *testing.T) {
	w := newWorld(t)
	w.hideNames()
	u, err := w.as(bob).User("@alice")
	if err != nil {
		t.Fatal(err)
	}
	if u.FirstName != "" || u.LastName != "" {
		t.Errorf("names shown with Show Full Name off: %q %q", u.FirstName, u.LastName)
	}
	if u.Nickname != "Al" || u.Position != "Lead" || u.Username != "alice" || u.Email != alice.Email {
		t.Errorf("Mattermost hides only names: got %+v", u)
	}
}

func TestWithShowFullNameOnAnotherPersonsNamesAreShown(t *testing.T) {
	w := newWorld(t)
	u, err := w.as(bob).User(alice.Id)
	if err != nil || u.FirstName != "Alice" || u.LastName != "Secretname" {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestASystemAdminIsShownNamesAndEmailWhateverThePrivacySettings(t *testing.T) {
	w := newWorld(t)
	w.hideNames()
	w.hideEmails()
	admin := &model.User{Id: model.NewId(), Username: "admin"}
	w.api.On("HasPermissionTo", admin.Id, model.PermissionManageSystem).Return(true)
	w.api.On("HasPermissionTo", admin.Id, model.PermissionViewMembers).Return(true)
	w.api.On("GetTeamMember", team.Id, admin.Id).Return(&model.TeamMember{TeamId: team.Id, UserId: admin.Id}, nil)
	u, err := w.as(admin).User(alice.Email)
	if err != nil || u.FirstName != "Alice" || u.Email != alice.Email {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestNobodysOwnNamesOrEmailAreHiddenFromThem(t *testing.T) {
	w := newWorld(t)
	w.hideNames()
	w.hideEmails()
	me, err := w.as(bob).Me()
	if err != nil || me.FirstName != "Bob" || me.Email != bob.Email {
		t.Fatalf("got %+v, %v", me, err)
	}
}

func TestWithShowEmailAddressOffALookupByEmailIsRefusedAndNoEmailIsShown(t *testing.T) {
	w := newWorld(t)
	w.hideEmails()
	c := w.as(bob)
	if _, err := c.User(alice.Email); !errors.Is(err, ErrEmailHidden) {
		t.Fatalf("lookup by email: %v, want ErrEmailHidden", err)
	}
	w.api.AssertNotCalled(t, "GetUserByEmail", alice.Email)
	u, err := c.User("@alice")
	if err != nil || u.Email != "" || u.FirstName != "Alice" {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestASettingThatArrivesNilOverRPCIsOff(t *testing.T) {
	// gob leaves out zero values, so a setting that is off crosses the plugin
	// RPC as nil.
	w := newWorld(t)
	w.cfg.PrivacySettings.ShowEmailAddress = nil
	w.cfg.PrivacySettings.ShowFullName = nil
	c := w.as(bob)
	if _, err := c.User(alice.Email); !errors.Is(err, ErrEmailHidden) {
		t.Fatalf("lookup by email: %v", err)
	}
	if u, err := c.User("@alice"); err != nil || u.FirstName != "" {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestAGuestSeesOnlyPeopleTheyShareAChannelWith(t *testing.T) {
	w := newWorld(t)
	c := w.as(gail)
	if u, err := c.User("@alice"); err != nil || u.Id != alice.Id {
		t.Fatalf("alice shares channel c with gail: %+v, %v", u, err)
	}
	for _, ref := range []string{"@carol", carol.Id, carol.Email} {
		if u, err := c.User(ref); !errors.Is(err, ErrNotFound) {
			t.Errorf("User(%q) for a guest who shares no channel with carol: %+v, %v", ref, u, err)
		}
	}
}

func TestSomeoneWithoutViewMembersStillSeesTheMembersOfATeamWhereTheyHoldIt(t *testing.T) {
	w := newWorld(t)
	dave := &model.User{Id: model.NewId(), Username: "dave"}
	w.api.On("GetTeamsForUser", dave.Id).Return([]*model.Team{team}, nil)
	w.api.On("GetTeamMember", team.Id, dave.Id).Return(&model.TeamMember{TeamId: team.Id, UserId: dave.Id}, nil)
	w.api.On("HasPermissionTo", dave.Id, model.PermissionViewMembers).Return(false)
	w.api.On("HasPermissionTo", dave.Id, model.PermissionManageSystem).Return(false)
	w.api.On("HasPermissionToTeam", dave.Id, team.Id, model.PermissionViewMembers).Return(true)
	w.api.On("GetChannelMembersForUser", "", dave.Id, 0, membersPage).Return([]*model.ChannelMember{}, nil)
	if u, err := w.as(dave).User("@carol"); err != nil || u.Id != carol.Id {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestSearchDoesNotMatchOnANameOrEmailHiddenFromTheCaller(t *testing.T) {
	w := newWorld(t)
	// Whatever the plugin API's search matched on, hidden fields match nothing.
	w.api.On("SearchUsers", mock.Anything).Return([]*model.User{alice.DeepCopy()}, nil)
	for _, term := range []string{"secret", "alice@exa", "alice secret"} {
		found, err := w.as(bob).SearchUsers(term, 20)
		if err != nil || len(found) != 1 || found[0].LastName != "Secretname" {
			t.Fatalf("with everything shown, %q: %+v, %v", term, found, err)
		}
	}
	w.hideNames()
	w.hideEmails()
	for _, term := range []string{"secret", "alice@exa", "alice secret"} {
		if found, err := w.as(bob).SearchUsers(term, 20); err != nil || len(found) != 0 {
			t.Errorf("hidden fields matched %q: %+v, %v", term, found, err)
		}
	}
	found, err := w.as(bob).SearchUsers("al", 20)
	if err != nil || len(found) != 1 || found[0].FirstName != "" || found[0].Email != "" || found[0].Nickname != "Al" {
		t.Fatalf("search by username with names hidden: %+v, %v", found, err)
	}
}

func TestAGuestsSearchLeavesOutPeopleTheyShareNoChannelWith(t *testing.T) {
	w := newWorld(t)
	w.api.On("SearchUsers", mock.Anything).Return([]*model.User{alice.DeepCopy(), carol.DeepCopy()}, nil)
	found, err := w.as(gail).SearchUsers("a", 20)
	if err != nil {
		t.Fatal(err)
	}
	found2, err := w.as(gail).SearchUsers("c", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Id != alice.Id || len(found2) != 0 {
		t.Fatalf("guest search: %+v / %+v", found, found2)
	}
}

func TestAGuestCannotOpenADirectMessageWithSomeoneTheyCannotSee(t *testing.T) {
	w := newWorld(t)
	if _, err := w.as(gail).DirectChannelWith(carol.Id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
	if _, err := w.as(gail).GroupChannelWith([]string{alice.Id, carol.Id}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
	w.api.AssertNotCalled(t, "GetDirectChannel", mock.Anything, mock.Anything)
	w.api.AssertNotCalled(t, "GetGroupChannel", mock.Anything)
}

func TestPostAuthorsAreShownAsMattermostShowsThemToTheCaller(t *testing.T) {
	w := newWorld(t)
	w.hideNames()
	w.api.On("GetUsersByIds", []string{alice.Id, carol.Id}).Return([]*model.User{alice.DeepCopy(), carol.DeepCopy()}, nil)
	all, err := w.as(bob).Authors([]string{alice.Id, carol.Id})
	if err != nil || len(all) != 2 || all[alice.Id].FirstName != "" || all[alice.Id].Nickname != "Al" {
		t.Fatalf("bob: %+v, %v", all, err)
	}
	some, err := w.as(gail).Authors([]string{alice.Id, carol.Id})
	if err != nil || len(some) != 1 || some[alice.Id] == nil {
		t.Fatalf("a guest is shown only the authors they share a channel with: %+v, %v", some, err)
	}
	if _, err := w.as(gail).Poster(carol.Id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("poster carol for gail: %v", err)
	}
}

func TestAnArchivedChannelIsNotFoundWhileViewingArchivedChannelsIsOff(t *testing.T) {
	w := newWorld(t)
	archived := &model.Channel{Id: model.NewId(), TeamId: team.Id, Type: model.ChannelTypeOpen, Name: "old", DeleteAt: 1}
	w.api.On("GetChannel", archived.Id).Return(archived, nil)
	w.api.On("HasPermissionToChannel", bob.Id, archived.Id, model.PermissionReadChannelContent).Return(true)
	if _, err := w.as(bob).Channel(archived.Id); err != nil {
		t.Fatalf("with the setting on, a member reads an archived channel: %v", err)
	}
	w.cfg.TeamSettings.ExperimentalViewArchivedChannels = model.NewPointer(false)
	if _, err := w.as(bob).Channel(archived.Id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("with the setting off: %v", err)
	}
	post := &model.Post{Id: model.NewId(), ChannelId: archived.Id, UserId: alice.Id}
	w.api.On("GetPost", post.Id).Return(post, nil)
	if _, err := w.as(bob).Post(post.Id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a post of an archived channel with the setting off: %v", err)
	}
}

func TestSomeoneOutsideEveryTeamAndConversationIsNotFound(t *testing.T) {
	w := newWorld(t)
	loner := &model.User{Id: model.NewId(), Username: "loner"}
	w.api.On("GetUserByUsername", "loner").Return(loner, nil)
	w.api.On("GetTeamsForUser", loner.Id).Return([]*model.Team{}, nil)
	if _, err := w.as(bob).User("@loner"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}
