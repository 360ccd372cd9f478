package workspace

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

const (
	// HandleLifetime is how long a handle can be redeemed: long enough to
	// upload the bytes and have the person confirm the post.
	HandleLifetime = time.Hour
	// RedeemSlots bounds concurrent redemptions in one plugin process; each
	// holds one 1 MiB chunk of the file at a time while it streams.
	RedeemSlots = 4

	// handleType is the type claim: only a value signed with this claim is
	// a handle, whatever else is ever signed with the same secret.
	handleType   = "mcp-workspace-upload-handle"
	handlePrefix = "mmws1."
	keySecret    = "ws_secret"
	// maxHandleLen bounds what the parser looks at.
	maxHandleLen = 2048
)

// Handle errors: each is refused; ErrNotFound also answers for another
// user's handle.
var (
	ErrInvalidHandle = errors.New("not a valid upload handle")
	ErrExpiredHandle = errors.New("the upload handle has expired")
)

// Claims are what a handle carries.
type Claims struct {
	Type    string `json:"typ"`
	UserID  string `json:"sub"`
	Name    string `json:"file"`
	MaxSize int64  `json:"max"`
	SHA256  string `json:"sha256,omitempty"`
	Expires int64  `json:"exp"` // Unix seconds
	ID      string `json:"jti"`
}

// SignHandle encodes and signs claims.
func SignHandle(secret []byte, c Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	body := handlePrefix + base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(mac(secret, body)), nil
}

func mac(secret []byte, body string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// ParseHandle verifies a handle's signature and type claim and returns its
// claims; it does not check the user or the expiry (RedeemStream does).
func ParseHandle(secret []byte, handle string) (Claims, error) {
	if len(handle) > maxHandleLen || !strings.HasPrefix(handle, handlePrefix) {
		return Claims{}, ErrInvalidHandle
	}
	dot := strings.LastIndexByte(handle, '.')
	if dot <= len(handlePrefix) {
		return Claims{}, ErrInvalidHandle
	}
	body, sig := handle[:dot], handle[dot+1:]
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(secret, body)) {
		return Claims{}, ErrInvalidHandle
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(body[len(handlePrefix):])
	if err != nil {
		return Claims{}, ErrInvalidHandle
	}
	var c Claims
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Type != handleType || c.UserID == "" || c.MaxSize <= 0 || CheckName(c.Name) != nil {
		return Claims{}, ErrInvalidHandle
	}
	return c, nil
}

// Upload is request_upload's answer: where to PUT, the handle to pass on,
// and the limits.
type Upload struct {
	Name      string
	Token     string // goes in the upload URL
	ExpiresAt time.Time
	MaxSize   int64
	SHA256    string
	Handle    string
	// HandleID and TokenID name the handle and the upload token in the
	// audit trail without being them.
	HandleID, TokenID string
}

// RequestUpload prepares an upload slot in the caller's workspace: a
// single-use upload token and a handle bound to the caller, the file, the
// size cap and the optional pin.
func (s *Store) RequestUpload(userID, name string, expectedSize int64, pin string) (Upload, error) {
	if _, err := resolve(userID, name); err != nil {
		return Upload{}, err
	}
	limits := s.limits()
	if expectedSize > limits.MaxFileBytes {
		return Upload{}, ErrTooLarge
	}
	used, err := s.Usage(userID)
	if err != nil {
		return Upload{}, err
	}
	if existing, err := s.Stat(userID, name); err == nil {
		used -= existing.Size
	}
	if used+expectedSize > limits.QuotaBytes {
		return Upload{}, ErrQuota
	}
	maxSize := limits.MaxFileBytes
	if expectedSize > 0 {
		maxSize = expectedSize
	}
	pin = strings.ToLower(strings.TrimSpace(pin))
	if pin != "" {
		if b, err := hex.DecodeString(pin); err != nil || len(b) != sha256.Size {
			return Upload{}, ErrBadPin
		}
	}
	p, err := s.PresignUpload(userID, name, UploadTerms{MaxSize: maxSize, SHA256: pin})
	if err != nil {
		return Upload{}, err
	}
	secret, err := s.secret.Bytes()
	if err != nil {
		return Upload{}, err
	}
	id, err := randomHex(12)
	if err != nil {
		return Upload{}, err
	}
	h, err := SignHandle(secret, Claims{Type: handleType, UserID: userID, Name: name, MaxSize: maxSize, SHA256: pin,
		Expires: s.Now().Add(HandleLifetime).Unix(), ID: id})
	if err != nil {
		return Upload{}, err
	}
	return Upload{Name: name, Token: p.Token, ExpiresAt: p.ExpiresAt, MaxSize: maxSize, SHA256: pin, Handle: h, HandleID: id, TokenID: p.ID}, nil
}

// RedeemedFile is the file a handle stands for, verified. Its bytes come
// as the stream RedeemStream hands over; Bytes is nil there and is filled
// only by callers that read the stream whole (tests).
type RedeemedFile struct {
	Name   string
	Size   int64
	SHA256 string
	Type   string
	Bytes  []byte
}

// HandleFor signs a handle for a file already in the caller's workspace,
// pinned to its size and sha256 (a file the person gave through a file
// request): a posting tool redeems it as it redeems any handle, and a file
// changed since is refused. It answers the handle and its audit id.
func (s *Store) HandleFor(userID string, f File) (handle, id string, err error) {
	secret, err := s.secret.Bytes()
	if err != nil {
		return "", "", err
	}
	if id, err = randomHex(12); err != nil {
		return "", "", err
	}
	handle, err = SignHandle(secret, Claims{Type: handleType, UserID: userID, Name: f.Name, MaxSize: max(f.Size, 1), SHA256: f.SHA256,
		Expires: s.Now().Add(HandleLifetime).Unix(), ID: id})
	return handle, id, err
}

// Limits is the workspace's bounds as the admin set them now.
func (s *Store) Limits() Limits { return s.limits() }
