// Package filerequest holds the person's file requests: the model asks the
// person for a file (what it is for, which types, how large), the person
// gives it on a page of this plugin answered only in their own Mattermost
// session, the bytes land in their workspace, and the model gets a handle a
// posting tool takes. A request lives in the KV store, so the page, the
// waiting call and a later call may each reach any node.
package filerequest

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

const (
	// Lifetime is how long a request waits for the person's file: an hour
	// at most, then it and anything partial are gone.
	Lifetime = time.Hour
	// MaxOpen bounds the requests one person has waiting, as pending writes
	// are bounded: a client asking in a loop cannot fill the store.
	MaxOpen = 10
	// maxKept bounds the answered requests kept beside the open ones, so
	// a later call still reads its outcome within the hour.
	maxKept = 20
	// MaxPurposeBytes bounds what the model says the file is for: a
	// sentence or two is shown to the person, never a document.
	MaxPurposeBytes = 500
	// MaxTypes bounds the accepted types one request names.
	MaxTypes = 10
	// maxTypeBytes bounds one accepted type (".pdf", "image/*").
	maxTypeBytes = 100
	// uploadClaim is how long one upload may hold a request before another
	// attempt may start: the largest file at a slow phone's pace.
	uploadClaim = 15 * time.Minute

	// dropKeyBytes is the drop URL's secret: 256 bits, as every signed
	// value of the plugin.
	dropKeyBytes = 32

	keyPrefix = "fr_"
)

// States of a request.
const (
	StateWaiting   = "waiting"
	StateReceived  = "received"
	StateCancelled = "cancelled"
)

// Errors a caller words for the person or the model.
var (
	ErrNotFound  = errors.New("not found")
	ErrTooMany   = fmt.Errorf("at most %d file requests may wait at once", MaxOpen)
	ErrAnswered  = errors.New("the request is no longer waiting")
	ErrUploading = errors.New("a file is being uploaded for this request")
)

// File is what the person gave.
type File struct {
	// Name is the file's name in the person's workspace.
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	Type   string `json:"type"`
	SHA256 string `json:"sha256"`
	// Handle is the signed handle a posting tool takes; HandleID names it
	// in the audit trail.
	Handle   string `json:"handle"`
	HandleID string `json:"handle_id"`
}

// Request is one file request.
type Request struct {
	ID      string    `json:"id"`
	UserID  string    `json:"user_id"`
	Purpose string    `json:"purpose"`
	Types   []string  `json:"types,omitempty"`
	MaxSize int64     `json:"max_size"`
	Created time.Time `json:"created"`
	State   string    `json:"state"`
	// UploadingUntil is set while an upload holds the request.
	UploadingUntil time.Time `json:"uploading_until,omitzero"`
	AnsweredAt     time.Time `json:"answered_at,omitzero"`
	File           *File     `json:"file,omitempty"`
	// Client names the MCP client that asked, for the page.
	Client string `json:"client,omitempty"`
	// Session is the MCP session that asked, and Shown is set once its
	// client showed the page (url-mode elicitation): whichever node takes
	// the file tells that session the question is over.
	Session string `json:"session,omitempty"`
	Shown   bool   `json:"shown,omitempty"`
	// DropKey is the secret of the request's drop URL (DropURL), which a
	// view in the client's chat sends the file to: the URL is the only
	// credential there, good for one file while the request waits. Only
	// the value Create answers holds it: the store keeps its sha256
	// (DropKeySHA256), as the workspace keeps its tokens, so what the KV
	// store holds opens nothing.
	DropKey       string `json:"-"`
	DropKeySHA256 string `json:"drop_key_sha256"`
	// LaterDropKeys are the sha256 of the drop keys given to views shown
	// again, on later answers (NewDropKey), newest last, at most
	// maxLaterDropKeys.
	LaterDropKeys []string `json:"later_drop_keys,omitempty"`
}

