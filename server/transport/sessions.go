package transport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
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
	// sessionRefreshAfter is how often a stateless client is noted
	// (signins.go).
	sessionRefreshAfter = time.Minute
	// sessionRecordRefresh is how often a session in use has its record
	// stored again, so that it does not expire under its client: an hour
	// against a lifetime of a week costs one write an hour.
	sessionRecordRefresh = time.Hour

	// MaxSessionsPerPerson bounds one person's open MCP sessions, and with
	// them the bytes the person's sessions take in the KV store (at most
	// MaxSessionsPerPerson records of maxSessionRecordBytes, plus an index of
	// maxIndexBytes). It is large enough for a fleet of agents on one
	// service account: past it, the least recently used session not in use
	// ends (inuse.go: nothing of it in flight, no stream open; its client
	// gets 404 and initializes again, as the protocol requires), and when
	// every session is in use the next initialize is refused with 503 and
	// Retry-After instead of ending one that is in use.
	MaxSessionsPerPerson = 256
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
	// elicitation flags), which comes to well under 1 KiB, and the choice of
	// what it loads (at most config.MaxChosenTools names of under 24 bytes,
	// under 1 KiB); a record above this is refused rather than stored.
	maxSessionRecordBytes = 3 << 10
	// maxIndexEntryBytes bounds one entry of a person's index: a session id
	// (55 bytes), a time to the second and JSON punctuation (100 bytes), and
	// up to maxLeasesPerSession leases of 22 bytes (a node's 8-character
	// name and a Unix time) in a field of their own.
	maxIndexEntryBytes = 100 + 10 + maxLeasesPerSession*22
	// maxIndexBytes bounds the person's index record, which every initialize
	// and every lease rewrites: 50 KiB.
	maxIndexBytes = MaxSessionsPerPerson * maxIndexEntryBytes
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
	// Files is the files capability (draft SEP-2631) the client declared,
	// which mcp-go's capabilities do not hold.
	Files *filetransfer.Capability `json:"files,omitempty"`
	// MattermostSessionID is the Mattermost session the client signed in
	// with when it opened this MCP session: that session is the client's,
	// never the person's answer to a question.
	MattermostSessionID string `json:"mm_session_id,omitempty"`
	// LogLevel is what the client set with logging/setLevel (one of the
	// eight level names, logging.go); empty: it gets no log messages.
	LogLevel string `json:"log_level,omitempty"`
	// Choice is what the session loads: named at initialize, widened by
	// load_tools (choice.go); bounded by config.MaxChosenTools.
	Choice config.Choice `json:"choice,omitzero"`
}

// sessionEntry is one open session in its person's index.
type sessionEntry struct {
	ID string `json:"id"`
	// Seen is when the session was opened or last leased, to the second:
	// the least recently seen session not in use ends first, and entries
	// unseen for a session's lifetime are forgotten.
	Seen time.Time `json:"seen"`
	// Leases are the nodes holding the session in use, each with the Unix
	// time its lease ends (inuse.go).
	Leases map[string]int64 `json:"held,omitempty"`
}

