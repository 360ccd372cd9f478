package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// routesSeen is a router whose every route records the request it got.
func routesSeen(got *[]string) *mux.Router {
	r := mux.NewRouter()
	r.PathPrefix("/").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = append(*got, r.URL.Path+" session="+transport.MattermostSession(r.Context()))
		w.WriteHeader(http.StatusOK)
	})
	return r
}

func TestARequestFromAnotherPluginReachesNoRoute(t *testing.T) {
	var got []string
	routes := routesSeen(&got)
	for _, path := range []string{"/mcp", "/confirm/0123/accept", "/api/v1/confirmations", "/api/v1/files", "/files/d/tok", "/.well-known/oauth-protected-resource"} {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		req.Header.Set("Mattermost-Plugin-ID", "some-other-plugin")
		req.Header.Set("Mattermost-User-Id", "alice")
		w := httptest.NewRecorder()
		serve(routes, &plugin.Context{SessionId: "s1"}, w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("%s: %d", path, w.Code)
		}
	}
	if len(got) != 0 {
		t.Fatalf("routes were reached: %v", got)
	}
}

func TestEveryRouteLearnsTheMattermostSessionOfItsRequest(t *testing.T) {
	var got []string
	routes := routesSeen(&got)
	serve(routes, &plugin.Context{SessionId: "s1"}, httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/confirm/x", nil))
	serve(routes, nil, httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if len(got) != 2 || got[0] != "/confirm/x session=s1" || got[1] != "/mcp session=" {
		t.Fatalf("routes saw %v", got)
	}
}

func TestThePluginTakesItsIDAndNameFromTheBundlesPluginJSON(t *testing.T) {
	raw, err := os.ReadFile("../plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var want model.Manifest
	if err := json.Unmarshal(raw, &want); err != nil || want.Id == "" {
		t.Fatalf("plugin.json: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	api := &plugintest.API{}
	api.On("GetBundlePath").Return(dir, nil)
	p := &Plugin{}
	p.SetAPI(api)
	m, err := p.manifest()
	if err != nil || m.Id != want.Id || m.Name != want.Name {
		t.Fatalf("manifest %+v, %v; want %s %q", m, err, want.Id, want.Name)
	}

	broken := &plugintest.API{}
	broken.On("GetBundlePath").Return(t.TempDir(), nil)
	q := &Plugin{}
	q.SetAPI(broken)
	if err := q.OnActivate(); err == nil {
		t.Fatal("a bundle without plugin.json activated")
	}
}

// configuredPlugin is the plugin on a server whose configuration is *cfg
// (changed by the test between calls), installed from this plugin.json.
func configuredPlugin(t *testing.T, cfg *model.Config) (*Plugin, *plugintest.API) {
	t.Helper()
	raw, err := os.ReadFile("../plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	api := &plugintest.API{}
	api.On("GetBundlePath").Return(dir, nil)
	api.On("GetConfig").Return(func() *model.Config { return cfg })
	api.On("GetServerVersion").Return("11.4.0")
	api.On("LogInfo", mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return()
	api.On("LogInfo", mock.Anything, mock.Anything, mock.Anything).Return()
	p := &Plugin{}
	p.SetAPI(api)
	return p, api
}

func TestEveryChangeOfMattermostsConfigurationRechecksWhetherOAuthIsAdvertised(t *testing.T) {
	cfg := &model.Config{}
	cfg.SetDefaults()
	cfg.ServiceSettings.EnableOAuthServiceProvider = model.NewPointer(true)
	cfg.ServiceSettings.EnableDynamicClientRegistration = model.NewPointer(true)
	p, _ := configuredPlugin(t, cfg)

	steps := []struct {
		change func()
		want   bool
	}{
		{func() {}, true},
		{func() { cfg.ServiceSettings.EnableOAuthServiceProvider = model.NewPointer(false) }, false},
		{func() { cfg.ServiceSettings.EnableOAuthServiceProvider = model.NewPointer(true) }, true},
		{func() { cfg.ServiceSettings.EnableDynamicClientRegistration = model.NewPointer(false) }, false},
		{func() { cfg.ServiceSettings.EnableDynamicClientRegistration = nil }, false}, // a server that lacks the setting
		{func() { cfg.ServiceSettings.EnableDynamicClientRegistration = model.NewPointer(true) }, true},
	}
	for i, s := range steps {
		s.change()
		if err := p.OnConfigurationChange(); err != nil {
			t.Fatal(err)
		}
		if got := p.oauthSignIn(); got != s.want {
			t.Fatalf("step %d: OAuth advertised %v, want %v", i, got, s.want)
		}
	}
}

func TestScheduledPostsAreOfferedOnlyWithALicenceAndTheSettingOnAndAChangeOfTheSettingIsSeenAtOnce(t *testing.T) {
	cfg := &model.Config{}
	cfg.SetDefaults()
	var license *model.License
	p, api := configuredPlugin(t, cfg)
	api.On("GetLicense").Return(func() *model.License { return license })
	steps := []struct {
		change func()
		want   bool
	}{
		{func() {}, false}, // no licence
		{func() { license = &model.License{} }, true},
		{func() { cfg.ServiceSettings.ScheduledPosts = model.NewPointer(false) }, false},
		{func() { cfg.ServiceSettings.ScheduledPosts = nil }, false}, // off, as the RPC hands it over
		{func() { cfg.ServiceSettings.ScheduledPosts = model.NewPointer(true) }, true},
		{func() { license = nil }, false},
	}
	for i, s := range steps {
		s.change()
		// A configuration change makes the licence read again at once.
		if err := p.OnConfigurationChange(); err != nil {
			t.Fatal(err)
		}
		if got := p.current().Has(config.ScheduledPosts); got != s.want {
			t.Fatalf("step %d: scheduled posts %v, want %v", i, got, s.want)
		}
	}
}

func TestSavingAToolLeftOutThatIsNoToolIsRefusedOnceTheCatalogueIsKnown(t *testing.T) {
	cfg := &model.Config{}
	cfg.SetDefaults()
	p, _ := configuredPlugin(t, cfg)
	m, err := p.manifest()
	if err != nil {
		t.Fatal(err)
	}
	cfg.PluginSettings.Plugins = map[string]map[string]any{m.Id: {"excludedtools": "delete_pots"}}
	if _, err := p.ConfigurationWillBeSaved(cfg); err != nil {
		t.Fatalf("before the catalogue exists nothing can be checked, yet the save was refused: %v", err)
	}
	known := []string{"delete_post", "read_file"}
	p.excludable.Store(&known)
	_, err = p.ConfigurationWillBeSaved(cfg)
	appErr, ok := err.(*model.AppError)
	if !ok || appErr.StatusCode != http.StatusBadRequest || !strings.Contains(appErr.Message, `"delete_pots", which is no tool`) ||
		!strings.Contains(appErr.Message, "delete_post") {
		t.Fatalf("saving an unknown tool: %#v", err)
	}
	cfg.PluginSettings.Plugins[m.Id]["excludedtools"] = "delete_post"
	if _, err := p.ConfigurationWillBeSaved(cfg); err != nil {
		t.Fatalf("saving a known tool: %v", err)
	}
}
