package filetransfer

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// DigestSHA256 is the one digest algorithm the SEP asks every
// implementation to support, and the only one the workspace checks.
const DigestSHA256 = "sha-256"

// maxDigestValueBytes bounds a digest's value before it is decoded: the
// base64url of 32 bytes is 43 characters, 44 padded.
const maxDigestValueBytes = 64

// Digest is the SEP's FileDigest: an algorithm and the digest of the
// whole file as base64url without padding.
type Digest struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"value"`
}

// Reasons a digest is refused (data.reason).
var (
	errDigestAlgorithm = errors.New("unsupportedDigestAlgorithm")
	errDigestValue     = errors.New("invalidDigest")
)

// SHA256Hex reads a client's digest as the hex sha256 the workspace pins
// an upload to. Only sha-256 is taken; its value is base64url (padding
// tolerated, as some encoders add it) of exactly 32 bytes.
func (d Digest) SHA256Hex() (string, error) {
	if !strings.EqualFold(strings.TrimSpace(d.Algorithm), DigestSHA256) {
		return "", errDigestAlgorithm
	}
	v := strings.TrimRight(strings.TrimSpace(d.Value), "=")
	if len(v) > maxDigestValueBytes {
		return "", errDigestValue
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(v)
	if err != nil || len(b) != sha256.Size {
		return "", errDigestValue
	}
	return hex.EncodeToString(b), nil
}

// DigestOfHex is the digest of a file whose sha256 the workspace keeps in
// hex; nil when it is not one.
func DigestOfHex(sha string) *Digest {
	b, err := hex.DecodeString(sha)
	if err != nil || len(b) != sha256.Size {
		return nil
	}
	return &Digest{Algorithm: DigestSHA256, Value: base64.RawURLEncoding.EncodeToString(b)}
}