// maxLaterDropKeys bounds the drop keys one request hands out after the
// first: a view is shown again only when the model waits again, a few
// times in an hour.
const maxLaterDropKeys = 8

// DropKeyOpens reports whether key is one of the request's drop keys, in
// constant time.
func (r Request) DropKeyOpens(key string) bool {
	sum := sha256.Sum256([]byte(key))
	given := []byte(hex.EncodeToString(sum[:]))
	opens := 0
	for _, h := range append([]string{r.DropKeySHA256}, r.LaterDropKeys...) {
		if h != "" {
			opens |= subtle.ConstantTimeCompare(given, []byte(h))
		}
	}
	return opens == 1
}

// ExpiresAt is when the request is gone.
func (r Request) ExpiresAt() time.Time { return r.Created.Add(Lifetime) }

// record is one person's requests, in one KV value.
type record struct {
	Requests []Request `json:"requests"`
}

// Store keeps requests in the plugin KV store.
type Store struct {
	KV kvstore.KV
	// Now is the clock; tests replace it.
	Now func() time.Time
}

func key(userID string) string { return keyPrefix + userID }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// live drops what has expired.
func (s *Store) live(rec record) record {
	now := s.now()
	rec.Requests = slices.DeleteFunc(rec.Requests, func(r Request) bool { return !now.Before(r.ExpiresAt()) })
	return rec
}

func (s *Store) load(userID string) (record, error) {
	raw, err := s.KV.Get(key(userID))
	if err != nil || raw == nil {
		return record{}, err
	}
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return record{}, fmt.Errorf("file requests of %s: %w", userID, err)
	}
	return s.live(rec), nil
}

// update changes one person's record atomically; the record lives as long
// as its newest request.
func (s *Store) update(userID string, change func(rec *record) error) error {
	return kvstore.Update(s.KV, key(userID), func(old []byte) (kvstore.Change, error) {
		var rec record
		if old != nil {
			if err := json.Unmarshal(old, &rec); err != nil {
				return kvstore.Change{}, err
			}
		}
		rec = s.live(rec)
		if err := change(&rec); err != nil {
			return kvstore.Change{}, err
		}
		if len(rec.Requests) == 0 {
			return kvstore.Change{}, nil
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			return kvstore.Change{}, err
		}
		return kvstore.Change{Value: raw, TTL: Lifetime}, nil
	})
}

// Ask is what the model asks for.
type Ask struct {
	Purpose string
	Types   []string
	MaxSize int64
	Client  string
	Session string
}

// Create stores a new waiting request of userID.
func (s *Store) Create(userID string, ask Ask) (Request, error) {
	b := make([]byte, 16+dropKeyBytes)
	if _, err := rand.Read(b); err != nil {
		return Request{}, err
	}
	req := Request{ID: hex.EncodeToString(b[:16]), UserID: userID, Purpose: ask.Purpose, Types: ask.Types, MaxSize: ask.MaxSize,
		Created: s.now().UTC(), State: StateWaiting, Client: ask.Client, Session: ask.Session, DropKey: hex.EncodeToString(b[16:])}
	keySum := sha256.Sum256([]byte(req.DropKey))
	req.DropKeySHA256 = hex.EncodeToString(keySum[:])
	err := s.update(userID, func(rec *record) error {
		open := 0
		for _, r := range rec.Requests {
			if r.State == StateWaiting {
				open++
			}
		}
		if open >= MaxOpen {
			return ErrTooMany
		}
		// The oldest answered ones make room: their outcome was told.
		for len(rec.Requests) >= MaxOpen+maxKept {
			i := slices.IndexFunc(rec.Requests, func(r Request) bool { return r.State != StateWaiting })
			rec.Requests = slices.Delete(rec.Requests, i, i+1)
		}
		rec.Requests = append(rec.Requests, req)
		return nil
	})
	return req, err
}

