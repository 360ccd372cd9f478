package audit

import (
	"fmt"
	"sort"
	"time"
)

const (
	// DefaultPerPage and MaxPerPage bound one page of entries: a page at the
	// cap is about 100 KiB of JSON.
	DefaultPerPage = 50
	MaxPerPage     = 200
	// MaxPage bounds how far a query pages: past it, narrow the time range
	// with until (each page skips the ones before it, which are read again).
	MaxPage = 1000
)

// Filter selects entries; empty fields select everything. Since is
// inclusive and Until exclusive.
type Filter struct {
	UserID  string
	Tool    string
	Outcome string
	Kind    Kind
	Since   time.Time
	Until   time.Time
	Page    int
	PerPage int
}

// matches is whether f selects an entry as stored (compared before it is
// decoded further: a query reads whole days and keeps a few entries).
func (f Filter) matches(s stored) bool {
	switch {
	case f.UserID != "" && s.UserID != f.UserID,
		f.Tool != "" && s.Tool != f.Tool,
		f.Outcome != "" && s.Outcome != f.Outcome,
		f.Kind != "" && s.Kind != f.Kind,
		!f.Since.IsZero() && s.At < f.Since.UnixMilli(),
		!f.Until.IsZero() && s.At >= f.Until.UnixMilli():
		return false
	}
	return true
}

// Page is one page of entries, newest first.
type Page struct {
	Entries []Event `json:"entries"`
	Page    int     `json:"page"`
	PerPage int     `json:"per_page"`
	// More is whether another page may follow: true when this page ended
	// within a day's entries or with older days still to read (the next
	// page, then, may be empty).
	More bool `json:"more"`
	// NextUntil, when set, is where the query stopped reading because it
	// read as many days as one query may: ask again with until set to it
	// (and page 0) for older entries.
	NextUntil *time.Time `json:"next_until,omitempty"`
	// Dropped counts the entries the days read left out beyond their cap
	// or a person's share: those are in Mattermost's audit log and the
	// server log only.
	Dropped int `json:"dropped"`
	// Cut counts, by person, the entries the days read left out past that
	// person's share of a day (only the person's own, for a query by
	// person).
	Cut map[string]int `json:"cut,omitempty"`
	// Repeated counts the connections the days read counted but did not
	// store: a person's client connecting again within a minute.
	Repeated int `json:"repeated,omitempty"`
}

// Query answers one page of the entries f selects, newest first. It reads
// whole days, newest first, at most maxChunksRead chunks and maxDaysRead
// days in all (but always at least one day), and only the days the range
// covers. A query for one person reads only the chunks the day's index of
// people names for them.
func (s *Store) Query(f Filter) (Page, error) {
	if f.PerPage <= 0 {
		f.PerPage = DefaultPerPage
	}
	if f.PerPage > MaxPerPage || f.Page < 0 || f.Page > MaxPage {
		return Page{}, fmt.Errorf("%w: page from 0 to %d, per_page from 1 to %d", errBadFilter, MaxPage, MaxPerPage)
	}
	days, err := s.Days()
	if err != nil {
		return Page{}, err
	}
	skip, want := f.Page*f.PerPage, f.PerPage
	out := Page{Page: f.Page, PerPage: f.PerPage, Entries: []Event{}}
	read, daysRead := 0, 0
	for i := len(days) - 1; i >= 0; i-- {
		day := days[i]
		start, _ := time.Parse(dayLayout, day)
		end := start.Add(24 * time.Hour)
		if !f.Until.IsZero() && !start.Before(f.Until) {
			continue
		}
		if !f.Since.IsZero() && !end.After(f.Since) {
			break
		}
		if daysRead >= maxDaysRead {
			until := end
			out.NextUntil = &until
			break
		}
		raw, err := s.KV.Get(headKey(day))
		if err != nil {
			return Page{}, fmt.Errorf("read the audit day %s: %w", day, err)
		}
		h := readHead(raw)
		chunks := descending(0, (h.Count+chunkEntries-1)/chunkEntries)
		if f.UserID != "" {
			if chunks, err = s.chunksOf(day, f.UserID, h); err != nil {
				return Page{}, err
			}
		}
		if daysRead > 0 && read+len(chunks) > maxChunksRead {
			until := end
			out.NextUntil = &until
			break
		}
		read += len(chunks)
		daysRead++
		out.Dropped += h.Dropped
		out.Repeated += h.Repeated
		for user, n := range h.Cut {
			if f.UserID == "" || user == f.UserID {
				if out.Cut == nil {
					out.Cut = map[string]int{}
				}
				out.Cut[user] += n
			}
		}
		matched, err := s.dayMatches(day, chunks, f)
		if err != nil {
			return Page{}, err
		}
		if skip >= len(matched) {
			skip -= len(matched)
			continue
		}
		matched = matched[skip:]
		skip = 0
		if len(matched) > want {
			out.Entries = append(out.Entries, matched[:want]...)
			out.More = true
			return out, nil
		}
		out.Entries = append(out.Entries, matched...)
		want -= len(matched)
		if want == 0 {
			// One more matching entry, on an older day, would make More
			// true; the next page tells, and answers empty if there is none.
			out.More = i > 0
			return out, nil
		}
	}
	return out, nil
}

// dayMatches reads the chunks of a day numbered in chunks and keeps what f
// selects, newest first. A chunk that cannot be read is skipped: one
// damaged value must not hide the rest of the trail.
func (s *Store) dayMatches(day string, chunks []int, f Filter) ([]Event, error) {
	var matched []Event
	for _, n := range chunks {
		raw, err := s.KV.Get(chunkKey(day, n))
		if err != nil {
			return nil, fmt.Errorf("read the audit chunk %s/%d: %w", day, n, err)
		}
		entries, err := decodeStored(raw)
		if err != nil {
			continue
		}
		for _, s := range entries {
			if f.matches(s) {
				matched = append(matched, Bounded(s.event()))
			}
		}
	}
	// Nodes append in nearly but not exactly the order of their clocks.
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].At.After(matched[j].At) })
	return matched, nil
}
