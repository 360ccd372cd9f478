// Package secret holds the random keys a cluster signs with: each is made
// once, kept in the plugin KV store, and read by every node, so a value
// signed on one node verifies on all of them.
package secret

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// Size is the length of every key: 256 bits for HMAC-SHA256.
const Size = 32

// Shared is one cluster-wide key, read once per process.
type Shared struct {
	KV kvstore.KV
	// Name is the key's KV key.
	Name string

	mu    sync.Mutex
	value []byte
}

// Bytes returns the key, making it first if no node has: of two nodes
// making it at once, the first to store wins and both use what is stored.
func (s *Shared) Bytes() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.value != nil {
		return s.value, nil
	}
	fresh := make([]byte, Size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("random: %w", err)
	}
	if _, err := s.KV.SetIfAbsent(s.Name, fresh, 0); err != nil {
		return nil, err
	}
	stored, err := s.KV.Get(s.Name)
	if err != nil {
		return nil, err
	}
	if len(stored) != Size {
		return nil, errors.New("the signing key " + s.Name + " in the KV store is malformed")
	}
	s.value = stored
	return stored, nil
}
