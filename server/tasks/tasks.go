// Package tasks keeps the MCP tasks of tool calls whose write waits for the
// person: the handle a client's host follows instead of holding the call
// open (MCP 2025-11-25's tasks, and the io.modelcontextprotocol/tasks
// extension of 2026-07-28, each in its own wire form; wire.go).
//
// A task keeps who asked, which tool, and which pending write it follows;
// where it stands is read from that write (Writes) whenever it is asked
// for, so any node answers for it the same way, and a status the person
// decided on one node is what every other node tells. Its end is kept in
// the task once seen, so the outcome outlives the write's record.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const (
	// Lifetime is how long a task is kept from its creation: its write
	// waits at most approval.PendingLifetime for the person, and its
	// outcome is told for approval.OutcomeLifetime after, as get_pending
	// tells it; not longer.
	Lifetime = approval.PendingLifetime + approval.OutcomeLifetime
	// PollInterval is the poll a client is asked to keep: a person answers
	// in seconds to minutes, so two seconds shows the answer almost at
	// once for two KV reads a poll.
	PollInterval = 2 * time.Second
	// MaxPerPerson bounds the tasks one person keeps, as many as their
	// list of writes (approval keeps 50): at most approval's ten pending
	// writes wait at once, the rest are outcomes. Past it the oldest task
	// is forgotten.
	MaxPerPerson = 50
	// maxResultBytes bounds the result a task keeps: a write's answer is a
	// few lines and its ids; a larger one is cut to its text.
	maxResultBytes = 64 << 10
	keyPrefix      = "tk_"
	indexPrefix    = "tki_"
)

// ErrNotFound is a task that does not exist, expired, or is another
// person's.
var ErrNotFound = errors.New("no such task")

