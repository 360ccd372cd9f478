package audit

// The index of a day's people: for each person, the numbers of the chunks
// that hold their entries, spread over peopleShards keys by person, so that
// a query for one person (/mine, or the admin's by user) reads one shard
// and those chunks instead of the whole day.

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// peopleShard is one stored shard: each person's chunk numbers, ascending.
type peopleShard struct {
	V     int              `json:"v"`
	Users map[string][]int `json:"u"`
}

const peopleVersion = 1

func personShard(userID string) int {
	h := fnv.New32a()
	h.Write([]byte(userID))
	return int(h.Sum32() % peopleShards)
}

// readPeople decodes a shard; a value that is not one reads as empty, and
// a person's chunk numbers are kept only where a day has chunks.
func readPeople(raw []byte) peopleShard {
	var p peopleShard
	if raw != nil && (json.Unmarshal(raw, &p) != nil || p.V != peopleVersion) {
		p = peopleShard{}
	}
	p.V = peopleVersion
	if p.Users == nil {
		p.Users = map[string][]int{}
	}
	for user, chunks := range p.Users {
		p.Users[user] = slices.DeleteFunc(chunks, func(n int) bool { return n < 0 || n >= DayCap/chunkEntries })
	}
	return p
}

// index notes in the day's index of people the chunks that the entries
// placed from start on fall in, for each person; a person and chunk this
// process already noted is not written again.
func (s *Store) index(day string, memo *dayMemo, start int, placed []Event) error {
	add := map[int]map[string][]int{} // shard -> person -> chunks
	for i, ev := range placed {
		n := (start + i) / chunkEntries
		k := fmt.Sprintf("%s/%d", ev.UserID, n)
		if memo.indexed[k] {
			continue
		}
		memo.indexed[k] = true
		sh := personShard(ev.UserID)
		if add[sh] == nil {
			add[sh] = map[string][]int{}
		}
		add[sh][ev.UserID] = append(add[sh][ev.UserID], n)
	}
	shards := make([]int, 0, len(add))
	for sh := range add {
		shards = append(shards, sh)
	}
	slices.Sort(shards)
	for _, sh := range shards {
		err := kvstore.Update(s.KV, peopleKey(day, sh), func(raw []byte) (kvstore.Change, error) {
			p := readPeople(raw)
			changed := false
			for user, chunks := range add[sh] {
				for _, n := range chunks {
					if !slices.Contains(p.Users[user], n) {
						p.Users[user] = append(p.Users[user], n)
						changed = true
					}
				}
				slices.Sort(p.Users[user])
			}
			if !changed {
				return kvstore.Change{}, kvstore.Unchanged
			}
			next, err := json.Marshal(p)
			return kvstore.Change{Value: next}, err
		})
		if err != nil {
			// Noted again by the next entry of these people and chunks.
			for user, chunks := range add[sh] {
				for _, n := range chunks {
					delete(memo.indexed, fmt.Sprintf("%s/%d", user, n))
				}
			}
			return fmt.Errorf("index the audit day %s by person: %w", day, err)
		}
	}
	return nil
}

// chunksOf are the numbers of the chunks of a day that may hold userID's
// entries, newest first: those the index names, and every chunk begun
// before the day had an index.
func (s *Store) chunksOf(day, userID string, h head) ([]int, error) {
	chunks := (h.Count + chunkEntries - 1) / chunkEntries
	if h.Indexed == nil {
		return descending(0, chunks), nil
	}
	before := (*h.Indexed + chunkEntries - 1) / chunkEntries
	out := descending(0, before)
	raw, err := s.KV.Get(peopleKey(day, personShard(userID)))
	if err != nil {
		return nil, fmt.Errorf("read the audit day %s's people: %w", day, err)
	}
	for _, n := range readPeople(raw).Users[userID] {
		if n >= before && n < chunks {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return slices.Compact(out), nil
}

// descending is hi-1 down to lo.
func descending(lo, hi int) []int {
	out := make([]int, 0, max(0, hi-lo))
	for n := hi - 1; n >= lo; n-- {
		out = append(out, n)
	}
	return out
}
