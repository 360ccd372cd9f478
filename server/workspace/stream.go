package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"time"
)

// Streaming reads for the posting pipeline: a workspace file and the file a
// handle stands for go to Mattermost one chunk at a time, so a post holds
// one chunk (ChunkSize) per file it sends, never the whole file.

// OpenVerified streams one of the caller's files of at most max bytes
// (ErrTooLarge otherwise), checked against the record it was written with:
// the read that would end the stream answers ErrChanged instead of io.EOF
// when the bytes are not the recorded count or do not have the recorded
// sha256. A chunk that disappears while streaming (the file was deleted or
// replaced) is ErrChanged too.
func (s *Store) OpenVerified(userID, name string, max int64) (File, io.ReadCloser, error) {
	f, rc, err := s.Open(userID, name)
	if err != nil {
		return File{}, nil, err
	}
	if f.Size > max {
		_ = rc.Close()
		return f, nil, ErrTooLarge
	}
	return f, &verified{r: rc, f: f, sum: sha256.New()}, nil
}

// verified passes a file's bytes through, hashing them, and turns the end
// of the stream into ErrChanged when they are not the recorded ones.
type verified struct {
	r   io.ReadCloser
	f   File
	sum hash.Hash
	n   int64
}

func (v *verified) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.sum.Write(p[:n])
	v.n += int64(n)
	if v.n > v.f.Size {
		return n, ErrChanged
	}
	if err == io.EOF && (v.n != v.f.Size || hex.EncodeToString(v.sum.Sum(nil)) != v.f.SHA256) {
		return n, ErrChanged
	}
	return n, err
}

func (v *verified) Close() error { return v.r.Close() }

// RedeemStream verifies a handle for the caller exactly as Redeem does and
// hands use the file's record (Bytes is nil) and a stream of its bytes,
// while holding one of this process's RedeemSlots. A pinned handle's pin is
// compared with the sha256 recorded when the file was written before a byte
// is read (ErrPinMismatch), and the stream is checked against that record
// as OpenVerified checks it, so what streams is the pinned file or ends in
// an error. The stream is valid only inside use.
func (s *Store) RedeemStream(ctx context.Context, userID, handle string, use func(RedeemedFile, io.Reader) error) error {
	c, err := s.handleClaims(userID, handle)
	if err != nil {
		return err
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	f, rc, err := s.OpenVerified(userID, c.Name, c.MaxSize)
	if err != nil {
		return err
	}
	defer rc.Close()
	if c.SHA256 != "" && !hexEqual(c.SHA256, f.SHA256) {
		return ErrPinMismatch
	}
	return use(RedeemedFile{Name: f.Name, Size: f.Size, SHA256: f.SHA256, Type: f.Type}, rc)
}

// handleClaims checks a handle's signature and type claim
// (ErrInvalidHandle), its user (another user's handle is ErrNotFound) and
// its expiry (ErrExpiredHandle), and returns its claims.
func (s *Store) handleClaims(userID, handle string) (Claims, error) {
	secret, err := s.secret.Bytes()
	if err != nil {
		return Claims{}, err
	}
	c, err := ParseHandle(secret, handle)
	if err != nil {
		return Claims{}, err
	}
	if c.UserID != userID {
		return Claims{}, ErrNotFound
	}
	if !s.Now().Before(time.Unix(c.Expires, 0)) {
		return Claims{}, ErrExpiredHandle
	}
	return c, nil
}
