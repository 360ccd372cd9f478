package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// What one entry may hold. An event's fields come from clients (their
// names and versions) and from tool arguments (the ids), so each is cut
// before it is stored: a stored chunk can then never outgrow its bound.
const (
	// maxFieldBytes bounds a name or a short code (a tool, a kind, an
	// outcome, a reason, a client's version): the longest the plugin sets
	// is under 40 bytes.
	maxFieldBytes = 64
	// maxClientNameBytes is the transport's own bound on a client's name.
	maxClientNameBytes = 128
	// maxTargets bounds the ids of one entry: the widest write (a group
	// message, a channel with its new members) names a channel, a post and
	// a few people; the rest are counted in "more_targets".
	maxTargets = 8
	// maxTargetKeyBytes and maxTargetValueBytes bound one target: a key is
	// a name like "channel_id", a value a 26-character Mattermost id or a
	// short code.
	maxTargetKeyBytes   = 32
	maxTargetValueBytes = 64
	// maxEntryBytes is the most one stored entry takes, with every field at
	// its bound and JSON's quoting: what chunkEntries is sized by.
	maxEntryBytes = 2 << 10
)

// stored is an entry as a chunk keeps it: short keys, since a day holds
// up to DayCap of them.
type stored struct {
	At            int64             `json:"t"`
	Kind          Kind              `json:"k"`
	UserID        string            `json:"u"`
	ClientName    string            `json:"cn,omitempty"`
	ClientVersion string            `json:"cv,omitempty"`
	Tool          string            `json:"tl,omitempty"`
	Targets       map[string]string `json:"g,omitempty"`
	Outcome       string            `json:"o"`
	Reason        string            `json:"r,omitempty"`
}

// Bounded is the event cut to what the store keeps: every field at most its
// bound, at most maxTargets targets, the time in UTC to the millisecond.
func Bounded(ev Event) Event {
	out := Event{
		At:            ev.At.UTC().Truncate(time.Millisecond),
		Kind:          Kind(cut(string(ev.Kind), maxFieldBytes)),
		UserID:        cut(ev.UserID, maxFieldBytes),
		ClientName:    cut(ev.ClientName, maxClientNameBytes),
		ClientVersion: cut(ev.ClientVersion, maxFieldBytes),
		Tool:          cut(ev.Tool, maxFieldBytes),
		Outcome:       cut(ev.Outcome, maxFieldBytes),
		Reason:        cut(ev.Reason, maxFieldBytes),
	}
	if len(ev.Targets) > 0 {
		keys := make([]string, 0, len(ev.Targets))
		for k := range ev.Targets {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out.Targets = make(map[string]string, min(len(keys), maxTargets))
		for i, k := range keys {
			if i == maxTargets-1 && len(keys) > maxTargets {
				out.Targets["more_targets"] = fmt.Sprint(len(keys) - i)
				break
			}
			out.Targets[cut(k, maxTargetKeyBytes)] = cut(ev.Targets[k], maxTargetValueBytes)
		}
	}
	return out
}

// cut shortens s to at most n bytes without splitting a character, and
// replaces what is not valid UTF-8.
func cut(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func toStored(ev Event) stored {
	ev = Bounded(ev)
	return stored{At: ev.At.UnixMilli(), Kind: ev.Kind, UserID: ev.UserID, ClientName: ev.ClientName, ClientVersion: ev.ClientVersion,
		Tool: ev.Tool, Targets: ev.Targets, Outcome: ev.Outcome, Reason: ev.Reason}
}

func (s stored) event() Event {
	return Event{At: time.UnixMilli(s.At).UTC(), Kind: s.Kind, UserID: s.UserID, ClientName: s.ClientName, ClientVersion: s.ClientVersion,
		Tool: s.Tool, Targets: s.Targets, Outcome: s.Outcome, Reason: s.Reason}
}

// chunk is one stored value of a day: entries in the order they were
// appended. V is the format's version, so a later one can be told apart.
type chunk struct {
	V       int      `json:"v"`
	Entries []stored `json:"e"`
}

const chunkVersion = 1

var errBadChunk = errors.New("not an audit chunk")

// decodeChunk reads a stored chunk. The bytes come from the KV store, which
// anything holding the plugin's database could have written, so whatever
// they hold is bounded again: at most chunkEntries entries, each cut as
// Bounded cuts it; a value that is not a chunk is an error, never a panic.
func decodeChunk(raw []byte) ([]Event, error) {
	entries, err := decodeStored(raw)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(entries))
	for _, s := range entries {
		out = append(out, Bounded(s.event()))
	}
	return out, nil
}

// decodeStored reads a chunk's entries as stored, at most chunkEntries;
// their fields are cut only when one is kept (decodeChunk, Query).
func decodeStored(raw []byte) ([]stored, error) {
	if raw == nil {
		return nil, nil
	}
	if len(raw) > maxChunkBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than a chunk holds", errBadChunk, len(raw))
	}
	var c chunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadChunk, err)
	}
	if c.V != chunkVersion {
		return nil, fmt.Errorf("%w: version %d", errBadChunk, c.V)
	}
	if len(c.Entries) > chunkEntries {
		c.Entries = c.Entries[:chunkEntries]
	}
	return c.Entries, nil
}

// encodeChunk is the stored form of entries.
func encodeChunk(entries []stored) ([]byte, error) {
	return json.Marshal(chunk{V: chunkVersion, Entries: entries})
}
