package kvstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// List is a JSON list of T kept under one key and changed in place by the
// nodes of a cluster at once: a person's connected clients, made tokens and
// sessions, the plugin's nodes, a session's mailbox.
type List[T any] struct {
	KV  KV
	Key string
	// TTL is how long the list lives after each change; 0 keeps it until
	// it is changed.
	TTL time.Duration
	// MaxBytes bounds the stored list below MaxValueBytes; 0 leaves only
	// MaxValueBytes.
	MaxBytes int
}

// Update changes the list atomically, as Update does a value. change gets
// the list as stored, empty when it is absent or unreadable (a corrupt
// list starts again: each of these lists is rebuilt by the writes that
// follow), and returns the list to store or an error that ends the update
// with nothing written. An empty list removes the key, and the list as it
// was writes nothing. change may run several times, as Update's does.
func (l List[T]) Update(change func([]T) ([]T, error)) error {
	return Update(l.KV, l.Key, func(old []byte) (Change, error) {
		var list []T
		if len(old) > 0 && json.Unmarshal(old, &list) != nil {
			list = nil
		}
		list, err := change(list)
		if err != nil {
			return Change{}, err
		}
		if len(list) == 0 {
			return Change{}, nil
		}
		raw, err := json.Marshal(list)
		if err != nil {
			return Change{}, err
		}
		if l.MaxBytes > 0 && len(raw) > l.MaxBytes {
			return Change{}, fmt.Errorf("the list %s would take %d bytes: %w (%d)", kind(l.Key), len(raw), ErrTooLarge, l.MaxBytes)
		}
		if bytes.Equal(raw, old) {
			return Change{}, Unchanged
		}
		return Change{Value: raw, TTL: l.TTL}, nil
	})
}
