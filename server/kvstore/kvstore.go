// Package kvstore is the plugin KV store as every package of the plugin
// uses it: one interface over raw bytes with the atomic operations, and one
// way to change a record in place that several nodes write at once (read,
// change, compare-and-set, again while another writer won in between).
// mattermost.BytesKV implements the interface; kvtest holds a fake for tests.
package kvstore

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"
)

// KV is the plugin KV store as raw bytes. Of two writers racing on one key
// with compare-and-set or compare-and-delete, exactly one gets true.
type KV interface {
	// Get returns a value, or nil when the key is missing or expired.
	Get(key string) ([]byte, error)
	// Set writes a value that expires after ttl (never when ttl is 0).
	Set(key string, value []byte, ttl time.Duration) error
	// SetIfAbsent writes a value only when the key does not exist.
	SetIfAbsent(key string, value []byte, ttl time.Duration) (bool, error)
	// CompareAndSet replaces old with value only if the stored value is
	// still old (nil old: only if absent; nil value removes the key).
	CompareAndSet(key string, old, value []byte, ttl time.Duration) (bool, error)
	// CompareAndDelete removes the key only if it still holds old.
	CompareAndDelete(key string, old []byte) (bool, error)
	// Delete removes a key; a missing key is not an error.
	Delete(key string) error
	// ListKeys returns one page of the keys that start with prefix, and
	// whether more pages follow.
	ListKeys(prefix string, page, perPage int) (keys []string, more bool, err error)
}

const (
	// Attempts bounds the tries of one Update. The records updated in place
	// are written by the nodes of a cluster (a handful), each write a few
	// milliseconds: a writer that loses 32 times in a row, waiting up to
	// MaxBackoff at random between tries (about half a second in all), is
	// in a storm that more tries would only feed, so the caller is told to
	// try again instead.
	Attempts = 32
	// backoffStep is how much the longest wait grows with each lost try, so
	// that the first retries come at once and a storm spreads out.
	backoffStep = 2 * time.Millisecond
	// MaxBackoff bounds the wait before one retry: a few database round
	// trips, short enough that a request waiting on it stays quick.
	MaxBackoff = 50 * time.Millisecond
	// MaxValueBytes bounds a value Update stores: records changed in place
	// are indexes and small lists, the largest (the list of open direct
	// messages at its bound) about 650 KiB; 1 MiB is also the chunk the
	// workspace stores files in, well under any database's row limit.
	MaxValueBytes = 1 << 20
)

var (
	// ErrContended is returned when every one of Attempts tries lost to
	// another writer.
	ErrContended = errors.New("kept changing")
	// ErrTooLarge is returned for a value over MaxValueBytes; nothing was
	// written.
	ErrTooLarge = errors.New("larger than a KV value may be")
	// Unchanged, returned by a change, ends the update with nothing written
	// and no error (as fs.SkipDir ends a walk).
	Unchanged = errors.New("unchanged")
)

// Change is what an update stores in place of the value it read.
type Change struct {
	// Value is the new value; nil removes the key.
	Value []byte
	// TTL is how long the value lives; 0 keeps it until it is changed.
	TTL time.Duration
}

// Update changes the value of key atomically against every other writer:
// change gets the value as stored (nil when absent) and says what to store;
// when another writer changed the key in between, change runs again on the
// new value after a short random wait, at most Attempts times. An error
// from change ends the update as it is, with nothing written (Unchanged
// ends it without an error). change may
// run several times, so it must not have effects beyond what it returns
// (a caller keeps what the stored change decided in a variable the last
// run sets).
func Update(kv KV, key string, change func(old []byte) (Change, error)) error {
	for attempt := range Attempts {
		if attempt > 0 {
			time.Sleep(Backoff(attempt))
		}
		old, err := kv.Get(key)
		if err != nil {
			return err
		}
		next, err := change(old)
		if errors.Is(err, Unchanged) {
			return nil
		}
		if err != nil {
			return err
		}
		if next.Value == nil && old == nil {
			return nil // nothing stored, nothing to store
		}
		if len(next.Value) > MaxValueBytes {
			return fmt.Errorf("update KV %s: %d bytes: %w (%d)", kind(key), len(next.Value), ErrTooLarge, MaxValueBytes)
		}
		var ok bool
		if next.Value == nil {
			ok, err = kv.CompareAndDelete(key, old)
		} else {
			ok, err = kv.CompareAndSet(key, old, next.Value, next.TTL)
		}
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("KV record %s %w: %d tries lost to other writers; try again", kind(key), ErrContended, Attempts)
}

// Backoff is the wait before retry number attempt: random, growing by
// backoffStep per lost try, at most MaxBackoff.
func Backoff(attempt int) time.Duration {
	limit := min(time.Duration(attempt)*backoffStep, MaxBackoff)
	return time.Duration(mrand.Int64N(int64(limit) + 1))
}

// kind names a key in errors without its secret part (tokens and ids are
// keys): the prefix up to its first underscore.
func kind(key string) string {
	if i := strings.IndexByte(key, '_'); i > 0 {
		return key[:i+1] + "…"
	}
	return "key"
}
