package filerequest

import (
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

// MediaType is the media type of a file from its first bytes, where they
// tell one; a generic answer (a zip, plain text, unknown bytes) gives way
// to what the name says only where the bytes can be that (so a Word
// document is not "a zip", and text named report.pdf stays text/plain).
func MediaType(head []byte, name string) string {
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	ext := strings.ToLower(path.Ext(name))
	byName, _, _ := mime.ParseMediaType(mime.TypeByExtension(ext))
	switch mt {
	case "application/octet-stream", "application/zip", "text/plain":
		if fits, _ := fileview.FitsExtension(head, name, ext); byName != "" && fits {
			return byName
		}
	}
	return mt
}

// AcceptsBytes reports whether a file whose bytes start with head and
// whose name is name is of one of the types (none: any file). The bytes
// decide: an extension is matched by fileview.FitsExtension, a media type
// on MediaType; the name only breaks the ties the bytes leave (CSV among
// text, Word among zips).
func AcceptsBytes(types []string, name string, head []byte) bool {
	if len(types) == 0 {
		return true
	}
	mt := MediaType(head, name)
	for _, t := range types {
		if strings.HasPrefix(t, ".") {
			if fits, _ := fileview.FitsExtension(head, name, t); fits {
				return true
			}
			continue
		}
		if family, ok := strings.CutSuffix(t, "/*"); ok && strings.HasPrefix(mt, family+"/") || mt == t {
			return true
		}
	}
	return false
}

// Types checks and normalizes the accepted types the model names: an
// extension (".pdf", or "pdf"), a media type ("application/pdf") or a
// family ("image/*"). It answers them lowercased, extensions with their dot.
func Types(asked []string) ([]string, error) {
	if len(asked) > MaxTypes {
		return nil, fmt.Errorf("at most %d accepted types; you gave %d", MaxTypes, len(asked))
	}
	out := make([]string, 0, len(asked))
	for _, t := range asked {
		t = strings.ToLower(strings.TrimSpace(t))
		switch {
		case t == "":
			continue
		case len(t) > maxTypeBytes:
			return nil, fmt.Errorf("an accepted type is at most %d bytes", maxTypeBytes)
		case strings.Contains(t, "/"):
			major, minor, ok := strings.Cut(t, "/")
			if !ok || !token(major) || (minor != "*" && !token(minor)) {
				return nil, fmt.Errorf("%q is not a media type such as \"application/pdf\" or \"image/*\"", t)
			}
		default:
			t = "." + strings.TrimPrefix(t, ".")
			if !token(t[1:]) {
				return nil, fmt.Errorf("%q is not an extension such as \".pdf\"", t)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// token is a run of the characters media types and extensions use,
// beginning with a letter or digit.
func token(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("+-.", c)) {
			return false
		}
	}
	return true
}

// Accepts reports whether a file of this name, whose type is said to be
// mediaType ("" when unknown), may be of one of the types (none: any
// file): what the name and the browser say, checked before a byte is read
// to refuse a file that is plainly not one. AcceptsBytes decides. An
// extension is matched on the name, a media type on mediaType or, when it
// is unknown, on the type the name implies.
func Accepts(types []string, name, mediaType string) bool {
	if len(types) == 0 {
		return true
	}
	ext := strings.ToLower(path.Ext(name))
	byName, _, _ := mime.ParseMediaType(mime.TypeByExtension(ext))
	for _, t := range types {
		if strings.HasPrefix(t, ".") {
			if strings.HasSuffix(strings.ToLower(name), t) {
				return true
			}
			continue
		}
		for _, mt := range []string{mediaType, byName} {
			if mt == "" {
				continue
			}
			if family, ok := strings.CutSuffix(t, "/*"); ok && strings.HasPrefix(mt, family+"/") || mt == t {
				return true
			}
			if mediaType != "" {
				break // the bytes' type decides where there is one
			}
		}
	}
	return false
}

// Describe says the types for the person and the model: "any file" or
// ".pdf, image/*".
func Describe(types []string) string {
	if len(types) == 0 {
		return "any file"
	}
	return strings.Join(types, ", ")
}
