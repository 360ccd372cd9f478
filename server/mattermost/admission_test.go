package mattermost

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
)

const allFacts = admission.NeedGuest | admission.NeedTeams | admission.NeedGroups

// admissionGateway is a gateway on api whose clock is *now.
func admissionGateway(api *plugintest.API, now *time.Time) *Gateway {
	g := NewGateway(api, nil)
	g.admission.now = func() time.Time { return *now }
	return g
}

func TestAdmissionFactsAreTheRolesActiveTeamsAndLiveGroupsOfThePerson(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID, Roles: "system_guest"}, nil).Once()
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "engineering"}, {Id: model.NewId(), Name: "archived", DeleteAt: 1}}, nil).Once()
	live, gone := model.NewId(), model.NewId()
	api.On("GetGroupsForUser", aliceID).Return([]*model.Group{
		{Id: live, Name: model.NewPointer("ai-pilots")}, {Id: gone, Name: model.NewPointer("gone"), DeleteAt: 1}, {Id: model.NewId()},
	}, nil).Once()
	now := time.Now()
	f, err := admissionGateway(api, &now).AdmissionFacts(aliceID, allFacts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Has != allFacts || !f.Guest || len(f.Teams) != 1 || f.Teams[0] != (admission.Named{ID: teamID, Name: "engineering"}) ||
		len(f.Groups) != 2 || f.Groups[0] != (admission.Named{ID: live, Name: "ai-pilots"}) || f.Groups[1].Name != "" {
		t.Fatalf("facts: %+v", f)
	}
}

func TestAdmissionFactsAreReadOnceAMinuteAndOnlyWhatTheSettingsNeed(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID, Roles: "system_user"}, nil)
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "engineering"}}, nil)
	api.On("GetGroupsForUser", aliceID).Return([]*model.Group{}, nil)
	now := time.Now()
	g := admissionGateway(api, &now)

	if _, err := g.AdmissionFacts(aliceID, 0); err != nil {
		t.Fatal(err)
	}
	api.AssertNotCalled(t, "GetUser", aliceID) // everyone, guests too: nothing read
	for range 5 {
		if f, err := g.AdmissionFacts(aliceID, admission.NeedTeams); err != nil || len(f.Teams) != 1 {
			t.Fatalf("teams: %+v %v", f, err)
		}
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 1)
	api.AssertNotCalled(t, "GetGroupsForUser", aliceID)

	// The admin switches to groups with guests off: only what is missing is read.
	now = now.Add(30 * time.Second)
	if f, err := g.AdmissionFacts(aliceID, admission.NeedGroups|admission.NeedGuest); err != nil || f.Guest || f.Has != allFacts {
		t.Fatalf("groups and guest: %+v %v", f, err)
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 1)
	api.AssertNumberOfCalls(t, "GetGroupsForUser", 1)
	api.AssertNumberOfCalls(t, "GetUser", 1)

	// A minute after the first read, everything needed is read again.
	now = now.Add(30 * time.Second)
	if _, err := g.AdmissionFacts(aliceID, admission.NeedTeams); err != nil {
		t.Fatal(err)
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 2)
	api.AssertNumberOfCalls(t, "GetGroupsForUser", 1)
}

func TestAFailedReadIsAnErrorAndHoldsNothing(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("GetTeamsForUser", aliceID).Return(nil, model.NewAppError("test", "db", nil, "", http.StatusInternalServerError)).Once()
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "engineering"}}, nil).Once()
	now := time.Now()
	g := admissionGateway(api, &now)
	var appErr *model.AppError
	if _, err := g.AdmissionFacts(aliceID, admission.NeedTeams); !errors.As(err, &appErr) {
		t.Fatalf("a failed read answered %v", err)
	}
	if f, err := g.AdmissionFacts(aliceID, admission.NeedTeams); err != nil || len(f.Teams) != 1 {
		t.Fatalf("the read after the failure: %+v %v", f, err)
	}
}

func TestAPersonInMoreTeamsThanAreHeldIsReadEachTimeAndTheCacheStaysBounded(t *testing.T) {
	api := &plugintest.API{}
	many := make([]*model.Team, maxHeldMemberships+1)
	for i := range many {
		many[i] = &model.Team{Id: model.NewId(), Name: fmt.Sprintf("team-%d", i)}
	}
	api.On("GetTeamsForUser", aliceID).Return(many, nil)
	now := time.Now()
	g := admissionGateway(api, &now)
	for range 2 {
		if f, err := g.AdmissionFacts(aliceID, admission.NeedTeams); err != nil || len(f.Teams) != len(many) {
			t.Fatalf("%d teams, %v", len(f.Teams), err)
		}
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 2)

	for i := range maxAdmissionPeople + 10 {
		g.admission.hold(fmt.Sprint(i), heldFacts{at: now}, now)
	}
	if n := len(g.admission.people); n > maxAdmissionPeople {
		t.Fatalf("%d people held, bound %d", n, maxAdmissionPeople)
	}
}

func TestTheDirectoriesTellNoSuchTeamOrGroupFromAFailedRead(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	g := NewGateway(api, nil)
	missing, broken := model.NewId(), model.NewId()
	api.On("GetTeam", teamID).Return(&model.Team{Id: teamID, Name: "engineering", DisplayName: "Engineering", DeleteAt: 1}, nil)
	api.On("GetTeam", missing).Return(nil, model.NewAppError("GetTeam", "app.team.get.find.app_error", nil, "", http.StatusNotFound))
	api.On("GetTeam", broken).Return(nil, model.NewAppError("GetTeam", "app.team.get.finding.app_error", nil, "", http.StatusInternalServerError))
	teams := g.TeamDirectory()
	if l, found, err := teams.ByID(teamID); err != nil || !found || l != (admission.Listing{Named: admission.Named{ID: teamID, Name: "engineering"}, Display: "Engineering", Gone: true}) {
		t.Fatalf("a team: %+v %v %v", l, found, err)
	}
	if _, found, err := teams.ByID(missing); err != nil || found {
		t.Fatalf("no such team: %v %v", found, err)
	}
	if _, _, err := teams.ByID(broken); err == nil {
		t.Fatal("a failed read reads as no such team")
	}

	// The groups are the LDAP ones, then the custom ones, up to the bound.
	ldap := []*model.Group{{Id: model.NewId(), Name: model.NewPointer("ldap-0")}}
	custom := make([]*model.Group, maxGroupsCompared)
	for i := range custom {
		custom[i] = &model.Group{Id: model.NewId(), Name: model.NewPointer(fmt.Sprintf("g%d", i))}
	}
	api.On("GetGroupsBySource", model.GroupSourceLdap).Return(ldap, nil).Once()
	api.On("GetGroupsBySource", model.GroupSourceCustom).Return(custom, nil).Once()
	all, err := g.GroupDirectory().All()
	if err != nil || len(all) != maxGroupsCompared || all[0].Name != "ldap-0" || all[1].Name != "g0" {
		t.Fatalf("%d groups, %v", len(all), err)
	}
}
