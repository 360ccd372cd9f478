package transport

import (
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
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

// newRecordCache is this node's copy of the session records it read lately.
func newRecordCache() *expiring.Map[string, SessionRecord] {
	return expiring.New[string, SessionRecord](sessionCacheFor, maxCachedSessions)
}
