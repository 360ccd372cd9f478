package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// BenchmarkAuthenticate is what Authenticate costs a request in the steady
// state (the user found active and their facts read within the minute),
// without the rule of who may connect and with it: the plugin's own check
// over a real gateway whose plugin API is a test double (asked once).
func BenchmarkAuthenticate(b *testing.B) {
	api := &plugintest.API{}
	teams := make([]*model.Team, 10)
	for i := range teams {
		teams[i] = &model.Team{Id: model.NewId(), Name: fmt.Sprintf("team-%d", i)}
	}
	api.On("GetUser", mock.Anything).Return(&model.User{Roles: "system_user"}, nil)
	api.On("GetTeamsForUser", mock.Anything).Return(teams, nil)
	gw := mattermost.NewGateway(api, nil)
	listed := "sales marketing support legal finance ops design research hr " + teams[9].Name
	c, err := config.Parse(map[string]any{"ConnectAccess": "teams", "ConnectTeams": listed, "AllowGuests": false})
	if err != nil {
		b.Fatal(err)
	}
	rule := func(userID string) (admission.Verdict, error) {
		facts, err := gw.AdmissionFacts(userID, admission.Needs(c))
		if err != nil {
			return admission.Verdict{}, err
		}
		return admission.Decide(c, facts), nil
	}
	for _, bc := range []struct {
		name   string
		admits func(string) (admission.Verdict, error)
	}{{"RuleOff", nil}, {"TeamsAndNoGuests", rule}} {
		b.Run(bc.name, func(b *testing.B) {
			kv := newMemKV()
			tr := New(Options{
				PluginID: "plugin-under-test", Version: "test", Instructions: "test",
				SiteURL:    func() string { return "https://chat.example.com/" },
				UserActive: func(string) (bool, error) { return true, nil },
				Admits:     bc.admits,
				KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
			})
			req := httptest.NewRequest(http.MethodPost, MCPPath, nil)
			req.Header.Set("Mattermost-User-Id", "alice")
			w := httptest.NewRecorder()
			if _, ok := tr.Authenticate(w, req); !ok {
				b.Fatalf("alice was refused: %d %s", w.Code, w.Body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, ok := tr.Authenticate(w, req); !ok {
					b.Fatal("alice was refused")
				}
			}
		})
	}
}
