package audit

// The store keeps the trail in the plugin KV store, shared by every node of
// a cluster: per UTC day a head (how many entries the day holds, how many
// were left out, counts by kind and outcome) and the entries in chunks of
// chunkEntries, in the order they were appended. Every node appends: a
// batch first reserves its places in the day's head with compare-and-set,
// then appends to the chunks those places fall in, again with
// compare-and-set, so two nodes appending at once both land. An index of
// the days lets the queries and the sweep read one key instead of listing
// the plugin's keys. See docs/adr/0013-the-audit-trail-in-day-buckets.md.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

const (
	// chunkEntries is how many entries one chunk holds: at maxEntryBytes
	// each, 400 KiB, well under kvstore.MaxValueBytes; a usual entry is
	// about 250 bytes, so a chunk is read in one round trip of ~50 KiB.
	chunkEntries = 200
	// maxChunkBytes is the most a stored chunk may be; a larger value is
	// not one the store wrote.
	maxChunkBytes = chunkEntries*maxEntryBytes + 1<<10
	// DayCap bounds the entries one day keeps, and so the trail's size: at
	// the cap a day is 100 chunks, about 5 MiB, and 90 days under 500 MiB
	// at worst. Beyond it an entry still goes to Mattermost's audit log and
	// the server log, and the day counts it as left out.
	DayCap = 20000
	// maxChunksRead bounds the chunks one query reads (a full day is
	// DayCap/chunkEntries = 100): beyond it the query answers what it found
	// with the time to continue from.
	maxChunksRead = 120
	// maxCounts bounds the counts by kind and outcome a head keeps: the
	// plugin has 6 kinds and 9 outcomes, far fewer pairs.
	maxCounts = 64
	// maxDays bounds the index of days: the longest retention and a margin
	// for days the sweep has not reached yet.
	maxDays = 3700

	prefixHead  = "au_h_"
	prefixChunk = "au_c_"
	daysKey     = "au_days"
	dayLayout   = "20060102"
)

// head is a day's record: Count places were reserved in its chunks,
// Dropped entries came beyond DayCap, Counts are by "kind/outcome" (left
// out ones included, so the admin's figures stay true past the cap).
type head struct {
	Count   int            `json:"n"`
	Dropped int            `json:"d,omitempty"`
	Counts  map[string]int `json:"c,omitempty"`
}

func headKey(day string) string         { return prefixHead + day }
func chunkKey(day string, n int) string { return fmt.Sprintf("%s%s_%04d", prefixChunk, day, n) }

// Day is the UTC day of t as the store names it.
func Day(t time.Time) string { return t.UTC().Format(dayLayout) }

// Store is the trail in the KV store.
type Store struct {
	KV kvstore.KV
	// known are the days this process already saw in the index, so the
	// index is written once per day and node, not per entry.
	known map[string]bool
}

// NewStore is the trail over kv.
func NewStore(kv kvstore.KV) *Store { return &Store{KV: kv, known: map[string]bool{}} }

// appended is what became of a batch: how many of its entries are stored,
// and the entries beyond the day's cap, left out.
type appended struct {
	stored  int
	dropped []Event
}

// Append stores a batch of entries of one day. Entries beyond the day's cap
// are counted and returned as left out; an error means the entries not
// counted as stored are lost here (the caller logs them).
func (s *Store) Append(day string, batch []Event) (appended, error) {
	if len(batch) == 0 {
		return appended{}, nil
	}
	if err := s.noteDay(day); err != nil {
		return appended{}, err
	}
	var start, accepted int
	err := kvstore.Update(s.KV, headKey(day), func(raw []byte) (kvstore.Change, error) {
		h := readHead(raw)
		start = h.Count
		accepted = max(0, min(len(batch), DayCap-h.Count))
		h.Count += accepted
		h.Dropped += len(batch) - accepted
		if h.Counts == nil {
			h.Counts = map[string]int{}
		}
		for _, ev := range batch {
			k := string(ev.Kind) + "/" + ev.Outcome
			if _, ok := h.Counts[k]; ok || len(h.Counts) < maxCounts {
				h.Counts[k]++
			}
		}
		next, err := json.Marshal(h)
		return kvstore.Change{Value: next}, err
	})
	if err != nil {
		return appended{}, fmt.Errorf("reserve places in the audit day %s: %w", day, err)
	}
	out := appended{dropped: batch[accepted:]}
	for i := 0; i < accepted; {
		n := (start + i) / chunkEntries
		room := (n+1)*chunkEntries - (start + i)
		part := batch[i:min(accepted, i+room)]
		if err := s.appendChunk(day, n, part); err != nil {
			return out, err
		}
		out.stored += len(part)
		i += len(part)
	}
	return out, nil
}

