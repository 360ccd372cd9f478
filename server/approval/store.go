package approval

// The store keeps the writes that wait for the person's answer: a record
// per pending write in the plugin KV store, so any node can show, accept or
// decline it.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

const (
	// PendingLifetime is how long a question waits for the person; after it
	// the record expires in the KV store and nothing is sent.
	PendingLifetime = 10 * time.Minute
	// OutcomeLifetime is how long get_pending can still tell what became of
	// a post after the person answered.
	OutcomeLifetime = time.Hour
	keyPrefix       = "pc_"
	maxListed       = 50
	// The KV store lists every key of the plugin (workspace chunks too), so
	// the scan is bounded.
	listPageSize = 1000
	listPages    = 20
)

// States of a record.
const (
	StatePending   = "pending"
	StateExecuting = "executing"
	StatePosted    = "posted"
	StateDeclined  = "declined"
	StateFailed    = "failed"
)

var (
	// ErrNotFound answers for a missing or expired record and for another
	// user's.
	ErrNotFound = errors.New("not found")
	// ErrDecided refuses a second answer.
	ErrDecided = errors.New("already answered")
)

// KV is the part of the plugin KV store the records use.
type KV interface {
	Get(key string) ([]byte, error)
	Set(key string, value []byte, ttl time.Duration) error
	CompareAndSet(key string, old, value []byte, ttl time.Duration) (bool, error)
	ListKeys(prefix string, page, perPage int) ([]string, bool, error)
	Delete(key string) error
}