type sessionStore struct {
	kv KV
	// index holds each person's index of sessions, updated with
	// compare-and-set so that two nodes opening sessions at once both count.
	index kvstore.KV
	log   Logger
	now   func() time.Time
	// opened hears of each session stored (Options.Connected).
	opened func(SessionRecord)
	// cached is this node's copy of the records it read (sessioncache.go);
	// ended tells the other nodes which sessions ended here.
	cached *expiring.Map[string, SessionRecord]
	ended  func(ids []string)

	// queues holds, per person, the index changes waiting for this node's
	// one writer of that person's index (see updateIndex).
	mu     sync.Mutex
	queues map[string][]*indexChange

	// holds is what this node holds in use, and its leases (inuse.go);
	// renews is whether a renewer keeps the leases of long holds running
	// (New sets it; tests renew by hand).
	holds  holds
	renews bool
	// waiting are the person's sessions whose writes wait for them
	// (Options.WaitingSessions; nil: none), read only when a session must
	// end to make room.
	waiting func(userID string) (map[string]bool, error)
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

// seenStamp is a time as the index keeps it: to the second, in UTC, which
// keeps entries short.
func seenStamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// load returns the record for a session id, or nil when there is none.
func (s *sessionStore) load(id string) (*SessionRecord, error) {
	if !strings.HasPrefix(id, sessionIDPrefix) || len(id) > 128 {
		return nil, nil
	}
	now := s.clock()
	if rec, ok := s.records().Get(id, now); ok {
		return &rec, nil // a copy: callers change theirs (touch, logging/setLevel) and save it
	}
	var rec SessionRecord
	if err := s.kv.Get(sessionKey(id), &rec); err != nil {
		return nil, err
	}
	if rec.ID == "" {
		// Not kept: an unknown id asks the KV store again, as a session
		// opened on another node a moment ago must be found.
		return nil, nil
	}
	s.records().Put(id, rec, now)
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
	if err := s.kv.SetWithExpiry(sessionKey(rec.ID), json.RawMessage(raw), sessionLifetime); err != nil {
		s.records().Drop(rec.ID)
		return err
	}
	s.records().Put(rec.ID, *rec, s.clock())
	return nil
}

// records is s.cached, made on first use for a store made without one (in
// tests).
func (s *sessionStore) records() *expiring.Map[string, SessionRecord] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached == nil {
		s.cached = newRecordCache()
	}
	return s.cached
}

// clock is s.now, or the time for a store made without one (in tests).
func (s *sessionStore) clock() time.Time {
	if s.now == nil {
		return time.Now()
	}
	return s.now()
}

// endedHere forgets sessions this node ended and tells the other nodes.
func (s *sessionStore) endedHere(ids ...string) {
	s.records().Drop(ids...)
	s.holds.mu.Lock()
	for _, id := range ids {
		delete(s.holds.leased, id)
	}
	s.holds.mu.Unlock()
	if s.ended != nil && len(ids) > 0 {
		s.ended(ids)
	}
}

// touch leases a session in use for the other nodes unless this node's
// lease of it runs long enough (inuse.go), and reports whether the session
// is still open. A session no longer in its person's index was ended (to
// make room, or by a DELETE on another node): it is left to expire rather
// than brought back, and this request is answered 404 like any ended
// session's.
func (s *sessionStore) touch(rec *SessionRecord) bool {
	now := s.clock()
	covered, ending := s.leaseCovers(rec.ID, now)
	if ending {
		return false
	}
	if covered {
		return true
	}
	gone, err := s.lease(rec.UserID, []string{rec.ID})
	if err != nil {
		// The session stays usable; the next request leases it again.
		s.log.Warn("Could not mark an MCP session as in use", "user_id", rec.UserID, "error", err.Error())
		return true
	}
	if gone[rec.ID] {
		return false
	}
	if now.Sub(rec.SeenAt) >= sessionRecordRefresh {
		rec.SeenAt = now
		if err := s.save(rec); err != nil {
			s.log.Warn("Could not renew an MCP session's record", "user_id", rec.UserID, "error", err.Error())
		}
	}
	return true
}

// errSessionsInUse refuses a new session while all of a person's sessions
// are in use; RetryAfter is when to ask again: when the first lease of
// another node runs out, or soon when they are held here.
type errSessionsInUse struct{ RetryAfter time.Duration }

func (e *errSessionsInUse) Error() string {
	return fmt.Sprintf("all %d MCP sessions of the person are in use", MaxSessionsPerPerson)
}

