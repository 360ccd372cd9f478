package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"path"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// MaxNameBytes bounds a workspace file name (names.MaxFileNameBytes).
const MaxNameBytes = names.MaxFileNameBytes

// NameError says why a name is refused and what a good one looks like.
type NameError = names.FileNameError

// CheckName is the allowlist for workspace file names, the same as for
// every file name the model gives (names.CheckFile).
func CheckName(name string) error { return names.CheckFile(name) }

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
