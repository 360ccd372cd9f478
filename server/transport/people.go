package transport

import (
	"encoding/json"
	"errors"
	"slices"
)

// What the person sees of their own MCP sessions (the connect dialog) and
// how they end them. Every node reads a session from the KV store (ServeMCP
// loads the record; mcp-go's copy is dropped after initialize, see
// forgetHere) and keeps it a few seconds (sessioncache.go): a session
// removed here is forgotten here at once and on the other nodes through
// the cluster event, or within sessionCacheFor.

// PersonSessions are the person's open MCP sessions, most recently used
// first: at most MaxSessionsPerPerson, read through the person's index,
// never by listing keys.
func (t *Transport) PersonSessions(userID string) ([]SessionRecord, error) {
	raw, err := t.sessions.index.Get(sessionIndexKey(userID))
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	var entries []sessionEntry
	if json.Unmarshal(raw, &entries) != nil {
		return nil, nil // a corrupt index is started again on the next initialize
	}
	slices.SortFunc(entries, func(a, b sessionEntry) int { return b.Seen.Compare(a.Seen) })
	if len(entries) > MaxSessionsPerPerson {
		entries = entries[:MaxSessionsPerPerson]
	}
	out := make([]SessionRecord, 0, len(entries))
	for _, e := range entries {
		rec, err := t.sessions.load(e.ID)
		if err != nil {
			return nil, err
		}
		if rec == nil || rec.UserID != userID {
			continue // expired, or never stored (a failed initialize)
		}
		out = append(out, *rec)
	}
	return out, nil
}

// ForgetSessions drops this node's copies of sessions another node ended.
func (t *Transport) ForgetSessions(ids []string) {
	if len(ids) > MaxSessionsPerPerson {
		ids = ids[:MaxSessionsPerPerson] // one event ends at most one person's sessions
	}
	t.sessions.records().Drop(ids...)
}

// EndSessions ends the person's sessions with these ids on every node:
// their records, their mailboxes and their places in the index. The next
// request of their clients gets 404, as for any ended session. Ids that are
// not the person's are left alone.
func (t *Transport) EndSessions(userID string, ids []string) error {
	var errs []error
	for _, id := range ids {
		rec, err := t.sessions.load(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rec != nil && rec.UserID != userID {
			continue
		}
		errs = append(errs, t.sessions.close(userID, id), t.sessions.kv.Delete(mailboxKey(id)))
	}
	return errors.Join(errs...)
}
