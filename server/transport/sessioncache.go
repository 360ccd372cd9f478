package transport

import (
	"sync"
	"time"
)

// Reading a session's record from the KV store is a plugin API round trip
// on every request of a client with a session. Each node keeps the records
// it read for a few seconds instead. A session ends on every node all the
// same: the node that ends it (a DELETE, room made for a new one, the
// person's Disconnect) forgets it at once and tells the other nodes with a
// cluster event (Options.SessionsEnded, ForgetSessions); a node that
// missed the event serves it for at most sessionCacheFor, and the record
// itself is gone from the KV store.
const (
	// sessionCacheFor is how long a node trusts a record it read. Short
	// against what it bounds (a session ended elsewhere being served here,
	// a log level set on another node not yet heard here); long against
	// the gap between one client's calls in a burst.
	sessionCacheFor = 5 * time.Second
	// maxCachedSessions bounds the records a node keeps (each well under
	// maxSessionRecordBytes): past it the stale ones go, and when none is
	// stale, all.
	maxCachedSessions = 10_000
)

type cachedRecord struct {
	rec SessionRecord
	at  time.Time
}

// recordCache is this node's copy of the session records it read lately.
type recordCache struct {
	mu      sync.Mutex
	records map[string]cachedRecord
}

// get returns a copy of a fresh record: callers change theirs (touch,
// logging/setLevel) and save it.
func (c *recordCache) get(id string, now time.Time) (*SessionRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.records[id]
	if !ok || now.Sub(e.at) >= sessionCacheFor || now.Before(e.at) {
		return nil, false
	}
	rec := e.rec
	return &rec, true
}

func (c *recordCache) put(rec SessionRecord, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.records == nil {
		c.records = map[string]cachedRecord{}
	}
	if _, ok := c.records[rec.ID]; !ok && len(c.records) >= maxCachedSessions {
		for id, e := range c.records {
			if now.Sub(e.at) >= sessionCacheFor {
				delete(c.records, id)
			}
		}
		if len(c.records) >= maxCachedSessions {
			clear(c.records)
		}
	}
	c.records[rec.ID] = cachedRecord{rec: rec, at: now}
}

func (c *recordCache) drop(ids ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.records, id)
	}
}

func (c *recordCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.records)
}
