package mattermost

import (
	"crypto/subtle"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// Session is the Mattermost session a request was authenticated with, as
// Mattermost itself keeps it.
type Session struct {
	ID     string
	UserID string
	// Integration is the session of a program rather than of the person at
	// a Mattermost window: an OAuth app's access token, a personal access
	// token, or a bot.
	Integration bool
	// CSRF is the token Mattermost gave the session at sign-in; only the
	// person's own web or desktop app holds it (in the MMCSRF cookie).
	CSRF string
	// ExpiresAt is when Mattermost ends the session (zero: it sets no end).
	ExpiresAt time.Time
}

// CSRFMatches compares a token a request carried with the session's, in
// constant time. A session without a token matches nothing.
func (s Session) CSRFMatches(given string) bool {
	if s.CSRF == "" || given == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(s.CSRF), []byte(given)) == 1
}

// Session reads the Mattermost session with this id (the plugin.Context
// Mattermost hands every request carries it). An unknown, expired or
// revoked session is ErrNotFound.
func (g *Gateway) Session(id string) (Session, error) {
	if id == "" {
		return Session{}, ErrNotFound
	}
	s, appErr := g.raw.GetSession(id)
	if appErr != nil {
		return Session{}, notFoundOr(appErr, "read session")
	}
	if s == nil || s.IsExpired() {
		return Session{}, ErrNotFound
	}
	out := Session{ID: s.Id, UserID: s.UserId, Integration: isIntegration(s), CSRF: s.GetCSRF()}
	if s.ExpiresAt > 0 {
		out.ExpiresAt = time.UnixMilli(s.ExpiresAt)
	}
	return out, nil
}

func isIntegration(s *model.Session) bool {
	return s.IsOAuth || s.IsUserAccessToken() || s.IsBotUser() || s.Props[model.SessionPropOAuthAppID] != ""
}
