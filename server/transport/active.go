package transport

import (
	"sync"
	"time"
)

const (
	// activeFor is how long this node trusts that a user it found active
	// still is. Mattermost itself ends every session of a deactivated user
	// (so their requests stop reaching the plugin), and the plugin hears of
	// a deactivation at once on the node that made it (UserDeactivated) and
	// on every other node of a cluster through a cluster event; this bounds
	// what is left: a node that missed both lets a deactivated user's
	// still-accepted token in for at most this long. It saves a plugin API
	// round trip on every request.
	activeFor = 10 * time.Second
	// maxActiveUsers bounds the users remembered: one entry is a user id
	// and a time; past it the expired ones go, and when none has, all.
	maxActiveUsers = 10_000
)

// activeUsers is which users this node found active, and until when it
// trusts that.
type activeUsers struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (a *activeUsers) trusted(userID string, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return now.Before(a.until[userID])
}

func (a *activeUsers) found(userID string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.until == nil {
		a.until = map[string]time.Time{}
	}
	if len(a.until) >= maxActiveUsers {
		for id, t := range a.until {
			if !now.Before(t) {
				delete(a.until, id)
			}
		}
		if len(a.until) >= maxActiveUsers {
			clear(a.until)
		}
	}
	a.until[userID] = now.Add(activeFor)
}

func (a *activeUsers) forget(userID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.until, userID)
}

// UserDeactivated ends a deactivated user's access on this node at once:
// their next request asks Mattermost again. The plugin calls it from
// Mattermost's UserHasBeenDeactivated hook and from the cluster event the
// node that saw the deactivation sends the others. Their notice streams on
// this node end.
func (t *Transport) UserDeactivated(userID string) {
	t.active.forget(userID)
	t.endStreams(userID, "")
}

// userActive answers whether the user exists and is not deactivated:
// Options.UserActive, unless this node found them active within activeFor.
func (t *Transport) userActive(userID string) (bool, error) {
	if t.active.trusted(userID, time.Now()) {
		return true, nil
	}
	active, err := t.opts.UserActive(userID)
	if err != nil || !active {
		return false, err
	}
	t.active.found(userID, time.Now())
	return true, nil
}