// open counts a new session among its person's sessions and returns its
// id, before the client learns it, held in use until release is called
// (the initialize is done). At MaxSessionsPerPerson the least recently used
// session not in use ends to make room: its record is deleted, so every
// node answers its next request 404 like any unknown session. When every
// one is in use, nothing ends and open answers *errSessionsInUse.
func (s *sessionStore) open(userID string) (id string, release func(), err error) {
	id, err = newSessionID()
	if err != nil {
		return "", nil, err
	}
	release = s.holdNew(userID, id)
	var ended []string
	var refused *errSessionsInUse
	var until time.Time
	var waiting map[string]bool
	err = s.updateIndex(userID, func(entries []sessionEntry) []sessionEntry {
		// Taken on every attempt: the new session is the most recent one
		// however long it waited for the index.
		now := s.now()
		until = leaseEnd(now)
		if len(entries) >= MaxSessionsPerPerson && waiting == nil {
			waiting = s.waitingOf(userID)
		}
		h := &s.holds
		h.mu.Lock()
		defer h.mu.Unlock()
		h.ending.Drop(ended...) // marked by an attempt that lost
		ended, refused = nil, nil
		for len(entries) >= MaxSessionsPerPerson {
			lru, retry := -1, time.Duration(0)
			for i, e := range entries {
				busy, after := h.inUse(e, now)
				if !busy && waiting[e.ID] {
					busy, after = true, sessionsWaitRetry
				}
				switch {
				case busy && (retry == 0 || after < retry):
					retry = after
				case !busy && (lru < 0 || e.Seen.Before(entries[lru].Seen)):
					lru = i
				}
			}
			if lru < 0 {
				refused = &errSessionsInUse{RetryAfter: retry}
				return entries
			}
			// Not served here from now on, even by a request that loaded
			// its record a moment ago.
			h.ending.Put(entries[lru].ID, true, now)
			ended = append(ended, entries[lru].ID)
			entries = slices.Delete(entries, lru, lru+1)
		}
		return append(entries, sessionEntry{ID: id, Seen: seenStamp(now), Leases: map[string]int64{h.node: until.Unix()}})
	})
	if err != nil || refused != nil {
		s.holds.mu.Lock()
		s.holds.ending.Drop(ended...)
		s.holds.mu.Unlock()
		release()
		if err == nil {
			err = refused
		}
		return "", nil, err
	}
	s.noteLeased([]string{id}, nil, until)
	for _, old := range ended {
		s.log.Info("Ended a person's least recently used MCP session not in use to make room for a new one", "user_id", userID,
			"max_sessions", MaxSessionsPerPerson)
		if err := errors.Join(s.kv.Delete(sessionKey(old)), s.kv.Delete(mailboxKey(old))); err != nil {
			s.log.Error("Could not remove an ended MCP session; it stays usable until it expires", "user_id", userID, "error", err.Error())
		}
	}
	s.endedHere(ended...)
	return id, release, nil
}

// waitingOf are the sessions of userID whose writes wait for the person.
// Unknown, none is taken to wait: a session the store cannot tell about
// may end to make room rather than lock the person out.
func (s *sessionStore) waitingOf(userID string) map[string]bool {
	if s.waiting == nil {
		return map[string]bool{}
	}
	w, err := s.waiting(userID)
	if err != nil {
		s.log.Warn("Could not read which MCP sessions wait for the person's answer to a write", "user_id", userID, "error", err.Error())
		return map[string]bool{}
	}
	if w == nil {
		w = map[string]bool{}
	}
	return w
}

// close ends one session: its record and its place in the index.
func (s *sessionStore) close(userID, id string) error {
	err := s.updateIndex(userID, func(entries []sessionEntry) []sessionEntry {
		return slices.DeleteFunc(entries, func(e sessionEntry) bool { return e.ID == id })
	})
	err = errors.Join(err, s.kv.Delete(sessionKey(id)))
	s.endedHere(id)
	return err
}

// reservation is the session id open counted for an initialize before
// mcp-go handles it: Generate hands it to mcp-go, remember stores its
// record, and ServeMCP ends it when no record was stored (the initialize
// failed), so a failed initialize leaves nothing counted.
type reservation struct {
	id     string
	stored atomic.Bool
	// release ends the initialize's hold of the session (inuse.go).
	release func()
}

type reservationKey struct{}

func withReservation(ctx context.Context, r *reservation) context.Context {
	return context.WithValue(ctx, reservationKey{}, r)
}

func reservationFrom(ctx context.Context) *reservation {
	r, _ := ctx.Value(reservationKey{}).(*reservation)
	return r
}

