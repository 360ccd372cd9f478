// Package budget is a process-wide allowance of memory, counted in bytes,
// that work takes before it starts and gives back when it ends, so that all
// of it together stays within one bound however many calls run at once.
//
// Takers wait in arrival order: a large request at the head of the queue is
// not overtaken by small ones that would fit, so it cannot be starved. A
// request larger than the whole allowance is refused at once with a
// *TooLargeError instead of waiting for something that can never happen.
// How long a taker waits is its context's business.
//
//	release, err := b.Acquire(ctx, cost)
//	if err != nil { ... }
//	defer release()
//
// Release may be called any number of times; only the first gives back. The
// allowance can be resized at any time: takers that no longer fit are refused
// and every byte taken is given back exactly once, whatever the size was when
// it was taken.
package budget

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// TooLargeError refuses a cost larger than the whole allowance: no amount of
// waiting would let it through.
type TooLargeError struct {
	Cost, Capacity int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("budget: %d bytes asked, more than the whole allowance of %d bytes", e.Cost, e.Capacity)
}

// Budget is the allowance. The zero value is not usable; call New.
type Budget struct {
	mu       sync.Mutex
	capacity int64
	used     int64
	queue    list.List // of *waiter, oldest first
}

// waiter is one Acquire waiting its turn. done is closed once it is decided:
// granted (err nil, the cost already counted in used) or refused (err set).
type waiter struct {
	cost int64
	done chan struct{}
	err  error
}

// New makes an allowance of capacity bytes (below zero counts as zero).
func New(capacity int64) *Budget {
	return &Budget{capacity: max(capacity, 0)}
}

// Acquire takes cost bytes (below zero counts as zero), waiting in arrival
// order until they are free. It returns a *TooLargeError at once for a cost
// above the whole allowance, and ctx's error when ctx ends first; then
// nothing is held. Otherwise the caller holds cost bytes until it calls
// release, which it must (defer it: a panic then gives back too).
func (b *Budget) Acquire(ctx context.Context, cost int64) (release func(), err error) {
	cost = max(cost, 0)
	b.mu.Lock()
	if cost > b.capacity {
		err := &TooLargeError{Cost: cost, Capacity: b.capacity}
		b.mu.Unlock()
		return nil, err
	}
	if b.queue.Len() == 0 && b.used+cost <= b.capacity {
		b.used += cost
		b.mu.Unlock()
		return b.releaser(cost), nil
	}
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	w := &waiter{cost: cost, done: make(chan struct{})}
	elem := b.queue.PushBack(w)
	b.mu.Unlock()

	select {
	case <-w.done:
		if w.err != nil {
			return nil, w.err
		}
		return b.releaser(cost), nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.done:
		// Decided while the context ended: a grant is given straight back.
		if w.err == nil {
			b.used -= cost
			b.grant()
		}
	default:
		b.queue.Remove(elem)
		// The head leaving may let the next ones through.
		b.grant()
	}
	return nil, ctx.Err()
}

// TryAcquire takes cost bytes only if that needs no wait: nobody is queued
// and they are free now. It never overtakes a waiting taker.
func (b *Budget) TryAcquire(cost int64) (release func(), ok bool) {
	cost = max(cost, 0)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queue.Len() != 0 || b.used+cost > b.capacity {
		return nil, false
	}
	b.used += cost
	return b.releaser(cost), true
}

// Resize changes the allowance to capacity bytes (below zero counts as
// zero). Bytes already taken stay taken and are given back by their own
// release; while more are taken than the new size, nobody new gets in.
// Queued takers larger than the new size are refused with a *TooLargeError.
func (b *Budget) Resize(capacity int64) {
	capacity = max(capacity, 0)
	b.mu.Lock()
	defer b.mu.Unlock()
	if capacity == b.capacity {
		return
	}
	b.capacity = capacity
	for e := b.queue.Front(); e != nil; {
		next := e.Next()
		if w := e.Value.(*waiter); w.cost > capacity {
			b.queue.Remove(e)
			w.err = &TooLargeError{Cost: w.cost, Capacity: capacity}
			close(w.done)
		}
		e = next
	}
	b.grant()
}

// Status reports the allowance, the bytes taken and how many takers wait.
func (b *Budget) Status() (capacity, used int64, waiting int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.capacity, b.used, b.queue.Len()
}

// releaser gives cost back once, however often it is called.
func (b *Budget) releaser(cost int64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.used -= cost
			b.grant()
			b.mu.Unlock()
		})
	}
}

// grant lets queued takers in from the head while they fit; the first that
// does not fit holds back everyone behind it. b.mu must be held.
func (b *Budget) grant() {
	for e := b.queue.Front(); e != nil; e = b.queue.Front() {
		w := e.Value.(*waiter)
		if b.used+w.cost > b.capacity {
			return
		}
		b.used += w.cost
		b.queue.Remove(e)
		close(w.done)
	}
}
