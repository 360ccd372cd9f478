package approval

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/secret"
)

// keyName is where the cluster's one signing key lives in the KV store, so
// that a state signed on one node verifies on every other.
const keyName = "question_signing_key"

// State is what a multi-round-trip retry carries back: it binds the answer to
// the user, the tool, the exact arguments and the pending record that holds
// the post, and expires. Single use comes from the record, which can be
// claimed once.
type questionState struct {
	UserID    string `json:"u"`
	Tool      string `json:"t"`
	Arguments string `json:"a"`
	RecordID  string `json:"r"`
	Mode      string `json:"m"`
	Expires   int64  `json:"e"`
}

// Signer signs and verifies states with the cluster's key.
type Signer struct {
	key *secret.Shared
	Now func() time.Time
}

// NewSigner signs with the cluster's question key.
func NewSigner(kv kvstore.KV, now func() time.Time) *Signer {
	return &Signer{key: &secret.Shared{KV: kv, Name: keyName}, Now: now}
}

// ErrInvalidState is a state that was altered, belongs to another call, or
// expired.
var ErrInvalidState = errors.New("the confirmation state is not valid for this call")

// Sign renders a state as the opaque requestState; it expires PendingLifetime from
// now.
func (s *Signer) Sign(st questionState) (string, error) {
	key, err := s.key.Bytes()
	if err != nil {
		return "", err
	}
	st.Expires = s.Now().Add(PendingLifetime).Unix()
	raw, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + base64.RawURLEncoding.EncodeToString(mac(key, body)), nil
}

// Verify checks a requestState against the call it came back with.
func (s *Signer) Verify(token, userID, tool, arguments string) (questionState, error) {
	key, err := s.key.Bytes()
	if err != nil {
		return questionState{}, err
	}
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return questionState{}, ErrInvalidState
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, body)) {
		return questionState{}, ErrInvalidState
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return questionState{}, ErrInvalidState
	}
	var st questionState
	if err := json.Unmarshal(raw, &st); err != nil {
		return questionState{}, ErrInvalidState
	}
	if st.UserID != userID || st.Tool != tool || st.Arguments != arguments || s.Now().Unix() > st.Expires {
		return questionState{}, ErrInvalidState
	}
	return st, nil
}

func mac(key []byte, body string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(body))
	return h.Sum(nil)
}
