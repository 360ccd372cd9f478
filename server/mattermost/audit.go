package mattermost

import (
	"strings"
	"sync"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

// auditLog is whether this Mattermost takes a plugin's audit records
// (LogAuditRec, 10.10 and later), read once: the version does not change
// while the plugin runs, and calling a method an older server lacks fails
// on every call.
type auditLog struct {
	once sync.Once
	ok   bool
}

// auditEventPrefix begins the name of every audit record the plugin writes.
const auditEventPrefix = "mcp_"

// TakesAuditRecords reports whether a Mattermost of this version has
// LogAuditRec: 10.10 or later.
func TakesAuditRecords(serverVersion string) bool { return AtLeast(serverVersion, 10, 10) }

// LogAudit writes an entry of the plugin's audit trail to Mattermost's own
// audit log, where the server offers it to plugins; on an older server it
// does nothing (the plugin's own trail still has it). The record carries
// ids, names and codes only, as the entry does.
func (g *Gateway) LogAudit(ev audit.Event) {
	g.audit.once.Do(func() {
		v := g.raw.GetServerVersion()
		g.audit.ok = TakesAuditRecords(v)
		if !g.audit.ok {
			g.Log().Info("This Mattermost has no audit log for plugins (10.10 and later have one); MCP's audit entries are kept only in the plugin's own trail", "server_version", v)
		}
	})
	if g.audit.ok {
		g.raw.LogAuditRec(AuditRecord(ev))
	}
}

// AuditRecord is an entry as Mattermost's audit log takes it: the event
// named mcp_<kind>, the outcome as its status (asked is an attempt; done,
// accepted and issued a success; the rest a failure) and in full among
// the parameters, the person as the actor with their client.
func AuditRecord(ev audit.Event) *model.AuditRecord {
	status := model.AuditStatusFail
	switch ev.Outcome {
	case audit.OutcomeAsked:
		status = model.AuditStatusAttempt
	case audit.OutcomeDone, audit.OutcomeAccepted, audit.OutcomeIssued:
		status = model.AuditStatusSuccess
	}
	client := ev.ClientName
	if ev.ClientVersion != "" {
		client += " " + ev.ClientVersion
	}
	// One name per kind, in Mattermost's snake_case, so an admin filters
	// the plugin's records by it ("mcp_write", "mcp_sign_in"...).
	event := auditEventPrefix + string(ev.Kind)
	rec := &model.AuditRecord{
		EventName: event,
		Status:    status,
		Actor:     model.AuditEventActor{UserId: ev.UserID, Client: client},
		EventData: model.AuditEventData{Parameters: map[string]any{}, ObjectType: event},
		Meta:      map[string]any{"at": ev.At.UnixMilli()},
	}
	model.AddEventParameterToAuditRec(rec, "tool", ev.Tool)
	model.AddEventParameterToAuditRec(rec, "outcome", ev.Outcome)
	model.AddEventParameterToAuditRec(rec, "client_name", ev.ClientName)
	model.AddEventParameterToAuditRec(rec, "client_version", ev.ClientVersion)
	if ev.Reason != "" {
		model.AddEventParameterToAuditRec(rec, "reason", ev.Reason)
	}
	if len(ev.Targets) > 0 {
		model.AddEventParameterToAuditRec(rec, "targets", ev.Targets)
	}
	return rec
}

// IsSystemAdmin reports whether the user may manage the system.
func (g *Gateway) IsSystemAdmin(userID string) bool {
	return userID != "" && g.api.User.HasPermissionTo(userID, model.PermissionManageSystem)
}

// UserIDByUsername is the id of the user with that username, "" when there
// is none.
func (g *Gateway) UserIDByUsername(username string) (string, error) {
	u, err := g.api.User.GetByUsername(strings.ToLower(username))
	if err != nil {
		if isNotFound(err) {
			return "", nil
		}
		return "", err
	}
	return u.Id, nil
}

// OAuthStatus is what an admin needs to know of OAuth sign-in for MCP
// clients here: whether it works, why not, and the settings it rests on.
type OAuthStatus struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	// SiteURL is ServiceSettings.SiteURL; without it clients are sent
	// nowhere.
	SiteURL             string `json:"site_url"`
	Provider            bool   `json:"oauth_provider"`
	DynamicRegistration bool   `json:"dynamic_client_registration"`
}

// OAuthStatus reads the configuration as it is now.
func (g *Gateway) OAuthStatus() OAuthStatus {
	cfg := g.config()
	ok, reason := OAuthSignIn(cfg)
	s := OAuthStatus{OK: ok, Reason: reason, SiteURL: g.SiteURL()}
	if cfg != nil {
		s.Provider = Setting(cfg.ServiceSettings.EnableOAuthServiceProvider)
		s.DynamicRegistration = Setting(cfg.ServiceSettings.EnableDynamicClientRegistration)
	}
	if ok && s.SiteURL == "" {
		s.OK, s.Reason = false, "the Site URL is not set (ServiceSettings.SiteURL)"
	}
	return s
}
