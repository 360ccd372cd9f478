package workspace

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrUploadBusy refuses a second request with an upload URL whose first is
// still sending its body.
var ErrUploadBusy = errors.New("an upload with this URL is under way")

const (
	// DownloadLifetime is how long a presigned download URL works: clients
	// retry and some HEAD first, so it is reusable, but the URL carries the
	// token, so it is short.
	DownloadLifetime = 5 * time.Minute
	// UploadLifetime is how long a presigned upload URL waits for its one
	// PUT: time for a sandbox or a script to pick it up.
	UploadLifetime = 15 * time.Minute

	// uploadHold is how long one PUT may hold an upload URL while its body
	// streams: the largest file at a slow connection's pace. A node that
	// dies mid-upload leaves the URL usable again after it.
	uploadHold = 15 * time.Minute

	prefixToken = "ws_t_"
	// tokenBytes of randomness make a token unguessable.
	tokenBytes = 32
)

// Kind says what a presigned token allows.
type Kind string

// Token kinds.
const (
	KindDownload Kind = "download"
	KindUpload   Kind = "upload"
)

// tokenRecord lives in the KV store under a hash of the token, so the store
// never holds a token that works. The file name is here, never in the
// request that presents the token.
type tokenRecord struct {
	Kind      Kind      `json:"kind"`
	UserID    string    `json:"user_id"`
	Name      string    `json:"name"`
	ExpiresAt time.Time `json:"expires_at"`
	MaxSize   int64     `json:"max_size,omitempty"`
	SHA256    string    `json:"sha256,omitempty"`
	// Size is the exact length an upload must have (nil: any up to MaxSize).
	Size  *int64 `json:"size,omitempty"`
	Claim Claim  `json:"claim,omitempty"`
	// HeldUntil is set while an upload streams its body (see WriteUpload).
	HeldUntil time.Time `json:"held_until,omitzero"`
}

// UploadTerms are what a presigned upload holds its one body to.
type UploadTerms struct {
	MaxSize int64  // at most this many bytes (0: the setting)
	Size    *int64 // exactly this many (the size the client declared or was authorized)
	SHA256  string // hex sha256 the bytes must have ("" : any)
	Claim   Claim  // how the name is taken when the bytes arrive
}

// Presigned is a token and when it stops working.
type Presigned struct {
	Token     string
	ExpiresAt time.Time
	// ID names the token in the audit trail without being it: the start of
	// the hash its record is kept under. FileID is the file a download
	// token is for (its blob's random id, never derived from its name).
	ID     string
	FileID string
}

// tokenID is the token's audit name: 16 hex digits of its key's hash, which
// no request can turn back into the token.
func tokenID(token string) string { return tokenKey(token)[len(prefixToken):][:16] }

func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return prefixToken + hex.EncodeToString(sum[:])
}

func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (s *Store) issue(rec tokenRecord, life time.Duration) (Presigned, error) {
	tok, err := newToken()
	if err != nil {
		return Presigned{}, err
	}
	rec.ExpiresAt = s.Now().Add(life).UTC()
	raw, err := json.Marshal(rec)
	if err != nil {
		return Presigned{}, err
	}
	// The KV expiry removes the record; ExpiresAt is checked as well because
	// KV expiry is swept lazily.
	if err := s.kv.Set(tokenKey(tok), raw, life); err != nil {
		return Presigned{}, err
	}
	return Presigned{Token: tok, ExpiresAt: rec.ExpiresAt, ID: tokenID(tok)}, nil
}

// PresignDownload issues a reusable download token for one of the caller's
// files.
func (s *Store) PresignDownload(userID, name string) (Presigned, error) {
	f, err := s.Stat(userID, name)
	if err != nil {
		return Presigned{}, err
	}
	p, err := s.issue(tokenRecord{Kind: KindDownload, UserID: userID, Name: f.Name, SHA256: f.SHA256}, DownloadLifetime)
	p.FileID = f.Blob
	return p, err
}

// PresignUpload issues a single-use upload token that writes name in the
// caller's workspace, held to t.
func (s *Store) PresignUpload(userID, name string, t UploadTerms) (Presigned, error) {
	if _, err := resolve(userID, name); err != nil {
		return Presigned{}, err
	}
	return s.issue(tokenRecord{Kind: KindUpload, UserID: userID, Name: name, MaxSize: t.MaxSize, SHA256: t.SHA256, Size: t.Size, Claim: t.Claim}, UploadLifetime)
}

