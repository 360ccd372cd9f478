package workspace

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// The retention sweep and the registry of workspaces it walks: no listing
// of every key of the plugin, only the workspaces that have files.

// Sweep deletes every file written Retention or more before now, in every
// workspace of the registry, and reports how many it removed. One
// cluster-wide job calls it; it is safe to run on two nodes at once (index
// updates are atomic and a deleted chunk stays deleted). A workspace left
// without files leaves the registry once its registration is older than
// registryGrace.
func (s *Store) Sweep(now time.Time) (removed int, err error) {
	var errs []error
	for shard := range registryShards {
		spaces, _, err := s.registry(shard)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var gone []string
		for space, registered := range spaces {
			n, empty, err := s.sweepSpace(space, now)
			removed += n
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if empty && now.Sub(time.Unix(registered, 0)) > registryGrace {
				gone = append(gone, space)
			}
		}
		if len(gone) > 0 {
			errs = append(errs, s.unregister(shard, gone, now))
		}
	}
	return removed, errors.Join(errs...)
}

// sweepSpace removes a workspace's expired files and reports whether it has
// no index left.
func (s *Store) sweepSpace(space string, now time.Time) (removed int, empty bool, err error) {
	var expired []File
	err = s.update(space, func(idx *index) error {
		expired = expired[:0]
		for name, f := range idx.Files {
			if Expired(f, now) {
				expired = append(expired, f)
				delete(idx.Files, name)
			}
		}
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	for _, f := range expired {
		s.deleteBlob(f.Blob, f.Chunks)
	}
	_, raw, err := s.load(space)
	return len(expired), raw == nil, err
}

// registryShard is the shard a workspace is registered in: its id is a
// hash, so its first byte spreads evenly.
func registryShard(space string) int {
	if len(space) < 2 {
		return 0
	}
	b, err := hex.DecodeString(space[:2])
	if err != nil {
		return 0
	}
	return int(b[0]) % registryShards
}

func registryKey(shard int) string { return prefixRegistry + strconv.Itoa(shard) }

// registry is one shard: workspace id to when it was last registered (Unix
// seconds), and its raw value.
func (s *Store) registry(shard int) (map[string]int64, []byte, error) {
	raw, err := s.kv.Get(registryKey(shard))
	if err != nil {
		return nil, nil, err
	}
	spaces, err := parseRegistry(raw)
	return spaces, raw, err
}

// parseRegistry reads a stored shard (nil: an empty one).
func parseRegistry(raw []byte) (map[string]int64, error) {
	spaces := map[string]int64{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &spaces); err != nil {
			return nil, fmt.Errorf("the registry of workspaces is corrupt: %w", err)
		}
	}
	return spaces, nil
}

// updateRegistry applies change to one shard atomically; change reports
// whether there is anything to write. An empty shard is removed.
func (s *Store) updateRegistry(shard int, change func(spaces map[string]int64) (bool, error)) error {
	err := kvstore.Update(s.kv, registryKey(shard), func(raw []byte) (kvstore.Change, error) {
		spaces, err := parseRegistry(raw)
		if err != nil {
			return kvstore.Change{}, err
		}
		write, err := change(spaces)
		if err != nil {
			return kvstore.Change{}, err
		}
		if !write {
			return kvstore.Change{}, kvstore.Unchanged
		}
		if len(spaces) == 0 {
			return kvstore.Change{}, nil
		}
		next, err := json.Marshal(spaces)
		return kvstore.Change{Value: next, TTL: registryLifetime}, err
	})
	if errors.Is(err, kvstore.ErrContended) {
		return fmt.Errorf("the registry of workspaces: %w", err)
	}
	return err
}

// register records that a workspace has files, or is about to.
func (s *Store) register(space string) error {
	now := s.Now()
	return s.updateRegistry(registryShard(space), func(spaces map[string]int64) (bool, error) {
		at, known := spaces[space]
		if known && now.Sub(time.Unix(at, 0)) < registryGrace/2 {
			return false, nil
		}
		if !known && len(spaces) >= registryShardCap {
			return false, ErrRegistryFull
		}
		spaces[space] = now.Unix()
		return true, nil
	})
}

// unregister removes workspaces that had no index when the sweep looked,
// unless a write registered one again since.
func (s *Store) unregister(shard int, gone []string, now time.Time) error {
	return s.updateRegistry(shard, func(spaces map[string]int64) (bool, error) {
		changed := false
		for _, space := range gone {
			if at, ok := spaces[space]; ok && now.Sub(time.Unix(at, 0)) > registryGrace {
				delete(spaces, space)
				changed = true
			}
		}
		return changed, nil
	})
}

// Expired is the sweep's rule: a file goes once Retention has passed since
// it was written, whatever used it since.
func Expired(f File, now time.Time) bool { return !now.Before(f.ExpiresAt()) }
