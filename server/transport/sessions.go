package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Sessions live in the plugin KV store, not in this process: in a cluster
// every node runs its own plugin process, and a client's consecutive requests
// may reach different nodes or a restarted plugin. Any node can validate a
// session and restore what the client declared at initialize.

const (
	sessionKeyPrefix = "mcpsession_"
	// sessionIndexPrefix keys each person's index of open sessions.
	sessionIndexPrefix = "mcpsessidx_"
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

	// MaxSessionsPerPerson bounds one person's open MCP sessions. A person
	// runs a handful of clients at once (desktop app, an editor, a few
	// terminal agents), and clients that restart open a new session without
	// ending the old one, so a week of restarts leaves dozens. Past the cap
	// the least recently used session ends: its client gets 404 and
	// initializes again, as the protocol requires, so the cap costs at most
	// a re-initialize, and one person's sessions stay at 32 small records.
	MaxSessionsPerPerson = 32
	// maxClientNameBytes, maxClientVersionBytes and maxProtocolVersionBytes
	// bound what a session keeps of what the client declared: a client's
	// name and version are for logs and for the client facts restored on
	// another node (real ones are a few dozen bytes), a protocol version is
	// a date.
	maxClientNameBytes      = 128
	maxClientVersionBytes   = 64
	maxProtocolVersionBytes = 32
	// maxSessionRecordBytes is the most a session record may take in the KV
	// store. Every field is bounded above (ids, three short strings, two
	// elicitation flags), which comes to well under 1 KiB; a record above
	// this is refused rather than stored.
	maxSessionRecordBytes = 2 << 10
	// indexAttempts bounds compare-and-set retries on a person's index of
	// sessions when several of their clients initialize at once on several
	// nodes; each retry waits a little longer, at random.
	indexAttempts = 64
)

// KV is the part of the plugin KV store the transport needs.
type KV interface {
	Get(key string, out any) error
	SetWithExpiry(key string, value any, ttl time.Duration) error
	Delete(key string) error
}

// SessionRecord is what any node needs to know about a session.
type SessionRecord struct {
	ID              string    `json:"id"`
	UserID          string    `json:"user_id"`
	CreatedAt       time.Time `json:"created_at"`
	SeenAt          time.Time `json:"seen_at"`
	ProtocolVersion string    `json:"protocol_version,omitempty"`
	ClientName      string    `json:"client_name,omitempty"`
	ClientVersion   string    `json:"client_version,omitempty"`
	// Capabilities holds only what the plugin uses of what the client
	// declared: whether it answers questions, in form or URL mode.
	Capabilities mcp.ClientCapabilities `json:"capabilities"`
	// MattermostSessionID is the Mattermost session the client signed in
	// with when it opened this MCP session: that session is the client's,
	// never the person's answer to a question.
	MattermostSessionID string `json:"mm_session_id,omitempty"`
}

// sessionEntry is one open session in its person's index.
type sessionEntry struct {
	ID string `json:"id"`
	// Seen is when the session was opened or last extended: the index
	// ends the least recently seen first, and forgets entries whose record
	// has expired by then.
	Seen time.Time `json:"seen"`
}

type sessionStore struct {
	kv KV
	// index holds each person's index of sessions, updated with
	// compare-and-set so that two nodes opening sessions at once both count.
	index AnswerKV
	log   Logger
	now   func() time.Time
}

func sessionKey(id string) string { return sessionKeyPrefix + id }

func sessionIndexKey(userID string) string { return sessionIndexPrefix + userID }

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
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if len(raw) > maxSessionRecordBytes {
		return fmt.Errorf("the session record is %d bytes, above the %d a session may take", len(raw), maxSessionRecordBytes)
	}
	return s.kv.SetWithExpiry(sessionKey(rec.ID), json.RawMessage(raw), sessionLifetime)
}

// touch extends a session in use, at most once per sessionRefreshAfter. A
// session no longer in its person's index was ended (by the cap, or by a
// DELETE on another node): it is left to expire rather than brought back.
func (s *sessionStore) touch(rec *SessionRecord) {
	now := s.now()
	if now.Sub(rec.SeenAt) < sessionRefreshAfter {
		return
	}
	indexed := false
	_, err := s.updateIndex(rec.UserID, func(entries []sessionEntry) ([]sessionEntry, []string) {
		indexed = false
		for i := range entries {
			if entries[i].ID == rec.ID {
				entries[i].Seen, indexed = now, true
			}
		}
		return entries, nil
	})
	if err != nil {
		s.log.Warn("Could not extend an MCP session", "user_id", rec.UserID, "error", err.Error())
		return
	}
	if !indexed {
		return
	}
	rec.SeenAt = now
	if err := s.save(rec); err != nil {
		s.log.Warn("Could not extend an MCP session", "user_id", rec.UserID, "error", err.Error())
	}
}

// open adds a new session to its person's index; past MaxSessionsPerPerson
// the least recently seen sessions are ended: their records are deleted, so
// every node answers their next request 404 like any unknown session.
func (s *sessionStore) open(userID, id string) error {
	ended, err := s.updateIndex(userID, func(entries []sessionEntry) ([]sessionEntry, []string) {
		// Taken on every attempt: the new session is the most recent one
		// however long it waited for the index.
		entries = append(entries, sessionEntry{ID: id, Seen: s.now()})
		var out []string
		for len(entries) > MaxSessionsPerPerson {
			oldest := 0
			for i, e := range entries {
				if e.Seen.Before(entries[oldest].Seen) {
					oldest = i
				}
			}
			out = append(out, entries[oldest].ID)
			entries = append(entries[:oldest], entries[oldest+1:]...)
		}
		return entries, out
	})
	if err != nil {
		return err
	}
	for _, old := range ended {
		s.log.Info("Ended a person's least recently used MCP session: one person keeps at most this many", "user_id", userID, "max_sessions", MaxSessionsPerPerson)
		if err := errors.Join(s.kv.Delete(sessionKey(old)), s.kv.Delete(mailboxKey(old))); err != nil {
			s.log.Error("Could not remove an ended MCP session; it stays usable until it expires", "user_id", userID, "error", err.Error())
		}
	}
	return nil
}