// Record is one post waiting for, or answered by, the person. The plan
// (with the model's own text) is kept only while the post is pending.
type Record struct {
	ID     string `json:"id"`
	UserID string `json:"user_id"`
	State  string `json:"state"`
	Title  string `json:"title"`
	// Action is the plan's kind (posting.Action*), kept after the plan is
	// dropped so the outcome can be worded.
	Action    string    `json:"action,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// AnsweredAt is when the person accepted or declined.
	AnsweredAt time.Time `json:"answered_at,omitzero"`
	// Destination is where the post goes, kept after the plan is dropped;
	// Place is the same in the person's words.
	Destination string        `json:"destination,omitempty"`
	Place       string        `json:"place,omitempty"`
	Plan        *posting.Plan `json:"plan,omitempty"`
	Outcome     string        `json:"outcome,omitempty"`
	PostID      string        `json:"post_id,omitempty"`
	Permalink   string        `json:"permalink,omitempty"`
	// ClientSessions are the Mattermost sessions of the MCP client that
	// caused the write (the tool call's and the MCP session's): they may
	// read the record but never answer it.
	ClientSessions []string `json:"client_sessions,omitempty"`
}

// ExpiresAt is when the record leaves the KV store: a pending question
// PendingLifetime after it was asked, an answer OutcomeLifetime after it.
func (r Record) ExpiresAt() time.Time {
	switch r.State {
	case StatePending:
		return r.CreatedAt.Add(PendingLifetime)
	case StateExecuting:
		return r.AnsweredAt.Add(PendingLifetime)
	}
	return r.AnsweredAt.Add(OutcomeLifetime)
}

// place is where the write goes in the person's words.
func (r Record) place() string {
	if r.Place != "" {
		return r.Place
	}
	return r.Destination
}

// Store holds the records.
type Store struct {
	KV  KV
	Now func() time.Time
}

// The key holds the owner, so another user's id names no record of theirs.
func key(userID, id string) string { return keyPrefix + userID + "_" + id }

// Create stores a pending post.
func (s *Store) Create(userID, title string, plan posting.Plan, clientSessions []string) (Record, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return Record{}, fmt.Errorf("random: %w", err)
	}
	rec := Record{ID: hex.EncodeToString(b), UserID: userID, State: StatePending, Title: title, Action: plan.Action, CreatedAt: s.Now(),
		Destination: plan.Dest.Label, Place: plan.Dest.PlaceText(), Plan: &plan, ClientSessions: clientSessions}
	raw, err := json.Marshal(rec)
	if err != nil {
		return Record{}, err
	}
	if err := s.KV.Set(key(userID, rec.ID), raw, PendingLifetime); err != nil {
		return Record{}, fmt.Errorf("store the pending post: %w", err)
	}
	return rec, nil
}

// Load reads the user's record.
func (s *Store) Load(userID, id string) (Record, error) {
	rec, _, err := s.load(userID, id)
	return rec, err
}

func (s *Store) load(userID, id string) (Record, []byte, error) {
	if len(id) != 32 || userID == "" {
		return Record{}, nil, ErrNotFound
	}
	if _, err := hex.DecodeString(id); err != nil {
		return Record{}, nil, ErrNotFound
	}
	raw, err := s.KV.Get(key(userID, id))
	if err != nil {
		return Record{}, nil, err
	}
	if raw == nil {
		return Record{}, nil, ErrNotFound
	}
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return Record{}, nil, fmt.Errorf("read the pending post: %w", err)
	}
	if rec.UserID != userID || rec.ID != id {
		return Record{}, nil, ErrNotFound
	}
	return rec, raw, nil
}

// transition changes a pending record once, atomically across nodes: of two
// answers (two tabs, two nodes) exactly one wins.
func (s *Store) transition(userID, id string, change func(*Record), ttl time.Duration) (Record, error) {
	rec, raw, err := s.load(userID, id)
	if err != nil {
		return Record{}, err
	}
	if rec.State != StatePending {
		return rec, ErrDecided
	}
	change(&rec)
	next, err := json.Marshal(rec)
	if err != nil {
		return Record{}, err
	}
	ok, err := s.KV.CompareAndSet(key(userID, id), raw, next, ttl)
	if err != nil {
		return Record{}, err
	}
	if !ok {
		return rec, ErrDecided
	}
	return rec, nil
}

// Claim takes a pending post for execution; the caller then Settles it.
func (s *Store) Claim(userID, id string) (Record, error) {
	return s.transition(userID, id, func(r *Record) { r.State, r.AnsweredAt = StateExecuting, s.Now() }, PendingLifetime)
}

// Accept claims a pending record once, cluster-wide, carries out its plan
// as its owner and records the outcome; of two answers racing, the second
// gets ErrDecided and the record as it is.
func (s *Store) Accept(ctx context.Context, c *mattermost.Caller, id string, execute func(ctx context.Context, c *mattermost.Caller, plan posting.Plan) (Executed, error)) (Record, error) {
	userID := c.UserID()
	rec, err := s.Claim(userID, id)
	if err != nil {
		return rec, err
	}
	done, execErr := execute(ctx, c, *rec.Plan)
	state, outcome := StatePosted, "Done."
	if execErr != nil {
		state, outcome = StateFailed, "Nothing was sent: "+execErr.Error()
	}
	if err := s.Settle(rec, state, outcome, done.PostID, done.Permalink); err != nil {
		return rec, err
	}
	return s.Load(userID, id)
}

// Decline answers no: the plan is dropped and only the outcome stays.
func (s *Store) Decline(userID, id string) (Record, error) {
	return s.transition(userID, id, func(r *Record) {
		r.State, r.Plan, r.Outcome, r.AnsweredAt = StateDeclined, nil, "The person declined; nothing was sent.", s.Now()
	}, OutcomeLifetime)
}

// Settle records what became of a claimed post, dropping the plan.
func (s *Store) Settle(rec Record, state, outcome, postID, permalink string) error {
	rec.State, rec.Plan, rec.Outcome, rec.PostID, rec.Permalink = state, nil, outcome, postID, permalink
	if rec.AnsweredAt.IsZero() {
		rec.AnsweredAt = s.Now()
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return s.KV.Set(key(rec.UserID, rec.ID), raw, OutcomeLifetime)
}

// List is the user's records, pending and recently answered.
func (s *Store) List(userID string) ([]Record, error) {
	prefix := keyPrefix + userID + "_"
	var keys []string
	for page := 0; page < listPages && len(keys) < maxListed; page++ {
		found, more, err := s.KV.ListKeys(prefix, page, listPageSize)
		if err != nil {
			return nil, err
		}
		keys = append(keys, found...)
		if !more {
			break
		}
	}
	var out []Record
	for _, k := range keys {
		rec, err := s.Load(userID, k[len(keyPrefix+userID+"_"):])
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

// Sorted is the user's records, pending first, then the most recent.
func (s *Store) Sorted(userID string) ([]Record, error) {
	if userID == "" {
		return nil, nil
	}
	recs, err := s.List(userID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(recs, func(i, j int) bool {
		pi, pj := recs[i].State == StatePending, recs[j].State == StatePending
		if pi != pj {
			return pi
		}
		return recs[i].CreatedAt.After(recs[j].CreatedAt)
	})
	return recs, nil
}
