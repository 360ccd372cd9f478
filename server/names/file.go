package names

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileNameBytes bounds a file name the model gives: long enough for any real file
// name, short enough to show in one line and to sit in a KV record.
const MaxFileNameBytes = 128

// FileNameError says why a name is refused and what a good one looks like.
type FileNameError struct{ Name, Reason string }

func (e *FileNameError) Error() string {
	return fmt.Sprintf("%q is not an allowed file name: %s. Use a plain file name such as report.pdf: "+
		"one name, no folders, no leading dot, at most %d bytes.", e.Name, e.Reason, MaxFileNameBytes)
}

// CheckFile is the allowlist for every file name the model gives (workspace
// files, files it writes into a post): a single path
// element, valid UTF-8, no control, invisible or direction-changing
// characters, no character that stands for a line break (LineSymbol), no
// leading dot, no leading or trailing space, bounded length.
func CheckFile(name string) error {
	refuse := func(reason string) error { return &FileNameError{Name: name, Reason: reason} }
	switch {
	case name == "":
		return refuse("it is empty")
	case len(name) > MaxFileNameBytes:
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
	if char, why := LineSymbol(name); char != "" {
		return refuse("it contains " + char + " (" + why + "); remove it")
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
