// Package mattermost is the only caller of the Mattermost plugin API. Tools
// never reach Mattermost except through a Caller, which is bound to the
// signed-in user and answers "not found" for anything that user cannot read.
package mattermost

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
	"github.com/mcp-server/mattermost-plugin-mcp/server/slots"
)

// ErrNotFound is the answer for anything missing or not visible to the
// caller: the two are never told apart.
var ErrNotFound = errors.New("not found")

// Gateway wraps the plugin API.
type Gateway struct {
	api *pluginapi.Client
	// raw reaches the few plugin API methods pluginapi does not wrap
	// (searching posts as a user, listing file infos).
	raw plugin.API
	// hasDB is false for a gateway without Mattermost's database driver
	// (unit tests of the plugin API alone): the few reads the plugin API
	// lacks and that only add to its answers are then left out.
	hasDB bool
	// cfg is Mattermost's configuration as last read. Reading it is a
	// plugin API round trip in which Mattermost clones, sanitizes and
	// encodes the whole configuration: read on every call it took a quarter
	// of Mattermost's processor under load. It changes only with
	// OnConfigurationChange (on every node of a cluster), which hands the
	// new one to Reconfigured.
	cfg atomic.Pointer[model.Config]
	// admission is what this node read of people for the rule of who may
	// connect (admission.go).
	admission admissionCache
	// audit is whether Mattermost takes the plugin's audit records (audit.go).
	audit auditLog
	// files is what this node keeps of posted files' records (file_facts.go).
	files *expiring.Map[string, keptRecord]
	// fileTableFailed logs once that file records are read through the
	// plugin API instead (file_record.go).
	fileTableFailed sync.Once
	// teams is each person's teams as this node read them (kept.go).
	teams *expiring.Map[string, []Membership]
	// teamsByID is teams read by id, for their names (kept.go).
	teamsByID *expiring.Map[string, model.Team]
	// systemPerms is the answers kept of two system permissions (kept.go).
	systemPerms *expiring.Map[[2]string, bool]
	// accounts is people's own accounts as this node read them (kept.go).
	accounts *expiring.Map[string, *model.User]
	// searches bounds the file searches running at once (file_search.go).
	searches *slots.Slots
}

// NewGateway wraps the plugin API.
func NewGateway(raw plugin.API, driver plugin.Driver) *Gateway {
	return &Gateway{api: pluginapi.NewClient(raw, driver), raw: raw, hasDB: driver != nil, files: newFileFacts(), teams: newTeamsCache(), teamsByID: newTeamsByID(), systemPerms: newSystemPermissions(), accounts: newAccounts(),
		searches: slots.New(SearchesPerNode, SearchesPerPerson)}
}

// Reconfigured replaces the configuration the gateway reads with cfg, as
// OnConfigurationChange read it; nil has the next read ask Mattermost.
func (g *Gateway) Reconfigured(cfg *model.Config) { g.cfg.Store(cfg) }

// config is Mattermost's configuration (see cfg). It is shared by every
// caller: read it, never change it.
func (g *Gateway) config() *model.Config {
	if cfg := g.cfg.Load(); cfg != nil {
		return cfg
	}
	cfg := g.api.Configuration.GetConfig()
	if cfg != nil {
		g.cfg.CompareAndSwap(nil, cfg)
	}
	return cfg
}

// Log is the plugin's key-value logger (logger.go).
func (g *Gateway) Log() Logger { return Logger{log: &g.api.Log, g: g} }

// SiteURL is Mattermost's configured public URL, without a trailing slash.
func (g *Gateway) SiteURL() string {
	cfg := g.config()
	if cfg == nil || cfg.ServiceSettings.SiteURL == nil {
		return ""
	}
	return strings.TrimRight(*cfg.ServiceSettings.SiteURL, "/")
}

// AllowedUntrustedInternalConnections is the admin's list of internal
// hosts, addresses and ranges that URLs chosen by others may reach
// (ServiceSettings, as Mattermost's own fetches of untrusted URLs read it).
func (g *Gateway) AllowedUntrustedInternalConnections() string {
	cfg := g.config()
	if cfg == nil || cfg.ServiceSettings.AllowedUntrustedInternalConnections == nil {
		return ""
	}
	return *cfg.ServiceSettings.AllowedUntrustedInternalConnections
}

// UserActive reports whether the user exists and is not deactivated,
// asking Mattermost; the account read is kept for the person's calls
// (keptAccount), which saves get_me its round trip.
func (g *Gateway) UserActive(userID string) (bool, error) {
	u, err := g.api.User.Get(userID)
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	g.accounts.Put(userID, u, time.Now())
	return u.DeleteAt == 0, nil
}

// KV is the plugin KV store in the shape the other packages use.
func (g *Gateway) KV() KV { return KV{kv: &g.api.KV} }

// As returns Mattermost as seen by one user.
func (g *Gateway) As(userID string) *Caller {
	return &Caller{g: g, userID: userID}
}

// AsSession is Mattermost as seen by userID, acting where the plugin API
// falls short through the REST API with the Mattermost session a request
// came with (its id; see OwnView).
func (g *Gateway) AsSession(userID, sessionID string) *Caller {
	return &Caller{g: g, userID: userID, session: sessionID}
}

// KV adapts pluginapi's KV service.
type KV struct{ kv *pluginapi.KVService }

// Get reads a JSON value; a missing key leaves out untouched.
func (k KV) Get(key string, out any) error { return k.kv.Get(key, out) }

// SetWithExpiry writes a JSON value that Mattermost removes after ttl.
func (k KV) SetWithExpiry(key string, value any, ttl time.Duration) error {
	_, err := k.kv.Set(key, value, pluginapi.SetExpiry(ttl))
	return err
}

// Delete removes a key; a missing key is not an error.
func (k KV) Delete(key string) error { return k.kv.Delete(key) }

func isNotFound(err error) bool {
	var appErr *model.AppError
	if errors.As(err, &appErr) {
		return appErr.StatusCode == http.StatusNotFound
	}
	return errors.Is(err, pluginapi.ErrNotFound)
}
