// Package paging makes the opaque cursors that page tool answers. A cursor
// is bound to the tool and the arguments it was made for, so reusing it with
// other arguments or another tool is refused instead of silently answering
// the wrong page. It is not a secret and grants nothing: every page is read
// again through the caller's own access checks.
package paging

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ErrMalformed is a cursor that no tool made.
var ErrMalformed = errors.New("malformed cursor")

// ErrOtherCall is a cursor made by another tool or for other arguments.
var ErrOtherCall = errors.New("cursor made for another call")

// ErrOutOfRange is a cursor whose position lies beyond any listing a tool
// pages through.
var ErrOutOfRange = errors.New("cursor position out of range")

// MaxOffset bounds a position in a list that a cursor carries: no listing a
// tool pages through comes near it (hits stop at 500, drafts at 1,000, and
// a channel's members, the longest, in the hundreds of thousands), and an
// offset this small plus any page limit cannot overflow an int, which is
// what lets the depth checks and slicing after it trust the sum.
const MaxOffset = 1 << 24

// Offset reads a position in a list that a cursor carries: a decimal number
// from 0 to MaxOffset.
func Offset(at string) (int, error) {
	n, err := strconv.ParseInt(at, 10, 64)
	var numErr *strconv.NumError
	switch {
	case errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange):
		return 0, ErrOutOfRange
	case err != nil:
		return 0, ErrMalformed
	case n < 0:
		return 0, ErrMalformed
	case n > MaxOffset:
		return 0, ErrOutOfRange
	}
	return int(n), nil
}

type cursor struct {
	Tool string `json:"t"`
	Args string `json:"a"`
	At   string `json:"p"`
}

// Key fingerprints a call's arguments. Pass them without the cursor itself.
func Key(args any) (string, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("fingerprint arguments: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8]), nil
}

// Encode makes the cursor that continues tool, called with arguments whose
// Key is key, at position.
func Encode(tool, key, position string) (string, error) {
	raw, err := json.Marshal(cursor{Tool: tool, Args: key, At: position})
	if err != nil {
		return "", fmt.Errorf("encode cursor: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// Decode checks a cursor belongs to tool with arguments whose Key is key,
// and returns its position.
func Decode(s, tool, key string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", ErrMalformed
	}
	var c cursor
	if err := json.Unmarshal(raw, &c); err != nil || c.Tool == "" || c.At == "" {
		return "", ErrMalformed
	}
	if c.Tool != tool || c.Args != key {
		return "", ErrOtherCall
	}
	return c.At, nil
}
