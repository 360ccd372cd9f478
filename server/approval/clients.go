package approval

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// The MCP client's own Mattermost sessions never answer a pending write,
// whichever write it is. Every session that has called /mcp for a person is
// noted in one small record of theirs, and an answer from any of them is
// refused: a coding agent can read every credential its client holds, so a
// second client of the same person, or the same client signed in afresh,
// must not answer what the first one asked. The record is written only when
// a session is new to it; each node remembers the sessions it has already
// noted, so a request of a known session reads nothing.

const (
	clientsPrefix = "pcs_"
	// MaxClientSessions bounds one person's noted sessions. A person holds a
	// session per signed-in app and device and per client that signs in with
	// a session token (tokens and OAuth are refused as integrations without
	// being noted): a few dozen at most. Past the cap the session that
	// expires first leaves the record for the new one.
	MaxClientSessions = 128
	// maxClientRecordBytes is the record's size cap: 128 entries of a
	// 26-character id and a time take about 6 KiB.
	maxClientRecordBytes = 8 << 10
	// maxClientSessionLife bounds how long a session stays noted when
	// Mattermost gives it no end: as long as Mattermost's longest session
	// setting allows by default (180 days for mobile), and no longer.
	maxClientSessionLife = 180 * 24 * time.Hour
	// maxNotedHere bounds the sessions one node remembers as already noted; when
	// full it forgets them all and reads the record again for each.
	maxNotedHere = 4096
)

// clientRecord maps each noted session id to when it expires (Unix ms).
type clientRecord struct {
	Sessions map[string]int64 `json:"s"`
}

// clientSessions are the noted sessions of every person.
type clientSessions struct {
	kv  kvstore.KV
	now func() time.Time

	mu    sync.Mutex
	noted map[string]int64 // userID + "/" + sessionID -> expiry (Unix ms)
}

func (c *clientSessions) load(userID string) (clientRecord, []byte, error) {
	raw, err := c.kv.Get(clientsPrefix + userID)
	if err != nil {
		return clientRecord{}, nil, fmt.Errorf("read the person's MCP client sessions: %w", err)
	}
	return parseClients(raw), raw, nil
}

// parseClients reads a stored record; one over its cap or corrupt reads
// as empty (and is written afresh by the next note).
func parseClients(raw []byte) clientRecord {
	rec := clientRecord{Sessions: map[string]int64{}}
	if raw != nil && len(raw) <= maxClientRecordBytes {
		if json.Unmarshal(raw, &rec) != nil || rec.Sessions == nil {
			rec.Sessions = map[string]int64{}
		}
	}
	return rec
}

// note records that session sessionID of userID, ending at expires (zero:
// Mattermost gives it no end), called /mcp.
func (c *clientSessions) note(userID, sessionID string, expires time.Time) error {
	if userID == "" || sessionID == "" {
		return nil
	}
	now := c.now()
	expires = c.until(expires)
	var noted int64
	err := kvstore.Update(c.kv, clientsPrefix+userID, func(old []byte) (kvstore.Change, error) {
		rec := parseClients(old)
		for id, at := range rec.Sessions {
			if at <= now.UnixMilli() {
				delete(rec.Sessions, id)
			}
		}
		if at, ok := rec.Sessions[sessionID]; ok && at >= expires.UnixMilli() && len(old) <= maxClientRecordBytes {
			noted = at
			return kvstore.Change{}, kvstore.Unchanged
		}
		rec.Sessions[sessionID] = expires.UnixMilli()
		for len(rec.Sessions) > MaxClientSessions {
			delete(rec.Sessions, soonest(rec.Sessions, sessionID))
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			return kvstore.Change{}, err
		}
		// The record lives as long as its longest-lived session.
		var last int64
		for _, at := range rec.Sessions {
			last = max(last, at)
		}
		noted = expires.UnixMilli()
		return kvstore.Change{Value: raw, TTL: time.Until(time.UnixMilli(last)) + time.Minute}, nil
	})
	if err != nil {
		return fmt.Errorf("note the person's MCP client session: %w", err)
	}
	c.remember(userID+"/"+sessionID, noted)
	return nil
}

// until is when a session's note ends: with the session, and at most
// maxClientSessionLife from now.
func (c *clientSessions) until(expires time.Time) time.Time {
	if limit := c.now().Add(maxClientSessionLife); expires.IsZero() || expires.After(limit) {
		return limit
	}
	return expires
}

// known reports whether this node has noted the session already.
func (c *clientSessions) known(userID, sessionID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.noted[userID+"/"+sessionID]
	return ok && at > c.now().UnixMilli()
}

// soonest is the noted session that expires first, other than keep.
func soonest(sessions map[string]int64, keep string) string {
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		if id != keep {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if sessions[ids[i]] != sessions[ids[j]] {
			return sessions[ids[i]] < sessions[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids[0]
}

func (c *clientSessions) remember(key string, expires int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noted == nil || len(c.noted) >= maxNotedHere {
		c.noted = map[string]int64{}
	}
	c.noted[key] = expires
}

// has reports whether sessionID of userID has called /mcp and not expired.
func (c *clientSessions) has(userID, sessionID string) (bool, error) {
	rec, _, err := c.load(userID)
	if err != nil {
		return false, err
	}
	at, ok := rec.Sessions[sessionID]
	return ok && at > c.now().UnixMilli(), nil
}