func (s *Store) appendChunk(day string, n int, part []Event) error {
	add := make([]stored, len(part))
	for i, ev := range part {
		add[i] = toStored(ev)
	}
	err := kvstore.Update(s.KV, chunkKey(day, n), func(raw []byte) (kvstore.Change, error) {
		var c chunk
		if raw != nil && (json.Unmarshal(raw, &c) != nil || c.V != chunkVersion) {
			// Not a chunk this store wrote: it is replaced rather than
			// left to stop every later entry of the day.
			c = chunk{}
		}
		entries := append(c.Entries, add...)
		if len(entries) > chunkEntries {
			// Places are reserved, so this is a chunk written around the
			// head (a restored backup): the newest entries are kept.
			entries = entries[len(entries)-chunkEntries:]
		}
		next, err := encodeChunk(entries)
		return kvstore.Change{Value: next}, err
	})
	if err != nil {
		return fmt.Errorf("append to the audit chunk %s/%d: %w", day, n, err)
	}
	return nil
}

// readHead decodes a head; a value that is not one reads as an empty day.
func readHead(raw []byte) head {
	var h head
	if raw != nil && json.Unmarshal(raw, &h) != nil {
		return head{}
	}
	h.Count = max(0, min(h.Count, DayCap))
	h.Dropped = max(0, h.Dropped)
	return h
}

// noteDay puts day in the index of days, once per process.
func (s *Store) noteDay(day string) error {
	if s.known[day] {
		return nil
	}
	err := kvstore.Update(s.KV, daysKey, func(raw []byte) (kvstore.Change, error) {
		days := readDays(raw)
		if slices.Contains(days, day) {
			return kvstore.Change{}, kvstore.Unchanged
		}
		days = append(days, day)
		sort.Strings(days)
		if len(days) > maxDays {
			days = days[len(days)-maxDays:]
		}
		next, err := json.Marshal(days)
		return kvstore.Change{Value: next}, err
	})
	if err != nil {
		return fmt.Errorf("note the audit day %s: %w", day, err)
	}
	if len(s.known) > 3 {
		clear(s.known) // only today and yesterday matter
	}
	s.known[day] = true
	return nil
}

// readDays decodes the index of days, keeping only well-formed days, sorted.
func readDays(raw []byte) []string {
	var days []string
	if raw == nil || json.Unmarshal(raw, &days) != nil {
		return nil
	}
	out := days[:0]
	for _, d := range days {
		if _, err := time.Parse(dayLayout, d); err == nil {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Days are the days the trail holds, oldest first.
func (s *Store) Days() ([]string, error) {
	raw, err := s.KV.Get(daysKey)
	if err != nil {
		return nil, fmt.Errorf("read the audit days: %w", err)
	}
	return readDays(raw), nil
}

// DaySummary is what a day's head says.
type DaySummary struct {
	Day string `json:"day"`
	// Stored entries of the day, and Dropped ones beyond DayCap (those went
	// only to Mattermost's audit log and the server log).
	Stored  int `json:"stored"`
	Dropped int `json:"dropped"`
	// Counts are the day's entries by kind and outcome ("write/accepted").
	Counts map[string]int `json:"counts"`
}

// Summary reads the heads of the days from..to (inclusive, UTC), one per
// day, oldest first; a day without entries has zero counts.
func (s *Store) Summary(from, to time.Time) ([]DaySummary, error) {
	var out []DaySummary
	for d := from.UTC().Truncate(24 * time.Hour); !d.After(to.UTC()); d = d.Add(24 * time.Hour) {
		day := Day(d)
		raw, err := s.KV.Get(headKey(day))
		if err != nil {
			return nil, fmt.Errorf("read the audit day %s: %w", day, err)
		}
		h := readHead(raw)
		counts := h.Counts
		if counts == nil {
			counts = map[string]int{}
		}
		out = append(out, DaySummary{Day: day, Stored: h.Count, Dropped: h.Dropped, Counts: counts})
	}
	return out, nil
}

// Sweep deletes every whole day older than retentionDays before now's day,
// and returns how many days it removed. A day is removed chunks first, then
// its head, then from the index, so a sweep cut short is finished by the
// next.
func (s *Store) Sweep(now time.Time, retentionDays int) (int, error) {
	days, err := s.Days()
	if err != nil {
		return 0, err
	}
	cutoff := Day(now.UTC().AddDate(0, 0, -retentionDays))
	var old []string
	for _, d := range days {
		if d < cutoff {
			old = append(old, d)
		}
	}
	removed := 0
	for _, day := range old {
		if err := s.deleteDay(day); err != nil {
			return removed, err
		}
		removed++
	}
	if len(old) == 0 {
		return 0, nil
	}
	err = kvstore.Update(s.KV, daysKey, func(raw []byte) (kvstore.Change, error) {
		kept := slices.DeleteFunc(readDays(raw), func(d string) bool { return slices.Contains(old, d) })
		next, err := json.Marshal(kept)
		return kvstore.Change{Value: next}, err
	})
	return removed, err
}

func (s *Store) deleteDay(day string) error {
	raw, err := s.KV.Get(headKey(day))
	if err != nil {
		return err
	}
	h := readHead(raw)
	for n := range (h.Count + chunkEntries - 1) / chunkEntries {
		if err := s.KV.Delete(chunkKey(day, n)); err != nil {
			return fmt.Errorf("delete the audit chunk %s/%d: %w", day, n, err)
		}
	}
	if err := s.KV.Delete(headKey(day)); err != nil {
		return fmt.Errorf("delete the audit day %s: %w", day, err)
	}
	return nil
}

// errBadFilter wraps what a query refuses.
var errBadFilter = errors.New("bad filter")