// Record is one task as the KV store keeps it.
type Record struct {
	ID     string `json:"id"`
	UserID string `json:"user_id"`
	Tool   string `json:"tool"`
	// WriteID is the pending write the task follows ("" when the call
	// needed no wait: its Result is set at once).
	WriteID string `json:"write_id,omitempty"`
	// Reply is the reply the task waits for (wait_for_reply), nil for a
	// write's task.
	Reply *transport.ReplyWait `json:"reply,omitempty"`
	// Session is the MCP session that asked ("" for none).
	Session string `json:"session,omitempty"`
	// Listen is the subscriptions/listen stream (2026-07-28) that asked
	// to hear when the task ends ("" for none; the last one asking).
	Listen string `json:"listen,omitempty"`
	// ShowsPages is a client that can show the person the write's page
	// (url-mode elicitation), which 2026-07-28 asks as an input request;
	// Shown is set once it answered that request.
	ShowsPages bool      `json:"shows_pages,omitempty"`
	Shown      bool      `json:"shown,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	// End is set once the task ended: at once for a call that needed no
	// wait, else the first time its write was seen settled.
	End *End `json:"end,omitempty"`
}

// End is how a task ended.
type End struct {
	Cancelled bool `json:"cancelled,omitempty"`
	// Result is the tool's result as its call would have answered it
	// (a CallToolResult as JSON).
	Result json.RawMessage `json:"result,omitempty"`
}

// State is where the write a task follows stands.
type State int

const (
	// Waiting for the person to answer in Mattermost.
	Waiting State = iota
	// Working: the person accepted and it is being carried out.
	Working
	// Done: answered, failed or expired; Result says what.
	Done
	// Withdrawn: the client cancelled it before the person answered.
	Withdrawn
)

// Write is where the write behind a task stands, as Writes reads it.
type Write struct {
	State State
	// Message says where it stands for the person and the model: while it
	// waits, the page where the person answers.
	Message string
	// Question, while it waits, shows the person its page (url mode).
	Question *mcp.ElicitationParams
	// Result, once Done or Withdrawn, is the tool's result as its call
	// would have answered it.
	Result *mcp.CallToolResult
}

// Writes reads and changes the pending writes tasks follow, and the
// threads whose replies they wait for.
type Writes interface {
	// FollowReply is where a wait for a reply stands: Working until the
	// reply comes or wait.Until passes, then Done with the tool's result.
	FollowReply(ctx context.Context, userID string, wait transport.ReplyWait) (Write, error)
	// Follow is where the person's write stands.
	Follow(ctx context.Context, userID, tool, writeID string) (Write, error)
	// Withdraw takes the write back for a cancelled task; a write answered
	// first stays as it is, and Follow then tells it.
	Withdraw(ctx context.Context, userID, writeID string) error
	// Decline answers no for a client that declined to show the page.
	Decline(ctx context.Context, userID, writeID string) error
}

// Store keeps the tasks in the plugin KV store.
type Store struct {
	KV  kvstore.KV
	Now func() time.Time
}

func key(id string) string          { return keyPrefix + id }
func indexKey(userID string) string { return indexPrefix + userID }
func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Create stores a new task of the person and lists it in their index,
// forgetting their oldest past MaxPerPerson.
func (s *Store) Create(rec Record) (Record, error) {
	if len(rec.ID) != 32 {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return Record{}, fmt.Errorf("random: %w", err)
		}
		rec.ID = hex.EncodeToString(b)
	}
	rec.CreatedAt = s.now().UTC().Truncate(time.Millisecond)
	rec.UpdatedAt = rec.CreatedAt
	bound(&rec)
	raw, err := json.Marshal(rec)
	if err != nil {
		return Record{}, err
	}
	// Written before the index names it, so the index never names a task
	// that is not there.
	if err := s.KV.Set(key(rec.ID), raw, Lifetime); err != nil {
		return Record{}, fmt.Errorf("store the task: %w", err)
	}
	var dropped []string
	err = kvstore.Update(s.KV, indexKey(rec.UserID), func(old []byte) (kvstore.Change, error) {
		var ids []indexEntry
		if old != nil && json.Unmarshal(old, &ids) != nil {
			ids = nil // a broken index starts again
		}
		ids, dropped = keep(append(ids, indexEntry{ID: rec.ID, Created: rec.CreatedAt}), s.now())
		next, err := json.Marshal(ids)
		return kvstore.Change{Value: next, TTL: Lifetime}, err
	})
	if err != nil {
		_ = s.KV.Delete(key(rec.ID))
		return Record{}, fmt.Errorf("list the task: %w", err)
	}
	for _, id := range dropped {
		_ = s.KV.Delete(key(id)) // past the bound; it would expire anyway
	}
	return rec, nil
}

// indexEntry is one task in its person's index.
type indexEntry struct {
	ID      string    `json:"id"`
	Created time.Time `json:"c"`
}

// keep drops expired entries and the oldest past MaxPerPerson.
func keep(ids []indexEntry, now time.Time) (kept []indexEntry, dropped []string) {
	for _, e := range ids {
		if now.Sub(e.Created) < Lifetime {
			kept = append(kept, e)
		}
	}
	for len(kept) > MaxPerPerson {
		dropped = append(dropped, kept[0].ID)
		kept = kept[1:]
	}
	return kept, dropped
}

// Load reads the person's task id.
func (s *Store) Load(userID, id string) (Record, error) {
	rec, _, err := s.load(userID, id)
	return rec, err
}

func (s *Store) load(userID, id string) (Record, []byte, error) {
	if len(id) != 32 || userID == "" {
		return Record{}, nil, ErrNotFound
	}
	raw, err := s.KV.Get(key(id))
	if err != nil {
		return Record{}, nil, err
	}
	var rec Record
	if raw == nil || json.Unmarshal(raw, &rec) != nil || rec.UserID != userID || s.now().Sub(rec.CreatedAt) >= Lifetime {
		return Record{}, nil, ErrNotFound
	}
	return rec, raw, nil
}

// Update changes the person's task id in place against every other node.
func (s *Store) Update(userID, id string, change func(*Record)) (Record, error) {
	var out Record
	err := kvstore.Update(s.KV, key(id), func(old []byte) (kvstore.Change, error) {
		var rec Record
		if old == nil || json.Unmarshal(old, &rec) != nil || rec.UserID != userID {
			return kvstore.Change{}, ErrNotFound
		}
		change(&rec)
		rec.UpdatedAt = s.now().UTC().Truncate(time.Millisecond)
		bound(&rec)
		left := Lifetime - s.now().Sub(rec.CreatedAt)
		if left <= 0 {
			return kvstore.Change{}, ErrNotFound
		}
		out = rec
		raw, err := json.Marshal(rec)
		return kvstore.Change{Value: raw, TTL: left}, err
	})
	return out, err
}

// List is the person's tasks, oldest first.
func (s *Store) List(userID string) ([]Record, error) {
	raw, err := s.KV.Get(indexKey(userID))
	if err != nil || raw == nil {
		return nil, err
	}
	var ids []indexEntry
	if json.Unmarshal(raw, &ids) != nil {
		return nil, nil
	}
	out := make([]Record, 0, len(ids))
	for _, e := range ids {
		rec, err := s.Load(userID, e.ID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// bound keeps a task's result within maxResultBytes: past it only its
// text is kept, cut, so the task still tells what became of the write.
func bound(rec *Record) {
	if rec.End == nil || len(rec.End.Result) <= maxResultBytes {
		return
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(rec.End.Result, &res)
	text := ""
	for _, c := range res.Content {
		text += c.Text
	}
	if len(text) > maxResultBytes/2 {
		text = strings.ToValidUTF8(text[:maxResultBytes/2], "") + "…"
	}
	cut, _ := json.Marshal(mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: res.IsError})
	rec.End.Result = cut
}
