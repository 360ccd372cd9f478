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
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
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
	// MaxPendingPerPerson bounds the writes waiting for one person's answer.
	// The person answers them one by one, so more than ten waiting means
	// the model is not waiting for them; and a pending record holds the
	// whole plan (message and written files, up to about 10 MiB), so this
	// also bounds what one person's questions take in the KV store for the
	// ten minutes they wait. The next write is refused, pointing to
	// get_pending.
	MaxPendingPerPerson = 10
	// maxIndexed bounds a person's index, and so their records: every
	// pending one and the most recent outcomes, as many as the list shows.
	// Older outcomes leave the index and the store first.
	maxIndexed = 50
	// indexPrefix keys each person's index of records, so that listing
	// them reads one key and their records, never every key of the plugin.
	indexPrefix = "pci_"
	// indexLifetime outlives every record the index names: a record waits
	// at most PendingLifetime, runs at most as long again, then keeps its
	// outcome OutcomeLifetime.
	indexLifetime = 2*PendingLifetime + OutcomeLifetime
)

// States of a record.
const (
	StatePending   = "pending"
	StateExecuting = "executing"
	// StateDone is any write carried out; its value is "posted" because
	// records and clients have kept it since only posts were confirmed.
	StateDone     = "posted"
	StateDeclined = "declined"
	StateFailed   = "failed"
	// StateWithdrawn is a write whose call the MCP client cancelled while
	// it waited: nothing was sent and the person can no longer accept it.
	StateWithdrawn = "withdrawn"
	// StateExpired is a write nobody answered in time. No record is ever
	// in it (the KV store drops an expired one): only Options.Settled
	// hears of it.
	StateExpired = "expired"
)

var (
	// ErrNotFound answers for a missing or expired record and for another
	// user's.
	ErrNotFound = errors.New("not found")
	// ErrDecided refuses a second answer.
	ErrDecided = errors.New("already answered")
)

