package approval

import (
	"context"
	"errors"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// Only the person says yes. An answer to a pending write counts only when
// it comes from the person's own interactive Mattermost session: the web or
// desktop app, signed in as them, with that session's CSRF token. Everything
// a program holds is refused: a personal access token, an OAuth access
// token, a bot, and the very session the MCP client signed in with (a
// coding agent can read its client's configuration, so any credential the
// client has is one the model can use).
//
// How Mattermost authenticates a plugin request (servePluginRequest): it
// takes the token from the Authorization header, else the MMAUTHTOKEN
// cookie, else ?access_token=; it checks the CSRF token only for the cookie
// and only for methods other than GET, and even then lets a request with
// X-Requested-With: XMLHttpRequest through without one unless strict CSRF
// enforcement is on. It strips the credential before the plugin sees the
// request, so the plugin cannot tell the cookie from a header. The plugin
// therefore decides from the session itself (plugin.Context.SessionId):
// not an integration's session, not one of the client's own, and the
// request must carry the session's CSRF token, which only the person's
// Mattermost app holds, whatever way the token came.

// Answerer is who sends an answer: the Mattermost session the request came
// with and the CSRF token it carried (header X-CSRF-Token or form field
// csrf).
type Answerer struct {
	Session mattermost.Session
	CSRF    string
}

// ErrNotThePerson refuses an answer that does not come from the person's
// own Mattermost.
var ErrNotThePerson = errors.New("only the person, signed in to Mattermost in the web or desktop app, can answer a pending write; nothing was changed")

// mayAnswer is the rule of who may answer rec; mcpClient is whether the
// answering session has called /mcp for the person (NoteClientSession).
func mayAnswer(who Answerer, rec Record, mcpClient bool) error {
	s := who.Session
	switch {
	case s.ID == "" || s.UserID == "" || s.UserID != rec.UserID:
		return ErrNotFound
	case s.Integration, mcpClient:
		return ErrNotThePerson
	case !s.CSRFMatches(who.CSRF):
		return ErrNotThePerson
	}
	for _, id := range rec.ClientSessions {
		if id == s.ID {
			return ErrNotThePerson
		}
	}
	return nil
}

// Answer accepts (verb "accept") or declines a pending write for the
// person, once; a later answer gets the record as it is now.
func (a *Approvals) Answer(ctx context.Context, who Answerer, id, verb string) (Record, error) {
	userID := who.Session.UserID
	rec, err := a.store.Load(userID, id)
	if err != nil {
		return Record{}, err
	}
	// The session of any MCP client of the person, not only of the one that
	// asked: read before deciding, and a store that cannot say refuses.
	mcpClient, err := a.clients.has(userID, who.Session.ID)
	if err != nil {
		return Record{}, err
	}
	if err := mayAnswer(who, rec, mcpClient); err != nil {
		return rec, err
	}
	// The person's own session acts where the plugin API has no method.
	c := a.opts.MM.AsSession(userID, who.Session.ID)
	if verb == "decline" {
		rec, err = a.store.Decline(userID, id)
	} else {
		rec, err = a.store.Accept(ctx, c, id, a.run)
	}
	if errors.Is(err, ErrDecided) {
		return a.store.Load(userID, id)
	}
	if err != nil {
		return Record{}, err
	}
	a.settled(c, rec)
	return rec, nil
}

// NoteClientSession records that the Mattermost session sessionID called
// /mcp for userID, so that it never answers any of their pending writes.
// It is called on every authenticated /mcp request and costs a lookup in
// this node's memory once the session is noted: the session is read from
// Mattermost and the person's record written only when it is new.
// Integrations (tokens, OAuth, bots) are refused as answerers anyway and
// are not written.
func (a *Approvals) NoteClientSession(userID, sessionID string) error {
	if userID == "" || sessionID == "" || a.clients.known(userID, sessionID) {
		return nil
	}
	s, err := a.opts.MM.Session(sessionID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil // ended since Mattermost let the request in: it answers nothing
	}
	if err != nil {
		return err
	}
	if s.UserID != userID {
		return nil
	}
	if s.Integration {
		a.clients.remember(userID+"/"+sessionID, a.clients.until(s.ExpiresAt).UnixMilli())
		return nil
	}
	return a.clients.note(userID, sessionID, s.ExpiresAt)
}

// ThePerson is nil when who is userID at their own Mattermost by the rule
// answers follow: an interactive session of theirs, not an integration's
// nor one any of their MCP clients called /mcp with, carrying that
// session's CSRF token. What else belongs to the person alone (making a
// personal access token, disconnecting a client) is taken only from there,
// so an MCP client cannot do it for itself. Anything else is
// ErrNotThePerson.
func (a *Approvals) ThePerson(userID string, who Answerer) error {
	s := who.Session
	if s.ID == "" || userID == "" || s.UserID != userID || s.Integration || !s.CSRFMatches(who.CSRF) {
		return ErrNotThePerson
	}
	mcpClient, err := a.clients.has(userID, s.ID)
	if err != nil {
		return err
	}
	if mcpClient {
		return ErrNotThePerson
	}
	return nil
}
