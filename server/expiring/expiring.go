// Package expiring holds what a node read from Mattermost or the KV store
// and trusts for a short while instead of asking again on every call: a
// map whose entries expire after a fixed time, with a cap on how many it
// holds.
package expiring

import (
	"sync"
	"time"
)

// Map is safe for concurrent use; its zero value is not usable (see New).
type Map[K comparable, V any] struct {
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[K]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// New keeps each entry for ttl and at most max entries: a Put past max drops
// the expired ones, and when none has expired, all (they are only copies).
func New[K comparable, V any](ttl time.Duration, max int) *Map[K, V] {
	return &Map[K, V]{ttl: ttl, max: max, m: map[K]entry[V]{}}
}

// Get returns the value put at most ttl before now.
func (c *Map[K, V]) Get(k K, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put keeps v for k from now.
func (c *Map[K, V]) Put(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		for key, e := range c.m {
			if now.Sub(e.at) >= c.ttl {
				delete(c.m, key)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[k] = entry[V]{v: v, at: now}
}

// Drop forgets ks.
func (c *Map[K, V]) Drop(ks ...K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range ks {
		delete(c.m, k)
	}
}

// Len is how many entries are held, expired ones included.
func (c *Map[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
