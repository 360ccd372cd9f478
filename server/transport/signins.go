package transport

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// A client of protocol 2026-07-28 or later opens no session: every request
// stands alone and carries the client's name in its _meta. So that the
// person still sees such a client among their connected clients (and can
// disconnect it), each one is noted per person by the Mattermost session it
// signs in with, at most once a minute per node.

const (
	signInKeyPrefix = "mcpsignins_"
	// MaxSignInsPerPerson bounds the stateless clients noted per person (one
	// per Mattermost session and client name): a person signs in a handful;
	// past it the least recently seen is forgotten.
	MaxSignInsPerPerson = 64
	// maxNotedHere bounds this node's memory of when it last noted each
	// client (a key and a time each); past it the memory starts again,
	// which costs one KV write per client.
	maxNotedHere = 10_000
	// maxNoteBodyBytes bounds the requests read a second time for the
	// client's name: a call carrying files can be megabytes, and the same
	// client's small requests (tools/list, most calls) name it as well.
	maxNoteBodyBytes = 64 << 10
)

// SignIn is a stateless client of the person, by the Mattermost session it
// signed in with.
type SignIn struct {
	MattermostSessionID string    `json:"mm"`
	ClientName          string    `json:"name,omitempty"`
	ClientVersion       string    `json:"version,omitempty"`
	SeenAt              time.Time `json:"seen"`
}

// signIns is this node's memory of when it last noted each client.
type signIns struct {
	mu    sync.Mutex
	noted map[string]time.Time
}

// due reports whether key was not noted within sessionRefreshAfter, and
// takes it as noted now.
func (s *signIns) due(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.noted[key]) < sessionRefreshAfter {
		return false
	}
	if s.noted == nil || len(s.noted) >= maxNotedHere {
		s.noted = map[string]time.Time{}
	}
	s.noted[key] = now
	return true
}

// noteSignIn notes a stateless request's client among the person's.
func (t *Transport) noteSignIn(userID, mmSession string, size int, env envelope) {
	if size > maxNoteBodyBytes || userID == "" || mmSession == "" || t.opts.Answers == nil {
		return
	}
	info, ok := env.clientInfo()
	if !ok {
		return
	}
	name, version := truncate(info.Name, maxClientNameBytes), truncate(info.Version, maxClientVersionBytes)
	now := time.Now()
	if !t.signIns.due(userID+"/"+mmSession+"/"+name, now) {
		return
	}
	isNew := false
	err := t.changeSignIns(userID, func(list []SignIn) []SignIn {
		before := len(list)
		list = slices.DeleteFunc(list, func(s SignIn) bool { return s.MattermostSessionID == mmSession && s.ClientName == name })
		isNew = len(list) == before
		list = append(list, SignIn{MattermostSessionID: mmSession, ClientName: name, ClientVersion: version, SeenAt: seenStamp(now)})
		slices.SortFunc(list, func(a, b SignIn) int { return b.SeenAt.Compare(a.SeenAt) })
		if len(list) > MaxSignInsPerPerson {
			list = list[:MaxSignInsPerPerson]
		}
		return list
	})
	if err != nil {
		t.opts.Log.Warn("Could not note an MCP client among the person's connected clients", "user_id", userID, "error", err.Error())
		return
	}
	if isNew && t.opts.Connected != nil {
		// A new client of the person, as an initialize is for a session.
		t.opts.Connected(SessionRecord{UserID: userID, CreatedAt: now, SeenAt: now, ClientName: name, ClientVersion: version, MattermostSessionID: mmSession})
	}
}

func (t *Transport) changeSignIns(userID string, apply func([]SignIn) []SignIn) error {
	return kvstore.List[SignIn]{KV: t.opts.Answers, Key: signInKeyPrefix + userID, TTL: sessionLifetime}.Update(func(list []SignIn) ([]SignIn, error) {
		return apply(list), nil
	})
}

// PersonSignIns are the person's stateless clients, most recently seen
// first, at most MaxSignInsPerPerson.
func (t *Transport) PersonSignIns(userID string) ([]SignIn, error) {
	raw, err := t.opts.Answers.Get(signInKeyPrefix + userID)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	var list []SignIn
	if json.Unmarshal(raw, &list) != nil {
		return nil, nil
	}
	now := time.Now()
	return slices.DeleteFunc(list, func(s SignIn) bool { return now.Sub(s.SeenAt) >= sessionLifetime }), nil
}

// ForgetSignIns forgets the person's stateless clients that signed in with
// these Mattermost sessions (once they are revoked, they cannot call).
func (t *Transport) ForgetSignIns(userID string, mmSessions []string) error {
	return t.changeSignIns(userID, func(list []SignIn) []SignIn {
		return slices.DeleteFunc(list, func(s SignIn) bool { return slices.Contains(mmSessions, s.MattermostSessionID) })
	})
}
