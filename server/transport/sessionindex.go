package transport

import (
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// A person's index of sessions is written by one goroutine per person and
// node, in batches (updateIndex).

// indexChange is one change to a person's index. apply may run several
// times (once per compare-and-set attempt), each time on the index as
// stored, so it records what it did afresh on every run.
type indexChange struct {
	apply func([]sessionEntry) []sessionEntry
	done  chan error
}

// updateIndex applies change to a person's index atomically against other
// nodes. On one node, one goroutine at a time writes a person's index, and
// it writes every change that waited meanwhile in one compare-and-set: two
// hundred clients of one person initializing at once cost a few writes per
// node instead of two hundred racing ones.
func (s *sessionStore) updateIndex(userID string, apply func([]sessionEntry) []sessionEntry) error {
	c := &indexChange{apply: apply, done: make(chan error, 1)}
	s.mu.Lock()
	if s.queues == nil {
		s.queues = map[string][]*indexChange{}
	}
	waiting, writing := s.queues[userID]
	s.queues[userID] = append(waiting, c)
	s.mu.Unlock()
	if !writing {
		go s.writeIndex(userID)
	}
	return <-c.done
}

// writeIndex writes a person's waiting index changes, batch after batch,
// until none waits.
func (s *sessionStore) writeIndex(userID string) {
	for {
		s.mu.Lock()
		batch := s.queues[userID]
		if len(batch) == 0 {
			delete(s.queues, userID)
			s.mu.Unlock()
			return
		}
		s.queues[userID] = batch[:0:0]
		s.mu.Unlock()
		err := s.storeIndex(userID, batch)
		for _, c := range batch {
			c.done <- err
		}
	}
}

// storeIndex applies a batch of changes, in order, to the index as stored,
// after dropping the entries whose records have expired, and stores it with
// compare-and-set, again until it holds.
func (s *sessionStore) storeIndex(userID string, batch []*indexChange) error {
	// A corrupt index starts again; its sessions expire by themselves.
	index := kvstore.List[sessionEntry]{KV: s.index, Key: sessionIndexKey(userID), TTL: sessionLifetime, MaxBytes: maxIndexBytes}
	return index.Update(func(entries []sessionEntry) ([]sessionEntry, error) {
		now := s.now()
		entries = slices.DeleteFunc(entries, func(e sessionEntry) bool { return now.Sub(e.Seen) >= sessionLifetime })
		for _, c := range batch {
			entries = c.apply(entries)
		}
		return s.dropLeases(entries, now), nil // a refused initialize changes nothing: no write
	})
}
