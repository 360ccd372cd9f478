package connect

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// MaxClientsListed bounds the clients one answer lists: a person connects a
// handful; an agent fleet on one account would otherwise list up to
// transport.MaxSessionsPerPerson Mattermost sessions, one read each.
const MaxClientsListed = 50

// MM is what the service needs of Mattermost (mattermost.Gateway).
type MM interface {
	SessionInfo(id string) (mattermost.SessionInfo, error)
	RevokeSession(id string) error
	MayCreateAccessTokens(userID string) (bool, string)
	CreateAccessToken(userID, description string) (mattermost.AccessToken, error)
	RevokeAccessToken(id string) error
}

// Sessions are the person's MCP sessions, and their clients that open
// none (protocol 2026-07-28 and later), by sign-in (transport.Transport).
type Sessions interface {
	PersonSessions(userID string) ([]transport.SessionRecord, error)
	EndSessions(userID string, ids []string) error
	PersonSignIns(userID string) ([]transport.SignIn, error)
	ForgetSignIns(userID string, mmSessions []string) error
}

// Options wire the service to the plugin.
type Options struct {
	MM       MM
	Sessions Sessions
	// KV keeps which personal access tokens were made here.
	KV kvstore.KV
	// Audit records tokens made, clients connected and disconnected; nil
	// records nothing.
	Audit audit.Recorder
	// MCPURL is the MCP endpoint's public URL, read on every request.
	MCPURL func() string
	// OAuth is whether this server signs MCP clients in with OAuth now,
	// and when not, why (for an admin).
	OAuth func() (bool, string)
	// ListSize is the size in bytes of the tools/list a client loads whose
	// MCP URL carries query (one of PresetQueries), under the admin's
	// settings now.
	ListSize func(query string) (int, error)
	Now      func() time.Time
}

// Service answers the person's connect dialog and slash command.
type Service struct {
	opts   Options
	tokens madeTokens
}

