package main

import (
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