// Record is one post waiting for, or answered by, the person. The plan
// (with the model's own text) is kept only while the post is pending.
type Record struct {
	ID     string `json:"id"`
	UserID string `json:"user_id"`
	State  string `json:"state"`
	Title  string `json:"title"`
	// Action is the plan's kind (Action*), kept after the plan is
	// dropped so the outcome can be worded.
	Action    string    `json:"action,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// AnsweredAt is when the person accepted or declined, or the client
	// withdrew the write.
	AnsweredAt time.Time `json:"answered_at,omitzero"`
	// Destination is where the post goes, kept after the plan is dropped;
	// Place is the same in the person's words.
	Destination string `json:"destination,omitempty"`
	Place       string `json:"place,omitempty"`
	// Emoji is a reaction's emoji, kept after the plan is dropped so the
	// outcome names it.
	Emoji     string        `json:"emoji,omitempty"`
	Plan      *posting.Plan `json:"plan,omitempty"`
	Outcome   string        `json:"outcome,omitempty"`
	PostID    string        `json:"post_id,omitempty"`
	ChannelID string        `json:"channel_id,omitempty"`
	Permalink string        `json:"permalink,omitempty"`
	// ClientSessions are the Mattermost sessions of the MCP client that
	// caused the write (the tool call's and the MCP session's): they may
	// read the record but never answer it.
	ClientSessions []string `json:"client_sessions,omitempty"`
	// MCPSession is the MCP session that asked, in use while the write
	// waits ("" for a sessionless client and in records of older versions).
	MCPSession string `json:"mcp_session,omitempty"`
	// QuestionOpen is a url-mode question about this write that the client
	// of MCPSession still shows after the call that asked returned: whoever
	// settles the write tells that session the question is over (its
	// elicitation id is the record's id). A call that waits closes it
	// itself, and leaves this unset.
	QuestionOpen bool `json:"question_open,omitempty"`
	// Tool, ClientName and ClientVersion are the call that asked and its MCP
	// client, and Targets the ids the write touches, for the audit entries
	// of every later step (absent from records of older versions).
	Tool          string            `json:"tool,omitempty"`
	ClientName    string            `json:"client_name,omitempty"`
	ClientVersion string            `json:"client_version,omitempty"`
	Targets       map[string]string `json:"targets,omitempty"`
	// Task is the MCP task that follows the write ("" for none), whose
	// client hears when it ends.
	Task string `json:"task,omitempty"`
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

// OpenQuestion is the MCP session that still shows a url-mode question
// about the write, and the question's elicitation id, once its call
// returned before the write's end; ok is false when none does.
func (r Record) OpenQuestion() (sessionID, elicitationID string, ok bool) {
	if !r.QuestionOpen || r.MCPSession == "" {
		return "", "", false
	}
	return r.MCPSession, r.ID, true
}

// place is where the write goes in the person's words.
func (r Record) place() string {
	return posting.Destination{Label: r.Destination, Place: r.Place}.PlaceText()
}

// Store holds the records.
type Store struct {
	KV  kvstore.KV
	Now func() time.Time
	// Audit records every step of every record (nil: none; see audit.go).
	Audit audit.Recorder
	// Discard discards the files received for a write that ends without
	// its post (declined, withdrawn, expired); nil: none are kept.
	Discard func(userID string, fileIDs []string)
}

// discard is Discard, when set.
func (s *Store) discard(userID string, fileIDs []string) {
	if s.Discard != nil && len(fileIDs) > 0 {
		s.Discard(userID, fileIDs)
	}
}

// uploadsOf are the files received for a record's write (none once it is
// answered: the plan is dropped then).
func uploadsOf(r *Record) []string {
	if r.Plan == nil {
		return nil
	}
	return r.Plan.Uploads()
}

// The key holds the owner, so another user's id names no record of theirs.
func key(userID, id string) string { return keyPrefix + userID + "_" + id }

// Create stores a pending post, refusing it (with a posting.Refusal) when
// MaxPendingPerPerson of the person's writes already wait.
func (s *Store) Create(userID, title string, plan posting.Plan, clientSessions []string) (Record, error) {
	return s.CreateFor(userID, title, plan, clientSessions, Origin{})
}

// CreateFor is Create for a write asked by origin, which its audit entries
// name.
func (s *Store) CreateFor(userID, title string, plan posting.Plan, clientSessions []string, origin Origin) (Record, error) {
	live, err := s.indexed(userID, false)
	if err != nil {
		return Record{}, err
	}
	if full := tooManyPending(live); full != nil {
		return Record{}, full
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return Record{}, fmt.Errorf("random: %w", err)
	}
	rec := Record{ID: hex.EncodeToString(b), UserID: userID, State: StatePending, Title: title, Action: plan.Action, CreatedAt: s.Now(),
		Destination: plan.Dest.Label, Place: plan.Dest.PlaceText(), Emoji: EmojiOf(plan), Plan: &plan, ClientSessions: clientSessions,
		MCPSession: origin.Session, Tool: origin.Tool, ClientName: origin.ClientName, ClientVersion: origin.ClientVersion, Targets: writeTargets(plan), Task: origin.Task}
	raw, err := json.Marshal(rec)
	if err != nil {
		return Record{}, err
	}
	// The record is written before the index names it, so the index never
	// names a record that is not there yet.
	if err := s.KV.Set(key(userID, rec.ID), raw, PendingLifetime); err != nil {
		return Record{}, fmt.Errorf("store the pending post: %w", err)
	}
	dropped, err := s.updateIndex(userID, func(live []Record) ([]string, []string, error) {
		// Counted again against the index as it is now: another node may
		// have asked in between.
		if full := tooManyPending(live); full != nil {
			return nil, nil, full
		}
		kept, dropped := keepNewest(append(live, rec))
		return kept, dropped, nil
	})
	if err != nil {
		if derr := s.KV.Delete(key(userID, rec.ID)); derr != nil {
			err = errors.Join(err, derr)
		}
		return Record{}, err
	}
	for _, id := range dropped {
		// An outcome past the index's bound; it would expire within the
		// hour anyway, so a failed delete only leaves it that long.
		_ = s.KV.Delete(key(userID, id))
	}
	s.noteOpen(rec)
	s.recordStep(rec, audit.OutcomeAsked)
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
	rec, err := s.transition(userID, id, func(r *Record) { r.State, r.AnsweredAt = StateExecuting, s.Now() }, PendingLifetime)
	if err == nil {
		s.recordStep(rec, audit.OutcomeAccepted)
	}
	return rec, err
}

// How the store words a failure: before anything changed, or after part
// of the change was made (a channel created, then a member not added).
const (
	failedBefore  = "Nothing was sent: "
	failedPartway = "Partly done, then failed: "
)

// failure reads a failed outcome: whether part of it was done, and why.
func failure(outcome string) (partway bool, why string) {
	if rest, ok := strings.CutPrefix(outcome, failedPartway); ok {
		return true, strings.TrimSpace(rest)
	}
	return false, strings.TrimSpace(strings.TrimPrefix(outcome, failedBefore))
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
	state, outcome := StateDone, "Done."
	if execErr != nil {
		state, outcome = StateFailed, failedBefore+execErr.Error()
		if done.ChannelID != "" || done.PostID != "" {
			outcome = failedPartway + execErr.Error()
		}
	}
	rec.ChannelID = done.ChannelID
	if err := s.Settle(rec, state, outcome, done.PostID, done.Permalink); err != nil {
		return rec, err
	}
	return s.Load(userID, id)
}

// Decline answers no: the plan is dropped and only the outcome stays.
func (s *Store) Decline(userID, id string) (Record, error) {
	var received []string
	rec, err := s.transition(userID, id, func(r *Record) {
		received = uploadsOf(r)
		r.State, r.Plan, r.Outcome, r.AnsweredAt = StateDeclined, nil, "The person declined; nothing was sent.", s.Now()
	}, OutcomeLifetime)
	if err == nil {
		s.discard(userID, received)
		s.recordStep(rec, audit.OutcomeDeclined)
	}
	return rec, err
}

// withdrawnOutcome is a withdrawn write's outcome, as get_pending reads it.
const withdrawnOutcome = "The AI assistant withdrew it before the person answered; nothing was sent."

// LeaveQuestionOpen marks a pending write whose call returns before the
// person's answer as one whose url-mode question the client still shows
// (Record.QuestionOpen). A write decided meanwhile gets ErrDecided and the
// record as it is: then the call closes the question itself.
func (s *Store) LeaveQuestionOpen(userID, id string) (Record, error) {
	rec, err := s.Load(userID, id)
	if err != nil {
		return Record{}, err
	}
	// The record keeps the time it had left: a question waits
	// PendingLifetime from when it was asked, not from now.
	ttl := max(time.Until(rec.ExpiresAt()), time.Second)
	return s.transition(userID, id, func(r *Record) { r.QuestionOpen = true }, ttl)
}

// Withdraw takes back a pending write whose call the client cancelled: the
// plan is dropped and, as after a decline, any later answer gets
// ErrDecided.
func (s *Store) Withdraw(userID, id string) (Record, error) {
	var received []string
	rec, err := s.transition(userID, id, func(r *Record) {
		received = uploadsOf(r)
		r.State, r.Plan, r.Outcome, r.AnsweredAt = StateWithdrawn, nil, withdrawnOutcome, s.Now()
	}, OutcomeLifetime)
	if err == nil {
		s.discard(userID, received)
		s.recordStep(rec, audit.OutcomeWithdrawn)
	}
	return rec, err
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
	if err := s.KV.Set(key(rec.UserID, rec.ID), raw, OutcomeLifetime); err != nil {
		return err
	}
	step := audit.OutcomeDone
	if state != StateDone {
		step = audit.OutcomeFailed
	}
	s.recordStep(rec, step)
	return nil
}

// List is the user's records, pending and recently answered, read through
// their index.
func (s *Store) List(userID string) ([]Record, error) {
	if userID == "" {
		return nil, nil
	}
	return s.indexed(userID, true)
}

// WaitingSessions are the MCP sessions that asked the person's writes
// still waiting for them or being carried out.
func (s *Store) WaitingSessions(userID string) (map[string]bool, error) {
	recs, err := s.List(userID)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range recs {
		if r.MCPSession != "" && (r.State == StatePending || r.State == StateExecuting) {
			out[r.MCPSession] = true
		}
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