// New is the service.
func New(opts Options) *Service {
	if opts.Audit == nil {
		opts.Audit = audit.Nop{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OAuth == nil {
		opts.OAuth = func() (bool, string) { return false, "" }
	}
	return &Service{opts: opts, tokens: madeTokens{kv: opts.KV, now: opts.Now}}
}

// ErrNotFound is a client that is not (or no longer) connected.
var ErrNotFound = errors.New("this client is not connected any more: nothing was changed")

// ErrNoTokens refuses a token the person may not make.
type ErrNoTokens struct{ Reason string }

func (e *ErrNoTokens) Error() string { return e.Reason }

// Overview is what the dialog shows.
type Overview struct {
	URL string `json:"url"`
	// OAuth is whether this server signs clients in with OAuth; OAuthText
	// says what that means for the person, OAuthReason why not (an
	// admin's words).
	OAuth       bool   `json:"oauth"`
	OAuthText   string `json:"oauth_text"`
	OAuthReason string `json:"oauth_reason,omitempty"`
	// CanCreateToken is whether the person may make a personal access
	// token; TokenNote says why not.
	CanCreateToken bool   `json:"can_create_token"`
	TokenNote      string `json:"token_note,omitempty"`
	Setup          Setup  `json:"setup"`
	// Presets are what a client may load, each with its setups and size;
	// the first, everything, is Setup.
	Presets []Preset `json:"presets"`
	// Hosts are the chat apps' setup (hosts.go).
	Hosts   []Host   `json:"hosts"`
	Clients []Client `json:"clients"`
	// MoreClients counts the clients left out past MaxClientsListed.
	MoreClients int `json:"more_clients,omitempty"`
}

// Overview is the dialog's content for the person.
func (s *Service) Overview(userID string) (Overview, error) {
	oauth, reason := s.opts.OAuth()
	o := Overview{URL: s.opts.MCPURL(), OAuth: oauth, Setup: SetupFor(s.opts.MCPURL(), "", oauth)}
	if oauth {
		o.OAuthText = "This server signs AI clients in with your Mattermost account (OAuth): add the URL to the client and it opens Mattermost for you to allow it."
	} else {
		o.OAuthText = "This server does not sign AI clients in with OAuth: a client signs in with a personal access token, sent as 'Authorization: Bearer <token>'."
		o.OAuthReason = reason
	}
	o.CanCreateToken, o.TokenNote = s.opts.MM.MayCreateAccessTokens(userID)
	o.Hosts = HostsFor(o.URL, oauth, reason)
	var err error
	if o.Presets, err = s.presetsFor(o.URL, "", oauth); err != nil {
		return Overview{}, err
	}
	clients, more, err := s.Clients(userID)
	if err != nil {
		return Overview{}, err
	}
	o.Clients, o.MoreClients = clients, more
	return o, nil
}

// Client is one connected client: the MCP sessions opened with one
// Mattermost session (one sign-in), named by the most recent of them.
type Client struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// OtherNames are other clients that signed in with the same
	// credential (the same token pasted into two clients).
	OtherNames []string `json:"other_names,omitempty"`
	// Sessions counts its open MCP sessions: 0 for a client of protocol
	// 2026-07-28 or later, which opens none.
	Sessions int       `json:"sessions"`
	LastUsed time.Time `json:"last_used"`
	// SignIn is mattermost.SignInOAuth, SignInToken or SignInSession, or
	// "unknown" for sessions that recorded no sign-in; SignInText says it
	// for the person.
	SignIn     string `json:"sign_in"`
	SignInText string `json:"sign_in_text"`
	OAuthAppID string `json:"oauth_app_id,omitempty"`
	// TokenMadeHere is a personal access token made in this dialog, which
	// Disconnect revokes.
	TokenMadeHere bool `json:"token_made_here,omitempty"`

	mmSession  string
	tokenID    string
	sessionIDs []string
}

const signInUnknown = "unknown"

// Clients are the person's connected clients, most recently used first,
// at most MaxClientsListed, and how many more there are. A client whose
// Mattermost session ended (signed out, revoked, expired) is not connected
// and is not listed.
func (s *Service) Clients(userID string) ([]Client, int, error) {
	all, err := s.clients(userID)
	if err != nil {
		return nil, 0, err
	}
	if len(all) > MaxClientsListed {
		return all[:MaxClientsListed], len(all) - MaxClientsListed, nil
	}
	return all, 0, nil
}

func (s *Service) clients(userID string) ([]Client, error) {
	recs, err := s.opts.Sessions.PersonSessions(userID)
	if err != nil {
		return nil, err
	}
	signIns, err := s.opts.Sessions.PersonSignIns(userID)
	if err != nil {
		return nil, err
	}
	made, err := s.tokens.list(userID)
	if err != nil {
		return nil, err
	}
	// Sessions and stateless sign-ins alike, most recently used first.
	uses := make([]use, 0, len(recs)+len(signIns))
	for _, r := range recs {
		uses = append(uses, use{mmSession: r.MattermostSessionID, name: r.ClientName, version: r.ClientVersion, seen: r.SeenAt, sessionID: r.ID})
	}
	for _, si := range signIns {
		uses = append(uses, use{mmSession: si.MattermostSessionID, name: si.ClientName, version: si.ClientVersion, seen: si.SeenAt})
	}
	slices.SortStableFunc(uses, func(a, b use) int { return b.seen.Compare(a.seen) })

	byKey := map[string]*Client{}
	var order []*Client
	for _, u := range uses {
		c := byKey[u.mmSession]
		if c == nil {
			if len(order) >= MaxClientsListed*2 {
				continue // bounds the Mattermost reads; the count past it is a floor
			}
			c = &Client{ID: clientID(u.mmSession), Name: u.name, Version: u.version,
				LastUsed: u.seen, mmSession: u.mmSession, SignIn: signInUnknown}
			if !s.describe(c, userID, made) {
				continue // its sign-in ended: not connected
			}
			byKey[u.mmSession] = c
			order = append(order, c)
		} else if u.name != c.Name && !slices.Contains(c.OtherNames, u.name) && len(c.OtherNames) < maxOtherNames {
			c.OtherNames = append(c.OtherNames, u.name)
		}
		if u.sessionID != "" {
			c.Sessions++
			c.sessionIDs = append(c.sessionIDs, u.sessionID)
		}
	}
	out := make([]Client, 0, len(order))
	for _, c := range order {
		if c.Name == "" {
			c.Name = "Unnamed client"
		}
		out = append(out, *c)
	}
	return out, nil
}

// use is one MCP session of the person, or one stateless client seen.
type use struct {
	mmSession, name, version string
	seen                     time.Time
	// sessionID is the MCP session; "" for a stateless client.
	sessionID string
}

// maxOtherNames bounds the other names one client lists: past a few, the
// credential is shared by a fleet, which the count of sessions tells.
const maxOtherNames = 5

// describe fills in how c signed in; false when its Mattermost session has
// ended or is not the person's.
func (s *Service) describe(c *Client, userID string, made []madeToken) bool {
	if c.mmSession == "" {
		c.SignInText = "Sign-in not recorded (connected before this version of the plugin)"
		return true
	}
	info, err := s.opts.MM.SessionInfo(c.mmSession)
	if err != nil || info.UserID != userID {
		return false
	}
	c.SignIn = info.SignIn
	switch info.SignIn {
	case mattermost.SignInOAuth:
		c.OAuthAppID = info.OAuthAppID
		c.SignInText = "OAuth"
		if info.OAuthApp != "" {
			c.SignInText = fmt.Sprintf("OAuth, as the app %q", info.OAuthApp)
		}
	case mattermost.SignInToken:
		c.tokenID = info.TokenID
		c.TokenMadeHere = slices.ContainsFunc(made, func(t madeToken) bool { return t.ID == info.TokenID })
		c.SignInText = "Personal access token"
		if c.TokenMadeHere {
			c.SignInText = "Personal access token made here for MCP"
		}
	default:
		c.SignInText = "Mattermost session token"
	}
	return true
}

// clientID names a client by its sign-in without showing the session id.
func clientID(mmSession string) string {
	sum := sha256.Sum256([]byte("connect-client:" + mmSession))
	return hex.EncodeToString(sum[:12])
}

// Disconnected is what Disconnect did.
type Disconnected struct {
	Client Client `json:"client"`
	// Ended counts the MCP sessions ended on every node.
	Ended int `json:"ended"`
	// Revoked says what of the sign-in was revoked.
	Revoked string `json:"revoked"`
	// OAuthAppID, for an OAuth client, is the app the person's own
	// Mattermost now deauthorizes, which also drops its refresh token.
	OAuthAppID string `json:"oauth_app_id,omitempty"`
	// Note says what the person may still have to do.
	Note string `json:"note,omitempty"`
}

// Disconnect ends one of the person's clients: its MCP sessions on every
// node, and the Mattermost session it signed in with, or for a token made
// here the token. personSession is the person's own interactive session,
// which is never revoked.
func (s *Service) Disconnect(userID, personSession, id string) (Disconnected, error) {
	all, err := s.clients(userID)
	if err != nil {
		return Disconnected{}, err
	}
	i := slices.IndexFunc(all, func(c Client) bool { return c.ID == id })
	if i < 0 {
		return Disconnected{}, ErrNotFound
	}
	c := all[i]
	if err := s.opts.Sessions.EndSessions(userID, c.sessionIDs); err != nil {
		return Disconnected{}, err
	}
	if c.mmSession != "" {
		if err := s.opts.Sessions.ForgetSignIns(userID, []string{c.mmSession}); err != nil {
			return Disconnected{}, err
		}
	}
	d := Disconnected{Client: c, Ended: len(c.sessionIDs)}
	switch {
	case c.mmSession == "" || c.mmSession == personSession:
		d.Revoked = "nothing"
		d.Note = "Its MCP sessions ended. Its sign-in was not recorded, so it can connect again with the credential it has."
	case c.TokenMadeHere:
		if err := s.opts.MM.RevokeAccessToken(c.tokenID); err != nil {
			return Disconnected{}, err
		}
		if err := s.tokens.forget(userID, c.tokenID); err != nil {
			return Disconnected{}, err
		}
		d.Revoked = "personal_access_token"
	default:
		if err := s.opts.MM.RevokeSession(c.mmSession); err != nil {
			return Disconnected{}, err
		}
		d.Revoked = "session"
		switch c.SignIn {
		case mattermost.SignInOAuth:
			d.OAuthAppID = c.OAuthAppID
		case mattermost.SignInToken:
			d.Note = "It signed in with a personal access token that was not made here, which stays valid: the client can connect again with it. Revoke the token in Profile > Security > Personal Access Tokens to keep it out."
		}
	}
	s.opts.Audit.Record(audit.Event{At: s.opts.Now(), Kind: audit.KindConnection, UserID: userID,
		ClientName: c.Name, ClientVersion: c.Version, Outcome: audit.OutcomeDone, Reason: "disconnected",
		Targets: targets("session_id", c.mmSession, "token_id", c.tokenID, "oauth_app_id", c.OAuthAppID)})
	return d, nil
}

// Connected records a client's new MCP session (transport.Options.Connected);
// the trail stores one a minute per person and client and counts the rest
// (audit.ReasonConnected).
func (s *Service) Connected(rec transport.SessionRecord) {
	s.opts.Audit.Record(audit.Event{At: s.opts.Now(), Kind: audit.KindConnection, UserID: rec.UserID,
		ClientName: rec.ClientName, ClientVersion: rec.ClientVersion, Outcome: audit.OutcomeDone, Reason: audit.ReasonConnected,
		Targets: targets("session_id", rec.MattermostSessionID)})
}

// targets are the non-empty id pairs.
func targets(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			out[kv[i]] = kv[i+1]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Token is a personal access token just made for MCP: answered once.
type Token struct {
	ID    string `json:"id"`
	Token string `json:"token"`
	// Description is the token's name in Profile > Security.
	Description string   `json:"description"`
	Setup       Setup    `json:"setup"`
	Presets     []Preset `json:"presets"`
}

// MakeToken makes a personal access token for MCP for the person, and the
// setups that carry it. The caller has checked that the request comes from
// the person's own interactive session.
func (s *Service) MakeToken(userID string) (Token, error) {
	if ok, why := s.opts.MM.MayCreateAccessTokens(userID); !ok {
		return Token{}, &ErrNoTokens{Reason: why}
	}
	presets, err := s.presetsFor(s.opts.MCPURL(), "", false)
	if err != nil {
		return Token{}, err
	}
	desc := "MCP: AI client, made in Connect an AI client on " + s.opts.Now().UTC().Format("2006-01-02 15:04 UTC")
	tok, err := s.opts.MM.CreateAccessToken(userID, desc)
	if err != nil {
		return Token{}, err
	}
	if err := s.tokens.remember(userID, tok.ID); err != nil {
		// The token works; only Disconnect will not know to revoke it.
		return Token{}, errors.Join(err, s.opts.MM.RevokeAccessToken(tok.ID))
	}
	s.opts.Audit.Record(audit.Event{At: s.opts.Now(), Kind: audit.KindConnection, UserID: userID,
		Outcome: audit.OutcomeIssued, Reason: "token_created", Targets: targets("token_id", tok.ID)})
	for i := range presets {
		presets[i].Setup = SetupFor(presets[i].URL, tok.Token, false)
	}
	return Token{ID: tok.ID, Token: tok.Token, Description: desc, Setup: SetupFor(s.opts.MCPURL(), tok.Token, false), Presets: presets}, nil
}
