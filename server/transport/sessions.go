package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Sessions live in the plugin KV store, not in this process: in a cluster
// every node runs its own plugin process, and a client's consecutive requests
// may reach different nodes or a restarted plugin. Any node can validate a
// session and restore what the client declared at initialize.

const (
	sessionKeyPrefix = "mcpsession_"
	// sessionIDPrefix marks our ids so a stray header is refused without a
	// KV lookup.
	sessionIDPrefix = "mm-mcp-"
	// sessionLifetime is how long an idle session stays valid; clients start
	// a new session on 404 as the protocol requires, so this only trades KV
	// rows against an occasional re-initialize.
	sessionLifetime = 7 * 24 * time.Hour
	// sessionRefreshAfter avoids a KV write on every request: a session in
	// use is extended at most once a day.
	sessionRefreshAfter = 24 * time.Hour
)

// KV is the part of the plugin KV store the transport needs.
type KV interface {
	Get(key string, out any) error
	SetWithExpiry(key string, value any, ttl time.Duration) error
	Delete(key string) error
}

// SessionRecord is what any node needs to know about a session.
type SessionRecord struct {
	ID              string                 `json:"id"`
	UserID          string                 `json:"user_id"`
	CreatedAt       time.Time              `json:"created_at"`
	SeenAt          time.Time              `json:"seen_at"`
	ProtocolVersion string                 `json:"protocol_version,omitempty"`
	ClientName      string                 `json:"client_name,omitempty"`
	ClientVersion   string                 `json:"client_version,omitempty"`
	Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	// MattermostSessionID is the Mattermost session the client signed in
	// with when it opened this MCP session: that session is the client's,
	// never the person's answer to a question.
	MattermostSessionID string `json:"mm_session_id,omitempty"`
}

type sessionStore struct {
	kv  KV
	log Logger
	now func() time.Time
}

func sessionKey(id string) string { return sessionKeyPrefix + id }

func newSessionID() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return sessionIDPrefix + hex.EncodeToString(b), nil
}

// load returns the record for a session id, or nil when there is none.
func (s *sessionStore) load(id string) (*SessionRecord, error) {
	if !strings.HasPrefix(id, sessionIDPrefix) || len(id) > 128 {
		return nil, nil
	}
	var rec SessionRecord
	if err := s.kv.Get(sessionKey(id), &rec); err != nil {
		return nil, err
	}
	if rec.ID == "" {
		return nil, nil
	}
	return &rec, nil
}

func (s *sessionStore) save(rec *SessionRecord) error {
	return s.kv.SetWithExpiry(sessionKey(rec.ID), rec, sessionLifetime)
}

// touch extends a session in use, at most once per sessionRefreshAfter.
func (s *sessionStore) touch(rec *SessionRecord) {
	if s.now().Sub(rec.SeenAt) < sessionRefreshAfter {
		return
	}
	rec.SeenAt = s.now()
	if err := s.save(rec); err != nil {
		s.log.Warn("Could not extend an MCP session", "user_id", rec.UserID, "error", err.Error())
	}
}

// remember records what the client declared at initialize, so that a node
// that never saw the initialize request can still answer as if it had.
func (s *sessionStore) remember(ctx context.Context, req *mcp.InitializeRequest) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || cs.SessionID() == "" || req == nil {
		return
	}
	rec, err := s.load(cs.SessionID())
	if err != nil || rec == nil {
		s.log.Warn("Could not find the MCP session being initialized", "session_known", rec != nil)
		return
	}
	rec.ProtocolVersion = req.Params.ProtocolVersion
	rec.ClientName = req.Params.ClientInfo.Name
	rec.ClientVersion = req.Params.ClientInfo.Version
	rec.Capabilities = req.Params.Capabilities
	if err := s.save(rec); err != nil {
		s.log.Error("Could not store the MCP session's client capabilities", "user_id", rec.UserID, "error", err.Error())
	}
}

// restore gives an ephemeral session created on this node the client facts
// recorded at initialize, wherever that happened.
func restore(ctx context.Context, rec *SessionRecord) {
	if rec == nil {
		return
	}
	withInfo, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return
	}
	if withInfo.GetClientInfo().Name == "" {
		withInfo.SetClientInfo(mcp.Implementation{Name: rec.ClientName, Version: rec.ClientVersion})
		withInfo.SetClientCapabilities(rec.Capabilities)
	}
}

// sessionResolver hands mcp-go a session id manager bound to the request's
// user and to the session record loaded for it, so validation needs no
// memory of earlier requests.
type sessionResolver struct{ store *sessionStore }

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := &userSessions{store: r.store}
	if req != nil {
		m.userID = callerIDFrom(req.Context())
		m.mmSession = MattermostSession(req.Context())
		m.record = sessionFrom(req.Context())
	}
	return m
}

type userSessions struct {
	store     *sessionStore
	userID    string
	mmSession string
	record    *SessionRecord
}

var errUnknownSession = errors.New("unknown or expired MCP session")

func (m *userSessions) Generate() string {
	id, err := newSessionID()
	if err != nil {
		m.store.log.Error("Could not create an MCP session id", "error", err.Error())
		return ""
	}
	now := m.store.now()
	if err := m.store.save(&SessionRecord{ID: id, UserID: m.userID, CreatedAt: now, SeenAt: now, MattermostSessionID: m.mmSession}); err != nil {
		// The client will get 404 on its next request and initialize again.
		m.store.log.Error("Could not store a new MCP session", "user_id", m.userID, "error", err.Error())
	}
	return id
}

func (m *userSessions) Validate(id string) (bool, error) {
	// A session is valid only for the user who created it.
	if m.record == nil || m.record.ID != id || m.record.UserID != m.userID || m.userID == "" {
		return false, errUnknownSession
	}
	m.store.touch(m.record)
	return false, nil
}

func (m *userSessions) Terminate(id string) (bool, error) {
	if m.record == nil || m.record.ID != id || m.record.UserID != m.userID {
		return false, nil // nothing of this user's to end; another user's session is left alone
	}
	return false, m.store.kv.Delete(sessionKey(id))
}
