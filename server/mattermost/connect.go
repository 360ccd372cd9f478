package mattermost

import (
	"errors"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// What the connect dialog needs of Mattermost: how a client signed in, and
// the person's own tokens and sessions to end.

// Ways a client signs in to Mattermost.
const (
	SignInOAuth   = "oauth"
	SignInToken   = "personal_access_token"
	SignInSession = "session_token"
)

// SessionInfo is what the person is told of the Mattermost session one of
// their MCP clients signed in with.
type SessionInfo struct {
	ID     string
	UserID string
	// SignIn is SignInOAuth, SignInToken or SignInSession.
	SignIn string
	// OAuthAppID and OAuthApp name the OAuth app of an OAuth session (its
	// name as the app registered it).
	OAuthAppID, OAuthApp string
	// TokenID is the personal access token of a token session.
	TokenID string
	// LastActivity is when Mattermost last saw the session in use.
	LastActivity time.Time
}

// SessionInfo reads how the session with this id signed in. An unknown,
// expired or revoked session is ErrNotFound.
func (g *Gateway) SessionInfo(id string) (SessionInfo, error) {
	if id == "" {
		return SessionInfo{}, ErrNotFound
	}
	s, appErr := g.raw.GetSession(id)
	if appErr != nil {
		return SessionInfo{}, notFoundOr(appErr, "read session")
	}
	if s == nil || s.IsExpired() {
		return SessionInfo{}, ErrNotFound
	}
	info := SessionInfo{ID: s.Id, UserID: s.UserId, SignIn: SignInSession}
	if s.LastActivityAt > 0 {
		info.LastActivity = time.UnixMilli(s.LastActivityAt)
	}
	switch {
	case s.IsOAuth || s.Props[model.SessionPropOAuthAppID] != "":
		info.SignIn, info.OAuthAppID, info.OAuthApp = SignInOAuth, s.Props[model.SessionPropOAuthAppID], s.Props[model.SessionPropPlatform]
	case s.IsUserAccessToken():
		info.SignIn, info.TokenID = SignInToken, s.Props[model.SessionPropUserAccessTokenId]
	}
	return info, nil
}

// RevokeSession ends a Mattermost session: every request with its token is
// refused from then on, on every node. An unknown session is not an error.
func (g *Gateway) RevokeSession(id string) error {
	if appErr := g.raw.RevokeSession(id); appErr != nil {
		if err := notFoundOr(appErr, "revoke session"); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// MayCreateAccessTokens reports whether the person may make a personal
// access token now, and when not, why, in the person's words.
func (g *Gateway) MayCreateAccessTokens(userID string) (bool, string) {
	cfg := g.config()
	if cfg == nil || !Setting(cfg.ServiceSettings.EnableUserAccessTokens) {
		return false, "Personal access tokens are turned off on this server (System Console > Integrations > Integration Management > Enable personal access tokens): ask a system admin."
	}
	if !g.raw.HasPermissionTo(userID, model.PermissionCreateUserAccessToken) {
		return false, "Your account may not create personal access tokens: ask a system admin to allow it (System Console > User Management > Users > your account > Manage roles)."
	}
	return true, ""
}

// AccessToken is a personal access token just made: Token is its secret,
// which Mattermost never shows again.
type AccessToken struct {
	ID, Token string
}

// CreateAccessToken makes a personal access token for the person.
func (g *Gateway) CreateAccessToken(userID, description string) (AccessToken, error) {
	tok, appErr := g.raw.CreateUserAccessToken(&model.UserAccessToken{UserId: userID, Description: description})
	if appErr != nil {
		return AccessToken{}, appErr
	}
	return AccessToken{ID: tok.Id, Token: tok.Token}, nil
}

// RevokeAccessToken revokes a personal access token and the sessions it
// opened. An unknown token is not an error.
func (g *Gateway) RevokeAccessToken(id string) error {
	if appErr := g.raw.RevokeUserAccessToken(id); appErr != nil {
		if err := notFoundOr(appErr, "revoke token"); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// RegisterCommand registers one of the plugin's slash commands.
func (g *Gateway) RegisterCommand(cmd *model.Command) error { return g.raw.RegisterCommand(cmd) }