// remember stores a new session once its client declared what it is, so
// that a node that never saw the initialize request can answer as if it
// had. Only what the plugin uses of the declaration is kept, bounded (see
// maxClientNameBytes), with the protocol version the server agreed to. The
// record is written here, once, rather than when mcp-go mints the id: the
// client learns the id only from the answer to this initialize, after this
// hook.
func (s *sessionStore) remember(ctx context.Context, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	cs := server.ClientSessionFromContext(ctx)
	userID := callerIDFrom(ctx)
	held := reservationFrom(ctx)
	if cs == nil || cs.SessionID() == "" || req == nil || userID == "" || held == nil || held.id != cs.SessionID() {
		return
	}
	version := req.Params.ProtocolVersion
	if res != nil && res.ProtocolVersion != "" {
		version = res.ProtocolVersion
	}
	now := s.now()
	rec := &SessionRecord{ID: cs.SessionID(), UserID: userID, CreatedAt: now, SeenAt: now,
		MattermostSessionID: MattermostSession(ctx),
		ProtocolVersion:     truncate(version, maxProtocolVersionBytes),
		ClientName:          truncate(req.Params.ClientInfo.Name, maxClientNameBytes),
		ClientVersion:       truncate(req.Params.ClientInfo.Version, maxClientVersionBytes),
		Capabilities:        usedCapabilities(req.Params.Capabilities),
		Files:               DeclaredFiles(ctx),
		Choice:              ChoiceOf(ctx),
	}
	if err := s.save(rec); err != nil {
		// The client will get 404 on its next request and initialize
		// again; ServeMCP ends the counted id.
		s.log.Error("Could not store a new MCP session", "user_id", userID, "error", err.Error())
		return
	}
	held.stored.Store(true)
	if s.opened != nil {
		s.opened(*rec)
	}
}

// usedCapabilities is what the plugin reads of a client's capabilities:
// whether it answers questions, and in which modes, and whether it shows
// views (MCP Apps); nothing else a client declares is stored.
func usedCapabilities(c mcp.ClientCapabilities) mcp.ClientCapabilities {
	var used mcp.ClientCapabilities
	if _, ok := c.Extensions[AppsExtension]; ok {
		used.Extensions = map[string]any{AppsExtension: map[string]any{}}
	}
	if c.Elicitation == nil {
		return used
	}
	e := &mcp.ElicitationCapability{}
	if c.Elicitation.Form != nil {
		e.Form = &struct{}{}
	}
	if c.Elicitation.URL != nil {
		e.URL = &struct{}{}
	}
	used.Elicitation = e
	return used
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
// user, to the session record loaded for it and to the id counted for an
// initialize, so validation needs no memory of earlier requests.
type sessionResolver struct{ store *sessionStore }

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := &userSessions{store: r.store}
	if req != nil {
		m.userID = callerIDFrom(req.Context())
		m.record = sessionFrom(req.Context())
		m.reserved = reservationFrom(req.Context())
	}
	return m
}

type userSessions struct {
	store    *sessionStore
	userID   string
	record   *SessionRecord
	reserved *reservation
}

var errUnknownSession = errors.New("unknown or expired MCP session")

// Generate hands mcp-go the id ServeMCP counted for this initialize; its
// record is stored by remember, once the client said what it is. Without
// one (an initialize that did not pass through ServeMCP) there is no id:
// a session the index does not count could break the bound.
func (m *userSessions) Generate() string {
	if m.reserved == nil {
		m.store.log.Error("An MCP initialize reached mcp-go without a counted session id; it gets none")
		return ""
	}
	return m.reserved.id
}

func (m *userSessions) Validate(id string) (bool, error) {
	// A session is valid only for the user who created it.
	if m.record == nil || m.record.ID != id || m.record.UserID != m.userID || m.userID == "" {
		return false, errUnknownSession
	}
	if !m.store.touch(m.record) {
		return false, errUnknownSession
	}
	return false, nil
}

func (m *userSessions) Terminate(id string) (bool, error) {
	if m.record == nil || m.record.ID != id || m.record.UserID != m.userID {
		return false, nil // nothing of this user's to end; another user's session is left alone
	}
	return false, m.store.close(m.userID, id)
}
