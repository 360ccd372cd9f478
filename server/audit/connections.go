package audit

import (
	"sync"
	"time"
)

// ReasonConnected is the reason of a connection entry for a client's new
// session or a new stateless client: the one entry a client causes as
// often as it likes, without the person acting and without the rate of
// calls counting it. The Trail stores it at most once a minute per person
// and client name, and at most MaxConnectionsAMinute a minute per person;
// the rest are counted in the day's head (Repeated), not stored.
const ReasonConnected = "connected"

const (
	// connectionWindow is how long one client's connection entry stands
	// for the next ones of the same person and client.
	connectionWindow = time.Minute
	// MaxConnectionsAMinute bounds the connection entries a person gets
	// stored a minute, whatever the clients' names: a person starts a few
	// clients at once (an editor, a desktop app, a terminal); more new
	// names within a minute are one client renaming itself.
	MaxConnectionsAMinute = 3
	// maxConnectionPeople bounds this process's memory of recent
	// connections (at most MaxConnectionsAMinute names each): past it, the
	// people not seen within the minute are forgotten, then everyone, which
	// only lets a few more entries through.
	maxConnectionPeople = 10000
)

// connections is this process's memory of the connection entries it let
// through in the last minute, per person, and the count of those it held
// back since the last write, per day. On a cluster each node keeps its
// own: a person gets at most that many entries a minute on each node.
type connections struct {
	mu       sync.Mutex
	recent   map[string][]connection
	repeated map[string]int
}

type connection struct {
	client string
	at     time.Time
}

// admit is whether a connection of userID with client at is stored; when
// it is not, it is counted for at's day.
func (c *connections) admit(at time.Time, userID, client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recent == nil {
		c.recent, c.repeated = map[string][]connection{}, map[string]int{}
	}
	seen := c.recent[userID][:0:0]
	for _, k := range c.recent[userID] {
		if at.Sub(k.at) < connectionWindow && !k.at.After(at.Add(connectionWindow)) {
			seen = append(seen, k)
		}
	}
	repeat := len(seen) >= MaxConnectionsAMinute
	for _, k := range seen {
		repeat = repeat || k.client == client
	}
	if repeat {
		c.recent[userID] = seen
		c.repeated[Day(at)]++
		return false
	}
	if _, ok := c.recent[userID]; !ok && len(c.recent) >= maxConnectionPeople {
		c.forget(at)
	}
	c.recent[userID] = append(seen, connection{client: client, at: at})
	return true
}

// forget drops the people with nothing within the minute before at, and,
// if that is not enough, everyone.
func (c *connections) forget(at time.Time) {
	for user, seen := range c.recent {
		if len(seen) == 0 || at.Sub(seen[len(seen)-1].at) >= connectionWindow {
			delete(c.recent, user)
		}
	}
	if len(c.recent) >= maxConnectionPeople {
		clear(c.recent)
	}
}

// take answers the repeated connections counted since the last take, by
// day, and starts counting afresh.
func (c *connections) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.repeated
	c.repeated = map[string]int{}
	return out
}
