// Package kvtest is an in-memory plugin KV store for tests, shared by every
// "node" of a test as the plugin KV store is shared by the nodes of a
// cluster.
package kvtest

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"time"
)

// Store holds values as Mattermost's KV store does: a nil value removes its
// key, compare-and-set with a nil old value sets only an absent key, and
// values are copied in and out. Expiry is not modelled: tests move their
// own clocks.
type Store struct {
	// BeforeWrite, when set, runs before every compare-and-set and
	// compare-and-delete, outside the store's lock: a test writes there as
	// another node would between a read and a write.
	BeforeWrite func(key string)

	mu sync.Mutex
	m  map[string][]byte
}

// New is an empty store.
func New() *Store { return &Store{m: map[string][]byte{}} }

func (s *Store) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clone(s.m[key]), nil
}

func (s *Store) Set(key string, value []byte, _ time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(key, value)
	return nil
}

func (s *Store) SetIfAbsent(key string, value []byte, _ time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok {
		return false, nil
	}
	s.put(key, value)
	return true, nil
}

func (s *Store) CompareAndSet(key string, old, value []byte, _ time.Duration) (bool, error) {
	if s.BeforeWrite != nil {
		s.BeforeWrite(key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.m[key]; ok != (old != nil) || !bytes.Equal(cur, old) {
		return false, nil
	}
	s.put(key, value)
	return true, nil
}

func (s *Store) CompareAndDelete(key string, old []byte) (bool, error) {
	if s.BeforeWrite != nil {
		s.BeforeWrite(key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.m[key]; !ok || !bytes.Equal(cur, old) {
		return false, nil
	}
	delete(s.m, key)
	return true, nil
}

func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// ListKeys pages through the keys with prefix in sorted order.
func (s *Store) ListKeys(prefix string, page, perPage int) ([]string, bool, error) {
	keys := s.Keys(prefix)
	start := min(page*perPage, len(keys))
	end := min(start+perPage, len(keys))
	return keys[start:end], end < len(keys), nil
}

// Keys is every key that starts with prefix, sorted.
func (s *Store) Keys(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func (s *Store) put(key string, value []byte) {
	if value == nil {
		delete(s.m, key)
		return
	}
	s.m[key] = clone(value)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
