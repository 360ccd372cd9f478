package audit

// The index of a day's people: for each person, the numbers of the chunks
// that hold their entries, spread over peopleShards keys by person, so that
// a query for one person (/mine, or the admin's by user) reads one shard
// and those chunks instead of the whole day.

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// peopleShard is one stored shard: each person's chunks, as a chunkSet.
type peopleShard struct {
	V     int               `json:"v"`
	Users map[string]string `json:"u"`
}

const peopleVersion = 2

func personShard(userID string) int {
	h := fnv.New32a()
	h.Write([]byte(userID))
	return int(h.Sum32() % peopleShards)
}

// chunkSet is the chunks of a day that hold a person's entries, a bit a
// chunk, stored as hex: 26 characters for any number of chunks, decoded
// as one string rather than a list of numbers.
type chunkSet [(DayCap/chunkEntries + 7) / 8]byte

// parseChunkSet reads a stored set; what is not one reads as empty.
func parseChunkSet(s string) chunkSet {
	var c chunkSet
	if b, err := hex.DecodeString(s); err == nil && len(b) == len(c) {
		copy(c[:], b)
	}
	return c
}

func (c chunkSet) String() string { return hex.EncodeToString(c[:]) }

// add puts chunk n in the set and says whether it was not there.
func (c *chunkSet) add(n int) bool {
	if n < 0 || n >= DayCap/chunkEntries || c[n/8]&(1<<(n%8)) != 0 {
		return false
	}
	c[n/8] |= 1 << (n % 8)
	return true
}

func (c chunkSet) has(n int) bool {
	return n >= 0 && n < DayCap/chunkEntries && c[n/8]&(1<<(n%8)) != 0
}

// readPeople decodes a shard; a value that is not one reads as empty.
func readPeople(raw []byte) peopleShard {
	var p peopleShard
	if raw != nil && (json.Unmarshal(raw, &p) != nil || p.V != peopleVersion) {
		p = peopleShard{}
	}
	p.V = peopleVersion
	if p.Users == nil {
		p.Users = map[string]string{}
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
				set := parseChunkSet(p.Users[user])
				for _, n := range chunks {
					changed = set.add(n) || changed
				}
				p.Users[user] = set.String()
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
	if chunks == 0 {
		return nil, nil
	}
	if h.Indexed == nil {
		return descending(0, chunks), nil
	}
	before := (*h.Indexed + chunkEntries - 1) / chunkEntries
	var out []int
	raw, err := s.KV.Get(peopleKey(day, personShard(userID)))
	if err != nil {
		return nil, fmt.Errorf("read the audit day %s's people: %w", day, err)
	}
	set := parseChunkSet(readPeople(raw).Users[userID])
	for n := chunks - 1; n >= before; n-- {
		if set.has(n) {
			out = append(out, n)
		}
	}
	// Newest first: the index's chunks, then those begun before it.
	return append(out, descending(0, before)...), nil
}

// descending is hi-1 down to lo.
func descending(lo, hi int) []int {
	out := make([]int, 0, max(0, hi-lo))
	for n := hi - 1; n >= lo; n-- {
		out = append(out, n)
	}
	return out
}
