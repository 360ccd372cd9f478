package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// TestTheHarnessStartsMattermostAndCreatesUsers starts a real Mattermost
// without a plugin bundle and checks what the e2e tests rely on, then checks
// that Close leaves none of its processes or files behind.
func TestTheHarnessStartsMattermostAndCreatesUsers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	t0 := time.Now()
	s, err := Start(ctx, Options{LogWriter: testWriter{t}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	t.Logf("Start took %s", time.Since(t0).Round(100*time.Millisecond))

	// Ping answers OK.
	resp, err := http.Get(s.URL + "/api/v4/system/ping")
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	var ping struct{ Status string }
	json.NewDecoder(resp.Body).Decode(&ping)
	resp.Body.Close()
	if resp.StatusCode != 200 || ping.Status != "OK" {
		t.Fatalf("ping: HTTP %d status %q", resp.StatusCode, ping.Status)
	}

	// The admin is a system admin; alice and bob are ordinary users.
	if len(s.Users) < 2 || s.Users[0].Username != "alice" || s.Users[1].Username != "bob" {
		t.Fatalf("Users = %+v, want alice and bob", s.Users)
	}
	me, _, err := s.Client(s.Admin).GetMe(ctx, "")
	if err != nil {
		t.Fatalf("admin GetMe: %v", err)
	}
	if !me.IsSystemAdmin() {
		t.Errorf("admin roles = %q, want system admin", me.Roles)
	}

	// Alice can log in with her password and is in the team.
	alice := s.Users[0]
	c := model.NewAPIv4Client(s.URL)
	if _, _, err := c.Login(ctx, alice.Username, alice.Password); err != nil {
		t.Fatalf("alice login: %v", err)
	}
	member, _, err := c.GetTeamMember(ctx, s.Team.Id, alice.ID, "")
	if err != nil || member.UserId != alice.ID || member.DeleteAt != 0 {
		t.Fatalf("alice team member: %+v, %v", member, err)
	}
	me, _, err = c.GetMe(ctx, "")
	if err != nil || me.IsSystemAdmin() {
		t.Fatalf("alice GetMe: %+v, %v (must not be system admin)", me, err)
	}

	// A personal access token of alice works for GET /api/v4/users/me.
	pat, err := s.PersonalAccessToken(alice)
	if err != nil {
		t.Fatalf("PersonalAccessToken: %v", err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v4/users/me", nil)
	req.Header.Set("Authorization", "Bearer "+pat)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("users/me with token: %v", err)
	}
	var u model.User
	json.NewDecoder(resp.Body).Decode(&u)
	resp.Body.Close()
	if resp.StatusCode != 200 || u.Id != alice.ID {
		t.Fatalf("users/me with alice's token: HTTP %d id %q, want %q", resp.StatusCode, u.Id, alice.ID)
	}

	// A user created later is logged in and joined to the team.
	carol, err := s.CreateUser("carol")
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if _, _, err := s.Client(carol).GetTeamMember(ctx, s.Team.Id, carol.ID, ""); err != nil {
		t.Fatalf("carol team member: %v", err)
	}

	// Plugin settings go through the config API and come back.
	if err := s.PatchPluginSettings(map[string]any{"SomeSetting": "x"}); err != nil {
		t.Fatalf("PatchPluginSettings: %v", err)
	}
	// The server hides settings of plugins that are not installed, so read the
	// saved config file of node 1.
	var saved model.Config
	if b, err := os.ReadFile(s.nodes()[0].configPath); err != nil {
		t.Fatalf("read config.json: %v", err)
	} else if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatalf("parse config.json: %v", err)
	}
	if got := saved.PluginSettings.Plugins[PluginID]["somesetting"]; got != "x" {
		t.Fatalf("saved plugin settings = %v, want somesetting=x", saved.PluginSettings.Plugins)
	}

	// A second node on the same database serves through the round-robin proxy.
	proxyURL, err := s.StartSecondNode(ctx)
	if err != nil {
		t.Fatalf("StartSecondNode: %v", err)
	}
	pc := ClientAt(proxyURL, alice)
	for i := 0; i < 4; i++ {
		if got, _, err := pc.GetMe(ctx, ""); err != nil || got.Id != alice.ID {
			t.Fatalf("GetMe through proxy (request %d): %+v, %v", i, got, err)
		}
	}
	if n1, n2 := s.ProxyHits(); n1 != 2 || n2 != 2 {
		t.Errorf("ProxyHits = %d, %d, want 2, 2", n1, n2)
	}

	if _, err := os.Stat(s.ServerLog()); err != nil {
		t.Errorf("ServerLog: %v", err)
	}

	pids := s.PIDs()
	if len(pids) != 3 {
		t.Fatalf("PIDs = %v, want two mattermost nodes and postgres", pids)
	}
	dir := s.TempDir()
	t1 := time.Now()
	closed = true
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	t.Logf("Close took %s", time.Since(t1).Round(100*time.Millisecond))
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for _, pid := range pids {
		if processAlive(pid) {
			t.Errorf("process %d still running after Close", pid)
		}
	}
	// Nothing else that ran from the temp dir (postgres backends, plugin processes) is left.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), dir) {
			t.Errorf("process %s still running after Close: %q", filepath.Dir(p), b)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s still there after Close (%v)", dir, err)
	}
}

// testWriter sends harness progress lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}
