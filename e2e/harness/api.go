package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

const apiTimeout = 60 * time.Second

// apiError describes a failed REST call including the server's error text.
func apiError(what string, resp *model.Response, err error) error {
	if err == nil {
		return nil
	}
	var appErr *model.AppError
	if errors.As(err, &appErr) {
		msg := appErr.Message
		if appErr.DetailedError != "" {
			msg += " (" + appErr.DetailedError + ")"
		}
		return fmt.Errorf("%s: HTTP %d %s: %s", what, appErr.StatusCode, appErr.Id, msg)
	}
	if resp != nil {
		return fmt.Errorf("%s: HTTP %d: %w", what, resp.StatusCode, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Client returns a client of node 1 authenticated with u.Token.
func (s *Server) Client(u User) *model.Client4 {
	return ClientAt(s.URL, u)
}

// ClientAt returns a client of baseURL (a node or the proxy) authenticated with u.Token.
func ClientAt(baseURL string, u User) *model.Client4 {
	c := model.NewAPIv4Client(baseURL)
	c.SetToken(u.Token)
	return c
}

func (s *Server) createUsersAndTeam(ctx context.Context) error {
	admin, err := s.signUp(ctx, "admin")
	if err != nil {
		return err
	}
	s.Admin = admin
	for _, name := range []string{"alice", "bob"} {
		u, err := s.signUp(ctx, name)
		if err != nil {
			return err
		}
		s.Users = append(s.Users, u)
	}
	ac := s.Client(s.Admin)
	team, resp, err := ac.CreateTeam(ctx, &model.Team{Name: "e2e", DisplayName: "E2E", Type: model.TeamOpen})
	if err != nil {
		return apiError("create team", resp, err)
	}
	s.Team = team
	for _, u := range s.Users {
		if _, resp, err := ac.AddTeamMember(ctx, team.Id, u.ID); err != nil {
			return apiError("add "+u.Username+" to team", resp, err)
		}
	}
	return nil
}

// signUp creates a user with POST /api/v4/users (unauthenticated; the first one
// becomes system admin) and logs them in.
func (s *Server) signUp(ctx context.Context, username string) (User, error) {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	c := model.NewAPIv4Client(s.URL)
	u := User{Username: username, Email: username + "@e2e.example.com", Password: Password}
	created, resp, err := c.CreateUser(ctx, &model.User{Username: u.Username, Email: u.Email, Password: u.Password})
	if err != nil {
		return User{}, apiError("create user "+username, resp, err)
	}
	if s.version == "" {
		s.version = versionOf(resp.ServerVersion)
	}
	u.ID = created.Id
	if _, resp, err := c.Login(ctx, username, Password); err != nil {
		return User{}, apiError("log in "+username, resp, err)
	}
	u.Token = c.AuthToken
	if u.Token == "" {
		return User{}, fmt.Errorf("log in %s: no Token header", username)
	}
	return u, nil
}

// CreateUser creates an ordinary user, logs them in and adds them to Team.
func (s *Server) CreateUser(username string) (User, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	u, err := s.signUp(ctx, username)
	if err != nil {
		return User{}, err
	}
	if _, resp, err := s.Client(s.Admin).AddTeamMember(ctx, s.Team.Id, u.ID); err != nil {
		return User{}, apiError("add "+username+" to team", resp, err)
	}
	return u, nil
}

// PersonalAccessToken creates a personal access token for u (made by the admin,
// since ordinary users lack the permission by default) and returns its secret.
func (s *Server) PersonalAccessToken(u User) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	tok, resp, err := s.Client(s.Admin).CreateUserAccessToken(ctx, u.ID, "e2e token for "+u.Username)
	if err != nil {
		return "", apiError("create personal access token for "+u.Username, resp, err)
	}
	return tok.Token, nil
}

// nodes returns the running Mattermost nodes (node 1 first).
func (s *Server) nodes() []*mmNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*mmNode
	for _, n := range []*mmNode{s.node1, s.node2} {
		if n != nil {
			out = append(out, n)
		}
	}
	return out
}

// InstallPlugin does what the System Console does: multipart POST
// /api/v4/plugins (field "plugin", force=true), POST
// /api/v4/plugins/mcp-server/enable, then waits until the plugin reports
// running. With a second node running, it does so on both nodes (without a
// licence the nodes share no cluster messages).
func (s *Server) InstallPlugin(bundlePath string) error {
	t0 := time.Now()
	for _, n := range s.nodes() {
		f, err := os.Open(bundlePath)
		if err != nil {
			return fmt.Errorf("plugin bundle: %w", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*apiTimeout)
		manifest, resp, err := ClientAt(n.url, s.Admin).UploadPluginForced(ctx, f)
		cancel()
		f.Close()
		if err != nil {
			return apiError(fmt.Sprintf("upload plugin %s to %s", bundlePath, n.name), resp, err)
		}
		if manifest.Id != PluginID {
			return fmt.Errorf("uploaded bundle %s has plugin id %q, want %q", bundlePath, manifest.Id, PluginID)
		}
		if err := s.enableOn(n); err != nil {
			return err
		}
	}
	s.logf("plugin %s installed and running (%s)", PluginID, time.Since(t0).Round(100*time.Millisecond))
	return nil
}

// EnablePlugin enables the plugin (on every node) and waits until it runs.
func (s *Server) EnablePlugin() error {
	for _, n := range s.nodes() {
		if err := s.enableOn(n); err != nil {
			return err
		}
	}
	return nil
}

// DisablePlugin disables the plugin (on every node).
func (s *Server) DisablePlugin() error {
	for _, n := range s.nodes() {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		resp, err := ClientAt(n.url, s.Admin).DisablePlugin(ctx, PluginID)
		cancel()
		if err != nil {
			return apiError("disable plugin on "+n.name, resp, err)
		}
	}
	return nil
}

func (s *Server) enableOn(n *mmNode) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*apiTimeout)
	defer cancel()
	if resp, err := ClientAt(n.url, s.Admin).EnablePlugin(ctx, PluginID); err != nil {
		return fmt.Errorf("%w\n%s", apiError("enable plugin on "+n.name, resp, err), n.logTail(30))
	}
	return s.waitPluginRunning(n, 90*time.Second)
}

