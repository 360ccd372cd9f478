// Package slots bounds how many of one kind of work run at once on a node,
// and how many of those one person holds, so that one person's burst
// cannot take every slot and nobody's burst can take the server. A taker
// waits a short while for a slot, then is told the work is busy.
//
//	release, ok := s.Take(ctx, userID, wait)
//	if !ok { ... busy: try again in a moment ... }
//	defer release()
package slots

import (
	"context"
	"sync"
	"time"
)

// Slots is a node's slots for one kind of work. The zero value is not
// usable; call New.
type Slots struct {
	mu        sync.Mutex
	node      int
	perPerson int
	used      int
	// held counts the slots each person holds; a person holding none has
	// no entry, so it holds at most node entries.
	held map[string]int
	// waiting counts the takers waiting for a slot.
	waiting int
	// freed is closed, and replaced, each time a slot is given back.
	freed chan struct{}
}

// New makes node slots in all, at most perPerson of them held by one
// person (each at least 1).
func New(node, perPerson int) *Slots {
	return &Slots{node: max(node, 1), perPerson: max(min(perPerson, node), 1), held: map[string]int{}, freed: make(chan struct{})}
}

// Take takes a slot for person, waiting at most wait (or until ctx ends)
// for one to come free. ok is false when none did; release gives the slot
// back and may be called more than once.
func (s *Slots) Take(ctx context.Context, person string, wait time.Duration) (release func(), ok bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.used < s.node && s.held[person] < s.perPerson {
			s.used++
			s.held[person]++
			s.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { s.give(person) }) }, true
		}
		freed := s.freed
		s.waiting++
		s.mu.Unlock()
		var gaveUp bool
		select {
		case <-freed:
		case <-timer.C:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		s.mu.Lock()
		s.waiting--
		s.mu.Unlock()
		if gaveUp {
			return func() {}, false
		}
	}
}

func (s *Slots) give(person string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	if s.held[person]--; s.held[person] <= 0 {
		delete(s.held, person)
	}
	close(s.freed)
	s.freed = make(chan struct{})
}

// InUse is how many slots are taken, how many of them person holds, and
// how many takers wait.
func (s *Slots) InUse(person string) (all, theirs, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used, s.held[person], s.waiting
}