// lookup finds a live token of a kind. Unknown, expired and wrong-kind
// tokens are all ErrNotFound.
func (s *Store) lookup(token string, kind Kind) (tokenRecord, []byte, error) {
	if len(token) == 0 || len(token) > 128 {
		return tokenRecord{}, nil, ErrNotFound
	}
	raw, err := s.kv.Get(tokenKey(token))
	if err != nil {
		return tokenRecord{}, nil, err
	}
	if raw == nil {
		return tokenRecord{}, nil, ErrNotFound
	}
	var rec tokenRecord
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Kind != kind || !s.Now().Before(rec.ExpiresAt) {
		return tokenRecord{}, nil, ErrNotFound
	}
	return rec, raw, nil
}

// Download resolves a download token to the file it names.
func (s *Store) Download(token string) (userID string, f File, err error) {
	rec, _, err := s.lookup(token, KindDownload)
	if err != nil {
		return "", File{}, err
	}
	f, err = s.Stat(rec.UserID, rec.Name)
	if err == nil && f.SHA256 != rec.SHA256 {
		// Replaced since the URL was made: the URL stood for the old bytes.
		return "", File{}, ErrNotFound
	}
	return rec.UserID, f, err
}

// UploadOwner is whose workspace a live upload token writes to, without
// spending the token.
func (s *Store) UploadOwner(token string) (string, error) {
	rec, _, err := s.lookup(token, KindUpload)
	return rec.UserID, err
}

// WriteUpload writes the body of a presigned upload, held to the token's
// terms and to declared, the length the request declared (nil: unknown).
//
// The token is spent only by bytes that became a file. While the body
// streams, the token is held (its record marked, by compare-and-set, until
// uploadHold from now): a second request with it is refused with
// ErrUploadBusy rather than racing the first. Once the bytes are whole the
// token is spent by compare-and-delete of that held record, just before
// the index change that makes them a file; of two requests only the one
// whose delete lands stores anything, even one whose hold ran out. A body
// cut short, too long, of the wrong sha256 or over a limit gives the hold
// back, so the sender's retry with the same URL works. Spending when the
// first byte arrives (as before) kept half files under a spent URL.
func (s *Store) WriteUpload(ctx context.Context, token string, body io.Reader, declared *int64) (File, error) {
	rec, raw, err := s.lookup(token, KindUpload)
	if err != nil {
		return File{}, err
	}
	opts := WriteOptions{MaxSize: rec.MaxSize, SHA256: rec.SHA256, Size: rec.Size, Claim: rec.Claim}
	switch {
	case declared != nil && opts.Size != nil && *declared != *opts.Size:
		return File{}, &SizeError{Received: *declared, Declared: *opts.Size, Refused: true}
	case declared != nil:
		opts.Size = declared
	}
	now := s.Now()
	if now.Before(rec.HeldUntil) {
		return File{}, ErrUploadBusy
	}
	held := rec
	held.HeldUntil = now.Add(uploadHold).UTC()
	heldRaw, err := json.Marshal(held)
	if err != nil {
		return File{}, err
	}
	key := tokenKey(token)
	// The held record outlives the hold, so an upload that began before
	// the URL expired can finish.
	ok, err := s.kv.CompareAndSet(key, raw, heldRaw, max(rec.ExpiresAt.Sub(now), uploadHold)+kvGrace)
	if err != nil {
		return File{}, err
	}
	if !ok {
		return File{}, ErrUploadBusy
	}
	spent := false
	release := func() {
		// Given back as it was; a failure leaves it held until the hold
		// ends, after which it works again.
		left := rec.ExpiresAt.Sub(s.Now())
		if left <= 0 {
			_ = s.kv.Delete(key)
			return
		}
		if spent {
			_ = s.kv.Set(key, raw, left)
			return
		}
		_, _ = s.kv.CompareAndSet(key, heldRaw, raw, left)
	}
	opts.beforeStore = func() error {
		ok, err := s.kv.CompareAndDelete(key, heldRaw)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		spent = true
		return nil
	}
	opts.afterFailedStore = release
	f, err := s.Write(ctx, rec.UserID, rec.Name, body, opts)
	if err != nil && !spent {
		release()
	}
	return f, err
}
