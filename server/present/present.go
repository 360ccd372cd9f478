// Package present writes what the model reads about Mattermost objects, so
// every answer describes posts and files the same way and says what to call
// next.
package present

import (
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
)

// FileRef is an attachment as listed beside a post: enough to decide
// whether to read it, and the id read_file takes.
type FileRef struct {
	ID   string `json:"file_id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

// RefOf describes a file info.
func RefOf(info *model.FileInfo) FileRef {
	typ := info.MimeType
	if typ == "" {
		typ = "unknown type"
	}
	return FileRef{ID: info.Id, Name: Name(info.Name), Type: typ, Size: info.Size}
}

// FileLine is one attachment in a post listing, with the call that reads it.
func FileLine(f FileRef) string {
	return fmt.Sprintf("attachment %q (%s, %s) file_id=%s: read it with read_file(file_id=%q)",
		Name(f.Name), f.Type, Size(f.Size), f.ID, f.ID)
}

// Size renders a byte count for people and models alike.
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", float64(n)/float64(div), "KMGTP"[exp], n)
}

// Permalink is where a person opens a post in Mattermost.
func Permalink(siteURL, teamName, postID string) string {
	if teamName == "" {
		// Direct and group messages have no team; Mattermost redirects
		// /_redirect/pl/<id> to the right place.
		return strings.TrimRight(siteURL, "/") + "/_redirect/pl/" + postID
	}
	return strings.TrimRight(siteURL, "/") + "/" + teamName + "/pl/" + postID
}

// Clean replaces control and bidirectional-override characters in names a
// user chose, so they cannot disguise themselves or break the layout.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f:
			return '\uFFFD'
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F:
			return '\uFFFD'
		}
		return r
	}, s)
}

// Name is a name or a one-line text that someone chose (a channel, a person,
// a file, a status), as the model reads it: the characters Mattermost does
// not display are made visible (package hidden), so nothing in it is hidden
// from the person, and line breaks become U+FFFD. Clean stays for what the
// person reads, where decoded text would turn into markup.
func Name(s string) string {
	out, _ := hidden.Line(s)
	return out
}

// Text is a message someone wrote (a post, a header, a file's text), as
// the model reads it, and what was hidden in it for the note that
// hidden.Found writes.
func Text(s string) (string, hidden.Found) { return hidden.Reveal(s) }

// Count is a number with its noun, "1 reply" or "3 replies", so that no
// answer reads "1 replies".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Cut shortens s to at most n characters (runes, so a character is never
// cut in half) and says whether it did.
func Cut(s string, n int) (string, bool) {
	if r := []rune(s); len(r) > n {
		return string(r[:n]), true
	}
	return s, false
}

// FirstLines is the start of a message: at most n lines and runes
// characters, and whether anything was left out.
func FirstLines(msg string, n, runes int) (string, bool) {
	cut := false
	if lines := strings.SplitN(msg, "\n", n+1); len(lines) > n {
		msg, cut = strings.Join(lines[:n], "\n"), true
	}
	msg, shortened := Cut(msg, runes)
	return msg, cut || shortened
}
