package audit

// The store keeps the trail in the plugin KV store, shared by every node of
// a cluster: per UTC day a head (how many entries the day holds, how many
// were left out, counts by kind and outcome) and the entries in chunks of
// chunkEntries, in the order they were appended. Every node appends: a
// batch first reserves its places in the day's head with compare-and-set,
// then appends to the chunks those places fall in, again with
// compare-and-set, so two nodes appending at once both land. An index of
// the days lets the queries and the sweep read one key instead of listing
// the plugin's keys; an index of each day's people (which chunks hold each
// person's entries) lets a query for one person read only those chunks.
// One person adds at most PersonShare entries to a day, so nobody fills
// everyone's day. See docs/adr/0013-the-audit-trail-in-day-buckets.md.

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
	// PersonShare bounds the entries one person adds to a day: a person's
	// busiest day by hand (a write is two or three entries and waits for
	// their answer) is far under it, and it takes 20 people at their share
	// to fill the day. Beyond it their entries are counted, per person, as
	// left out and go only to Mattermost's audit log and the server log.
	PersonShare = DayCap / 20
	// shareWatch is how many of a person's entries of a day a node stores
	// before it counts that person in the day's head: most people never
	// reach it, so the head stays small (a counted person has at least this
	// many entries, so at most DayCap/shareWatch are counted), and a person
	// passes their share by at most this many on each other node.
	shareWatch = 50
	// maxHeadPeople bounds the people a head counts, against a head written
	// by something else than this store: twice what DayCap/shareWatch allows.
	maxHeadPeople = 2 * DayCap / shareWatch
	// peopleShards spreads a day's index of people over keys, by person: at
	// the cap, 20,000 people with one entry each, a shard is about 70 KiB.
	peopleShards = 16
	// maxChunksRead bounds the chunks one query reads (a full day is
	// DayCap/chunkEntries = 100): beyond it the query answers what it found
	// with the time to continue from.
	maxChunksRead = 120
	// maxDaysRead bounds the days one query reads, so that a query for a
	// person with nothing in them (a few keys a day) stays small too: a
	// month, as far as the admin's page looks back.
	maxDaysRead = 31
	// maxCounts bounds the counts by kind and outcome a head keeps: the
	// plugin has 6 kinds and 9 outcomes, far fewer pairs.
	maxCounts = 64
	// maxDays bounds the index of days: the longest retention and a margin
	// for days the sweep has not reached yet.
	maxDays = 3700

	prefixHead   = "au_h_"
	prefixChunk  = "au_c_"
	prefixPeople = "au_p_"
	daysKey      = "au_days"
	dayLayout    = "20060102"
)

// head is a day's record: Count places were reserved in its chunks,
// Dropped entries were left out (beyond DayCap or a person's share), Counts
// are by "kind/outcome" (left out and repeated ones included, so the
// admin's figures stay true past the cap). People counts the stored entries
// of the people a node saw reach shareWatch, Cut the entries of each person
// left out past their share, Repeated the connections counted but not
// stored (Trail: once a minute per person and client). Indexed is the
// place from which the day's index of people holds every entry: nil for a
// day begun before there was one, whose chunks are read whole.
type head struct {
	Count    int            `json:"n"`
	Dropped  int            `json:"d,omitempty"`
	Counts   map[string]int `json:"c,omitempty"`
	People   map[string]int `json:"p,omitempty"`
	Cut      map[string]int `json:"x,omitempty"`
	Repeated int            `json:"r,omitempty"`
	Indexed  *int           `json:"i,omitempty"`
}

func headKey(day string) string         { return prefixHead + day }
func chunkKey(day string, n int) string { return fmt.Sprintf("%s%s_%04d", prefixChunk, day, n) }
func peopleKey(day string, shard int) string {
	return fmt.Sprintf("%s%s_%02d", prefixPeople, day, shard)
}

// Day is the UTC day of t as the store names it.
func Day(t time.Time) string { return t.UTC().Format(dayLayout) }

// Store is the trail in the KV store. Append is called by one writer at a
// time (the Trail's); queries may run beside it.
type Store struct {
	KV kvstore.KV
	// known are the days this process already saw in the index, so the
	// index is written once per day and node, not per entry.
	known map[string]bool
	// memos are what this process appended on its last days (see dayMemo).
	memos map[string]*dayMemo
}

// dayMemo is what this process appended on one day: each person's stored
// entries (for their share, until the head counts them) and the chunks it
// already put in the index of people, so the index is written once per
// person and chunk, not per entry.
type dayMemo struct {
	stored  map[string]int
	indexed map[string]bool
}

// NewStore is the trail over kv.
func NewStore(kv kvstore.KV) *Store {
	return &Store{KV: kv, known: map[string]bool{}, memos: map[string]*dayMemo{}}
}

func (s *Store) memo(day string) *dayMemo {
	if m := s.memos[day]; m != nil {
		return m
	}
	if len(s.memos) >= 2 {
		clear(s.memos) // only today and yesterday are appended to
	}
	m := &dayMemo{stored: map[string]int{}, indexed: map[string]bool{}}
	s.memos[day] = m
	return m
}

