package mattermost

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/pluginapi"
	"github.com/mattermost/mattermost/server/public/pluginapi/cluster"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// kvBackend is what both pluginapi's KV service and its in-memory test store
// offer; BytesKV works over either.
type kvBackend interface {
	Set(key string, value any, options ...pluginapi.KVSetOption) (bool, error)
	Get(key string, out any) error
	Delete(key string) error
	ListKeys(page, count int, options ...pluginapi.ListKeysOption) ([]string, error)
}

// BytesKV is the plugin KV store as raw bytes with the atomic operations
// (set-if-absent, compare-and-set, compare-and-delete): the kvstore.KV
// every package uses.
type BytesKV struct{ kv kvBackend }

var _ kvstore.KV = BytesKV{}

// NewBytesKV wraps a KV backend; tests pass a *pluginapi.MemoryStore.
func NewBytesKV(kv kvBackend) BytesKV { return BytesKV{kv: kv} }

// BytesKV is the plugin KV store for raw values.
func (g *Gateway) BytesKV() BytesKV { return BytesKV{kv: &g.api.KV} }

func expiry(ttl time.Duration) []pluginapi.KVSetOption {
	if ttl <= 0 {
		return nil
	}
	return []pluginapi.KVSetOption{pluginapi.SetExpiry(ttl)}
}

// Get returns a value, or nil when the key is missing or expired.
func (k BytesKV) Get(key string) ([]byte, error) {
	var out []byte
	if err := k.kv.Get(key, &out); err != nil {
		return nil, fmt.Errorf("read KV %s: %w", keyKind(key), err)
	}
	return out, nil
}

// Set writes a value that expires after ttl (never when ttl is 0).
func (k BytesKV) Set(key string, value []byte, ttl time.Duration) error {
	if _, err := k.kv.Set(key, value, expiry(ttl)...); err != nil {
		return fmt.Errorf("write KV %s: %w", keyKind(key), err)
	}
	return nil
}

// SetIfAbsent writes a value only when the key does not exist.
func (k BytesKV) SetIfAbsent(key string, value []byte, ttl time.Duration) (bool, error) {
	ok, err := k.kv.Set(key, value, append(expiry(ttl), pluginapi.SetAtomic(nil))...)
	if err != nil {
		return false, fmt.Errorf("write KV %s: %w", keyKind(key), err)
	}
	return ok, nil
}

// CompareAndSet replaces old with value, only if the stored value is still
// old (nil old: only if absent).
func (k BytesKV) CompareAndSet(key string, old, value []byte, ttl time.Duration) (bool, error) {
	ok, err := k.kv.Set(key, value, append(expiry(ttl), pluginapi.SetAtomic(old))...)
	if err != nil {
		return false, fmt.Errorf("write KV %s: %w", keyKind(key), err)
	}
	return ok, nil
}

// CompareAndDelete removes the key only if it still holds old: of two
// callers racing, exactly one gets true.
func (k BytesKV) CompareAndDelete(key string, old []byte) (bool, error) {
	ok, err := k.kv.Set(key, nil, pluginapi.SetAtomic(old))
	if err != nil {
		return false, fmt.Errorf("delete KV %s: %w", keyKind(key), err)
	}
	return ok, nil
}

// Delete removes a key; a missing key is not an error.
func (k BytesKV) Delete(key string) error {
	if err := k.kv.Delete(key); err != nil {
		return fmt.Errorf("delete KV %s: %w", keyKind(key), err)
	}
	return nil
}

// ListKeys returns one page of all the plugin's keys that start with
// prefix, and whether more pages follow. The plugin API lists every key of
// the plugin, so the filter is applied here page by page, and its cost grows
// with everything every person stored: nothing the plugin serves or runs on
// a schedule calls it. Collections are read through their own indexes (a
// person's sessions and pending writes, the registry of workspaces); tests
// use it to see what is stored.
func (k BytesKV) ListKeys(prefix string, page, perPage int) ([]string, bool, error) {
	keys, err := k.kv.ListKeys(page, perPage)
	if err != nil {
		return nil, false, fmt.Errorf("list KV keys: %w", err)
	}
	var out []string
	for _, key := range keys {
		if strings.HasPrefix(key, prefix) {
			out = append(out, key)
		}
	}
	return out, len(keys) == perPage, nil
}

// keyKind names a key in errors without its secret part (tokens are keys).
func keyKind(key string) string {
	if i := strings.IndexByte(key, '_'); i > 0 {
		if j := strings.IndexByte(key[i+1:], '_'); j > 0 {
			return key[:i+1+j+1] + "…"
		}
	}
	return "key"
}

// Schedule runs fn on one node of the cluster at a time, every interval,
// using pluginapi's cluster job (its last run is kept in the KV store under
// "cron_"+name, so a restarted or other node does not run it early).
func (g *Gateway) Schedule(name string, interval time.Duration, fn func()) (io.Closer, error) {
	job, err := cluster.Schedule(g.raw, name, cluster.MakeWaitForInterval(interval), fn)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %w", name, err)
	}
	return job, nil
}