// close ends one session: its record and its place in the index.
func (s *sessionStore) close(userID, id string) error {
	_, err := s.updateIndex(userID, func(entries []sessionEntry) ([]sessionEntry, []string) {
		kept := entries[:0]
		for _, e := range entries {
			if e.ID != id {
				kept = append(kept, e)
			}
		}
		return kept, nil
	})
	return errors.Join(err, s.kv.Delete(sessionKey(id)))
}

// updateIndex applies change to a person's index atomically against other
// nodes, after dropping the entries whose records have expired, and returns
// what change reported of the attempt that was stored.
func (s *sessionStore) updateIndex(userID string, change func([]sessionEntry) ([]sessionEntry, []string)) ([]string, error) {
	key := sessionIndexKey(userID)
	for attempt := range indexAttempts {
		if attempt > 0 {
			time.Sleep(backoff(attempt))
		}
		old, err := s.index.Get(key)
		if err != nil {
			return nil, err
		}
		var entries []sessionEntry
		if len(old) > 0 && json.Unmarshal(old, &entries) != nil {
			entries = nil // a corrupt index starts again; its sessions expire by themselves
		}
		live := entries[:0]
		for _, e := range entries {
			if s.now().Sub(e.Seen) < sessionLifetime {
				live = append(live, e)
			}
		}
		next, report := change(live)
		raw, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		ok, err := s.index.CompareAndSet(key, old, raw, sessionLifetime)
		if err != nil {
			return nil, err
		}
		if ok {
			return report, nil
		}
	}
	return nil, errors.New("the person's index of MCP sessions kept changing")
}

// backoff is the wait before a retry: growing, random, at most 50 ms.
func backoff(attempt int) time.Duration {
	limit := min(time.Duration(attempt)*2*time.Millisecond, 50*time.Millisecond)
	return time.Duration(mrand.Int64N(int64(limit) + 1))
}

// remember stores a new session once its client declared what it is, so
// that a node that never saw the initialize request can answer as if it
// had, and counts it among its person's sessions. Only what the plugin uses
// of the declaration is kept, bounded (see maxClientNameBytes). The record
// is written here, once, rather than when mcp-go mints the id: the client
// learns the id only from the answer to this initialize, after this hook.
func (s *sessionStore) remember(ctx context.Context, req *mcp.InitializeRequest) {
	cs := server.ClientSessionFromContext(ctx)
	userID := callerIDFrom(ctx)
	if cs == nil || cs.SessionID() == "" || req == nil || userID == "" {
		return
	}
	now := s.now()
	rec := &SessionRecord{ID: cs.SessionID(), UserID: userID, CreatedAt: now, SeenAt: now,
		MattermostSessionID: MattermostSession(ctx),
		ProtocolVersion:     truncate(req.Params.ProtocolVersion, maxProtocolVersionBytes),
		ClientName:          truncate(req.Params.ClientInfo.Name, maxClientNameBytes),
		ClientVersion:       truncate(req.Params.ClientInfo.Version, maxClientVersionBytes),
		Capabilities:        usedCapabilities(req.Params.Capabilities),
	}
	if err := s.save(rec); err != nil {
		// The client will get 404 on its next request and initialize again.
		s.log.Error("Could not store a new MCP session", "user_id", userID, "error", err.Error())
		return
	}
	if err := s.open(userID, rec.ID); err != nil {
		// A session the index does not count could exceed the cap: it is
		// not kept, and the client initializes again on its 404.
		s.log.Error("Could not count a new MCP session among the person's sessions", "user_id", userID, "error", err.Error())
		if derr := s.kv.Delete(sessionKey(rec.ID)); derr != nil {
			s.log.Error("Could not remove an uncounted MCP session; it expires by itself", "user_id", userID, "error", derr.Error())
		}
	}
}

// usedCapabilities is what the plugin reads of a client's capabilities:
// whether it answers questions, and in which modes.
func usedCapabilities(c mcp.ClientCapabilities) mcp.ClientCapabilities {
	if c.Elicitation == nil {
		return mcp.ClientCapabilities{}
	}
	e := &mcp.ElicitationCapability{}
	if c.Elicitation.Form != nil {
		e.Form = &struct{}{}
	}
	if c.Elicitation.URL != nil {
		e.URL = &struct{}{}
	}
	return mcp.ClientCapabilities{Elicitation: e}
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
		m.record = sessionFrom(req.Context())
	}
	return m
}

type userSessions struct {
	store  *sessionStore
	userID string
	record *SessionRecord
}

var errUnknownSession = errors.New("unknown or expired MCP session")

// Generate mints the id of a session being initialized; its record is
// stored by remember, once the client said what it is.
func (m *userSessions) Generate() string {
	id, err := newSessionID()
	if err != nil {
		m.store.log.Error("Could not create an MCP session id", "error", err.Error())
		return ""
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
	return false, m.store.close(m.userID, id)
}
