package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a workspace file name: long enough for any real file
// name, short enough to show in one line and to sit in a KV record.
const MaxNameBytes = 128

// NameError says why a name is refused and what a good one looks like.
type NameError struct{ Name, Reason string }

func (e *NameError) Error() string {
	return fmt.Sprintf("%q is not a workspace file name: %s. Use a plain file name such as report.pdf: "+
		"one name, no folders, no leading dot, at most %d bytes.", e.Name, e.Reason, MaxNameBytes)
}

// CheckName is the allowlist for workspace file names: a single path
// element, valid UTF-8, no control, invisible or direction-changing
// characters, no leading dot, no leading or trailing space, bounded length.
func CheckName(name string) error {
	refuse := func(reason string) error { return &NameError{Name: name, Reason: reason} }
	switch {
	case name == "":
		return refuse("it is empty")
	case len(name) > MaxNameBytes:
		return refuse(fmt.Sprintf("it is %d bytes long", len(name)))
	case !utf8.ValidString(name):
		return refuse("it is not valid UTF-8")
	case strings.HasPrefix(name, "."):
		return refuse("it starts with a dot")
	case strings.TrimSpace(name) != name:
		return refuse("it starts or ends with a space")
	case strings.ContainsAny(name, `/\`):
		return refuse("it contains a slash")
	}
	for _, r := range name {
		switch {
		case r == ' ':
			// The one space allowed; others (no-break, ideographic...) look alike.
		case r == utf8.RuneError:
			return refuse("it contains a replacement character")
		case unicode.IsControl(r):
			return refuse("it contains a control character")
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zs, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			// Cf holds the zero-width and bidirectional controls.
			return refuse("it contains an invisible or direction-changing character")
		case !unicode.IsGraphic(r):
			return refuse("it contains a character that cannot be shown")
		}
	}
	return nil
}

// fileRef is a name resolved against one user's space.
type fileRef struct {
	space string // hash of the user id
	name  string
}

// spaceOf addresses a user's workspace by a hash of their id, never by the
// id itself or a sanitised form of it.
func spaceOf(userID string) string {
	sum := sha256.Sum256([]byte("mcp-workspace:" + userID))
	return hex.EncodeToString(sum[:16])
}

// resolve checks a name, places it in the caller's space, and checks the
// result again: a name that would resolve to anything but itself inside
// that space is refused.
func resolve(userID, name string) (fileRef, error) {
	if err := CheckName(name); err != nil {
		return fileRef{}, err
	}
	ref := fileRef{space: spaceOf(userID), name: name}
	joined := path.Join("/", ref.space, ref.name)
	if path.Dir(joined) != "/"+ref.space || path.Base(joined) != name || CheckName(path.Base(joined)) != nil {
		return fileRef{}, &NameError{Name: name, Reason: "it does not stay inside your workspace"}
	}
	return ref, nil
}