// waitPluginRunning polls GET /api/v4/plugins/statuses on node n until the
// plugin's state is running (2).
func (s *Server) waitPluginRunning(n *mmNode, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := ClientAt(n.url, s.Admin)
	last := "no status yet"
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		statuses, resp, err := c.GetPluginStatuses(ctx)
		cancel()
		if err != nil {
			last = apiError("plugin statuses", resp, err).Error()
		} else {
			last = fmt.Sprintf("plugin %s not listed", PluginID)
			for _, st := range statuses {
				if st.PluginId != PluginID {
					continue
				}
				switch st.State {
				case model.PluginStateRunning:
					return nil
				case model.PluginStateFailedToStart, model.PluginStateFailedToStayRunning:
					return fmt.Errorf("plugin %s failed on %s (state %d): %s\n%s", PluginID, n.name, st.State, st.Error, n.logTail(40))
				}
				last = fmt.Sprintf("state %d %s", st.State, st.Error)
			}
		}
		if n.proc.exited() || time.Now().After(deadline) {
			return fmt.Errorf("plugin %s not running on %s after %s (last: %s)\n%s", PluginID, n.name, timeout, last, n.logTail(40))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// PatchPluginSettings merges settings into the plugin's own section of PluginSettings.Plugins
// through the REST config API as the admin (on every node). A nil value
// removes the key. Keys are matched case-insensitively, since Mattermost
// stores plugin setting keys in lower case. If the server refuses the save,
// the error carries its error text.
func (s *Server) PatchPluginSettings(settings map[string]any) error {
	for _, n := range s.nodes() {
		if err := s.patchPluginSettingsOn(n, settings); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) patchPluginSettingsOn(n *mmNode, settings map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	c := ClientAt(n.url, s.Admin)
	cfg, resp, err := c.GetConfig(ctx)
	if err != nil {
		return apiError("get config from "+n.name, resp, err)
	}
	plugins := cfg.PluginSettings.Plugins
	if plugins == nil {
		plugins = map[string]map[string]any{}
	}
	mine := map[string]any{}
	for k, v := range plugins[PluginID] {
		mine[strings.ToLower(k)] = v
	}
	for k, v := range settings {
		if v == nil {
			delete(mine, strings.ToLower(k))
		} else {
			mine[strings.ToLower(k)] = v
		}
	}
	plugins[PluginID] = mine
	patch := &model.Config{}
	patch.PluginSettings.Plugins = plugins
	if _, resp, err := c.PatchConfig(ctx, patch); err != nil {
		return apiError("save plugin settings on "+n.name, resp, err)
	}
	return nil
}

// LiftCallRate sets the plugin's tool calls a minute per person to the
// highest the setting takes: a benchmark calls at machine speed, which the
// default (600 a minute) refuses by design.
func (s *Server) LiftCallRate() error {
	return s.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.LimitMaxCallsPerMinute})
}

// PatchConfig saves patch (a config with only the fields to change set)
// through the REST config API as the admin, on every node, as the System
// Console does.
func (s *Server) PatchConfig(patch *model.Config) error {
	for _, n := range s.nodes() {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		_, resp, err := ClientAt(n.url, s.Admin).PatchConfig(ctx, patch)
		cancel()
		if err != nil {
			return apiError("patch config on "+n.name, resp, err)
		}
	}
	return nil
}

// PluginSettings returns the plugin's own section of PluginSettings.Plugins as node 1 reports it.
func (s *Server) PluginSettings() (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	cfg, resp, err := s.Client(s.Admin).GetConfig(ctx)
	if err != nil {
		return nil, apiError("get config", resp, err)
	}
	return cfg.PluginSettings.Plugins[PluginID], nil
}

// StartForBench starts the server with the plugin bundle as shipped (its
// log discarded, extra options applied) and lifts the call rate, as every
// benchmark command begins; on an error nothing is left running.
func StartForBench(ctx context.Context, opts Options) (*Server, error) {
	opts.LogWriter, opts.AsShipped = io.Discard, true
	mm, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := mm.LiftCallRate(); err != nil {
		mm.Close()
		return nil, err
	}
	return mm, nil
}