// appended is what became of a batch: of the entries given places
// (placed), how many are stored; the entries beyond the day's cap
// (dropped) and those of a person past their share (cut), left out.
type appended struct {
	placed  []Event
	stored  int
	dropped []Event
	cut     []Event
}

// Append stores a batch of entries of one day. Entries beyond the day's cap
// or their person's share are counted and returned as left out; an error
// means the placed entries not counted as stored are lost here (the caller
// logs them).
func (s *Store) Append(day string, batch []Event) (appended, error) {
	return s.appendCounting(day, batch, 0)
}

// appendCounting is Append that also counts repeated connections of the
// day, counted but not stored (Trail), in the same write of the head.
func (s *Store) appendCounting(day string, batch []Event, repeated int) (appended, error) {
	if len(batch) == 0 && repeated == 0 {
		return appended{}, nil
	}
	if err := s.noteDay(day); err != nil {
		return appended{placed: batch}, err
	}
	memo := s.memo(day)
	inBatch := map[string]int{}
	for _, ev := range batch {
		inBatch[ev.UserID]++
	}
	var start int
	var out appended
	err := kvstore.Update(s.KV, headKey(day), func(raw []byte) (kvstore.Change, error) {
		h := readHead(raw)
		out = appended{}
		start = h.Count
		if h.Indexed == nil {
			h.Indexed = &start
		}
		for user, n := range inBatch {
			if _, ok := h.People[user]; !ok && memo.stored[user]+n >= shareWatch && len(h.People) < maxHeadPeople {
				h.People[user] = memo.stored[user]
			}
		}
		for _, ev := range batch {
			counted, ok := h.People[ev.UserID]
			switch {
			case ok && counted >= PersonShare:
				out.cut = append(out.cut, ev)
				if _, known := h.Cut[ev.UserID]; known || len(h.Cut) < maxHeadPeople {
					h.Cut[ev.UserID]++
				}
			case h.Count >= DayCap:
				out.dropped = append(out.dropped, ev)
			default:
				out.placed = append(out.placed, ev)
				h.Count++
				if ok {
					h.People[ev.UserID]++
				}
			}
		}
		h.Dropped += len(out.cut) + len(out.dropped)
		for _, ev := range batch {
			h.count(string(ev.Kind)+"/"+ev.Outcome, 1)
		}
		h.Repeated += repeated
		h.count(string(KindConnection)+"/"+OutcomeDone, repeated)
		next, err := json.Marshal(h)
		return kvstore.Change{Value: next}, err
	})
	if err != nil {
		return appended{placed: batch}, fmt.Errorf("reserve places in the audit day %s: %w", day, err)
	}
	for _, ev := range out.placed {
		memo.stored[ev.UserID]++
	}
	// The index first: an entry it names that never reaches its chunk
	// costs a read; an entry it misses would be lost to its person.
	if err := s.index(day, memo, start, out.placed); err != nil {
		return out, err
	}
	for i := 0; i < len(out.placed); {
		n := (start + i) / chunkEntries
		room := (n+1)*chunkEntries - (start + i)
		part := out.placed[i:min(len(out.placed), i+room)]
		if err := s.appendChunk(day, n, part); err != nil {
			return out, err
		}
		out.stored += len(part)
		i += len(part)
	}
	return out, nil
}

// count adds n to the count of key, within maxCounts keys.
func (h *head) count(key string, n int) {
	if n == 0 {
		return
	}
	if _, ok := h.Counts[key]; ok || len(h.Counts) < maxCounts {
		h.Counts[key] += n
	}
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
// Its maps are never nil.
func readHead(raw []byte) head {
	var h head
	if raw != nil && json.Unmarshal(raw, &h) != nil {
		h = head{}
	}
	h.Count = max(0, min(h.Count, DayCap))
	h.Dropped = max(0, h.Dropped)
	h.Repeated = max(0, h.Repeated)
	if h.Indexed != nil {
		i := max(0, min(*h.Indexed, h.Count))
		h.Indexed = &i
	}
	for _, m := range []*map[string]int{&h.Counts, &h.People, &h.Cut} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
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
	// Stored entries of the day, and Dropped ones left out beyond DayCap or
	// a person's share (those went only to Mattermost's audit log and the
	// server log).
	Stored  int `json:"stored"`
	Dropped int `json:"dropped"`
	// Cut are the entries left out past a person's share, by person.
	Cut map[string]int `json:"cut,omitempty"`
	// Repeated are the connections counted but not stored: a person's
	// client connecting again within a minute.
	Repeated int `json:"repeated,omitempty"`
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
		var cut map[string]int
		if len(h.Cut) > 0 {
			cut = h.Cut
		}
		out = append(out, DaySummary{Day: day, Stored: h.Count, Dropped: h.Dropped, Counts: h.Counts, Cut: cut, Repeated: h.Repeated})
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
	for sh := range peopleShards {
		if err := s.KV.Delete(peopleKey(day, sh)); err != nil {
			return fmt.Errorf("delete the audit day %s's people: %w", day, err)
		}
	}
	if err := s.KV.Delete(headKey(day)); err != nil {
		return fmt.Errorf("delete the audit day %s: %w", day, err)
	}
	return nil
}

// errBadFilter wraps what a query refuses.
var errBadFilter = errors.New("bad filter")