// Load is one of userID's requests; another person's is not found.
func (s *Store) Load(userID, id string) (Request, error) {
	rec, err := s.load(userID)
	if err != nil {
		return Request{}, err
	}
	for _, r := range rec.Requests {
		if r.ID == id {
			return r, nil
		}
	}
	return Request{}, ErrNotFound
}

// change applies f to request id of userID and answers it as stored.
func (s *Store) change(userID, id string, f func(r *Request) error) (Request, error) {
	var out Request
	err := s.update(userID, func(rec *record) error {
		i := slices.IndexFunc(rec.Requests, func(r Request) bool { return r.ID == id })
		if i < 0 {
			return ErrNotFound
		}
		if err := f(&rec.Requests[i]); err != nil {
			return err
		}
		out = rec.Requests[i]
		return nil
	})
	return out, err
}

// StartUpload lets one upload hold a waiting request, so two tabs cannot
// both store a file for it; an upload that died frees it after uploadClaim.
func (s *Store) StartUpload(userID, id string) (Request, error) {
	now := s.now()
	return s.change(userID, id, func(r *Request) error {
		switch {
		case r.State != StateWaiting:
			return ErrAnswered
		case now.Before(r.UploadingUntil):
			return ErrUploading
		}
		r.UploadingUntil = now.Add(uploadClaim)
		return nil
	})
}

// NewDropKey hands out another drop key of a waiting request, for a view
// shown again on a later answer: the store keeps only the hash of each
// key, so the first one cannot be told again. The oldest of more than
// maxLaterDropKeys stops opening.
func (s *Store) NewDropKey(userID, id string) (Request, error) {
	b := make([]byte, dropKeyBytes)
	if _, err := rand.Read(b); err != nil {
		return Request{}, err
	}
	k := hex.EncodeToString(b)
	sum := sha256.Sum256([]byte(k))
	r, err := s.change(userID, id, func(r *Request) error {
		if r.State != StateWaiting {
			return ErrAnswered
		}
		r.LaterDropKeys = append(r.LaterDropKeys, hex.EncodeToString(sum[:]))
		if n := len(r.LaterDropKeys); n > maxLaterDropKeys {
			r.LaterDropKeys = r.LaterDropKeys[n-maxLaterDropKeys:]
		}
		return nil
	})
	if err != nil {
		return Request{}, err
	}
	r.DropKey = k
	return r, nil
}

// MarkShown notes that the asking client shows the page.
func (s *Store) MarkShown(userID, id string) error {
	_, err := s.change(userID, id, func(r *Request) error {
		r.Shown = true
		return nil
	})
	return err
}

// EndUpload frees a request whose upload failed, so the person can try
// again.
func (s *Store) EndUpload(userID, id string) error {
	_, err := s.change(userID, id, func(r *Request) error {
		r.UploadingUntil = time.Time{}
		return nil
	})
	return err
}

// Receive records the file the person gave; the request is answered.
func (s *Store) Receive(userID, id string, f File) (Request, error) {
	now := s.now().UTC()
	return s.change(userID, id, func(r *Request) error {
		if r.State != StateWaiting {
			return ErrAnswered
		}
		r.State, r.File, r.AnsweredAt, r.UploadingUntil = StateReceived, &f, now, time.Time{}
		return nil
	})
}

// Cancel withdraws a waiting request (its call was cancelled); a request
// already answered stays as it is, and is answered.
func (s *Store) Cancel(userID, id string) (Request, error) {
	now := s.now().UTC()
	var answered Request
	r, err := s.change(userID, id, func(r *Request) error {
		if r.State != StateWaiting {
			answered = *r
			return kvstore.Unchanged
		}
		r.State, r.AnsweredAt = StateCancelled, now
		return nil
	})
	if answered.ID != "" {
		return answered, nil
	}
	return r, err
}

// Open is userID's waiting requests, oldest first.
func (s *Store) Open(userID string) ([]Request, error) {
	rec, err := s.load(userID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rec.Requests, func(r Request) bool { return r.State != StateWaiting }), nil
}
