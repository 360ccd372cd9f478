package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestTheRuleOfWhoMayConnectFollowsASettingsChangeAtOnceWithoutReadingThePersonAgain(t *testing.T) {
	cfg := &model.Config{}
	cfg.SetDefaults()
	p, api := configuredPlugin(t, cfg)
	m, err := p.manifest()
	if err != nil {
		t.Fatal(err)
	}
	aliceID, teamID := model.NewId(), model.NewId()
	api.On("GetTeamsForUser", aliceID).Return([]*model.Team{{Id: teamID, Name: "engineering"}}, nil).Once()
	admits := p.admits(mattermost.NewGateway(api, nil))
	settings := func(s map[string]any) {
		cfg.PluginSettings.Plugins = map[string]map[string]any{m.Id: s}
		if err := p.OnConfigurationChange(); err != nil {
			t.Fatal(err)
		}
	}

	steps := []struct {
		settings map[string]any
		reason   string
	}{
		{map[string]any{}, ""}, // everyone: nothing is read
		{map[string]any{"connectaccess": "teams", "connectteams": "engineering"}, ""},
		{map[string]any{"connectaccess": "teams", "connectteams": "sales"}, admission.ReasonNotInTeams},
		{map[string]any{"connectaccess": "teams", "connectteams": teamID}, ""},
	}
	for i, s := range steps {
		settings(s.settings)
		v, err := admits(aliceID)
		if err != nil || v.Reason != s.reason || v.Allowed != (s.reason == "") {
			t.Fatalf("step %d (%v): %+v %v", i, s.settings, v, err)
		}
	}
	api.AssertNumberOfCalls(t, "GetTeamsForUser", 1)
}

func TestSavingATeamOrGroupThatIsNoneIsRefusedAndOneAlreadyInForceIsNotLookedUpAgain(t *testing.T) {
	cfg := &model.Config{}
	cfg.SetDefaults()
	p, api := configuredPlugin(t, cfg)
	if err := p.OnConfigurationChange(); err != nil {
		t.Fatal(err)
	}
	m, err := p.manifest()
	if err != nil {
		t.Fatal(err)
	}
	listedID, shaped := model.NewId(), model.NewId()
	notFound := model.NewAppError("GetTeam", "app.team.get.find.app_error", nil, "", http.StatusNotFound)
	api.On("GetTeam", listedID).Return(&model.Team{Id: listedID, Name: "engineering"}, nil)
	api.On("GetTeam", shaped).Return(nil, notFound)
	api.On("GetTeamByName", shaped).Return(&model.Team{Id: model.NewId(), Name: shaped, DisplayName: "Lookalike"}, nil)
	api.On("GetGroupByName", "pilots").Return(nil, model.NewAppError("GetGroupByName", "app.group.no_rows", nil, "", http.StatusNotFound))
	api.On("GetGroupsBySource", model.GroupSourceLdap).Return([]*model.Group{}, nil)
	api.On("GetGroupsBySource", model.GroupSourceCustom).Return([]*model.Group{{Id: model.NewId(), Name: model.NewPointer("ai-pilots")}}, nil)
	save := func(s map[string]any) error {
		cfg.PluginSettings.Plugins = map[string]map[string]any{m.Id: s}
		_, err := p.ConfigurationWillBeSaved(cfg)
		return err
	}

	teams := map[string]any{"connectaccess": "teams", "connectteams": shaped}
	if err := save(teams); err != nil {
		t.Fatalf("before OnActivate nothing can be looked up, yet the save was refused: %v", err)
	}
	p.gateway.Store(mattermost.NewGateway(api, nil))
	appErr, ok := save(teams).(*model.AppError)
	if !ok || appErr.StatusCode != http.StatusBadRequest || !strings.Contains(appErr.Message, "has the form of an id but is no team's id") {
		t.Fatalf("saving the name of a team as its id: %#v", appErr)
	}
	err = save(map[string]any{"connectaccess": "groups", "connectgroups": "pilots"})
	if err == nil || !strings.Contains(err.Error(), `"pilots", which is no group: the nearest groups are ai-pilots`) {
		t.Fatalf("saving a group that is none: %v", err)
	}
	if err := save(map[string]any{"connectaccess": "teams", "connectteams": listedID}); err != nil {
		t.Fatalf("saving a team by its id: %v", err)
	}

	// Once in force, the team is not looked up again when other settings
	// are saved.
	if err := p.OnConfigurationChange(); err != nil {
		t.Fatal(err)
	}
	if err := save(map[string]any{"connectaccess": "teams", "connectteams": listedID, "maxcallsperminute": 60}); err != nil {
		t.Fatal(err)
	}
	api.AssertNumberOfCalls(t, "GetTeam", 2)
}
