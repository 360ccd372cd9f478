// Package audittest is an audit trail for tests: it keeps every event it is
// given, in order, and is safe to record into from many goroutines.
package audittest

import (
	"sync"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

// Trail is an audit.Recorder that keeps what it was given.
type Trail struct {
	mu     sync.Mutex
	events []audit.Event
}

// Record implements audit.Recorder.
func (t *Trail) Record(e audit.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, e)
}

// All is every event recorded so far.
func (t *Trail) All() []audit.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]audit.Event(nil), t.events...)
}

// Take is every event recorded since the last Take, and forgets them.
func (t *Trail) Take() []audit.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.events
	t.events = nil
	return out
}
