package filetransfer

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// MaxInlineBytes bounds one file given as a data: URI, decoded: it
// travels inside the tool call, which the transport bounds at 24 MiB, so
// two such files still fit; a larger file goes by files/authorizeUpload,
// whose bytes never pass through JSON.
const MaxInlineBytes = 8 << 20

// maxInlineEncoded is the longest data: URI read: the base64 of
// MaxInlineBytes and a header of parameters. Longer is refused before
// anything is decoded.
var maxInlineEncoded = base64.StdEncoding.EncodedLen(MaxInlineBytes) + maxHeaderBytes

// maxHeaderBytes bounds a data: URI's media type and parameters.
const maxHeaderBytes = 1024

// Inline is a file given as a data: URI.
type Inline struct {
	Name      string
	MediaType string
	Data      []byte
}

// unnamedStem is the name of a file given without one, before its
// extension.
const unnamedStem = "file"

// NameFor is the name of a file of mediaType given without a name:
// "file" and the type's usual extension ("file.txt" for text/plain), or
// no extension for a type nothing knows.
func NameFor(mediaType string) string { return unnamedStem + names.Extension(mediaType) }

// TypeOf is the media type a file's name says, for a FileValue's
// mimeType ("" when nothing knows the extension). The workspace describes
// what it sniffed in words ("PNG image"), which is no media type.
func TypeOf(name string) string { return names.MediaType(name) }

// FileName is the name the inline file is kept under: its name parameter,
// or one made from its type.
func (in Inline) FileName() string {
	if in.Name != "" {
		return in.Name
	}
	return NameFor(in.MediaType)
}

// ErrTooLarge is an inline file over MaxInlineBytes.
var ErrTooLarge = fmt.Errorf("a data: URI holds at most %d MiB", MaxInlineBytes>>20)

// IsDataURI is whether s is a data: URI.
func IsDataURI(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "data:") }

// ParseDataURI reads an RFC 2397 data: URI, with the name parameter an
// earlier SEP-2356 draft gave it (data:text/plain;name=tiny.txt;base64,...)
// when it is there. Its length is checked before it is decoded.
func ParseDataURI(s string) (Inline, error) {
	if !IsDataURI(s) {
		return Inline{}, errors.New("not a data: URI")
	}
	if len(s) > maxInlineEncoded {
		return Inline{}, ErrTooLarge
	}
	header, payload, ok := strings.Cut(s[5:], ",")
	if !ok || len(header) > maxHeaderBytes {
		return Inline{}, errors.New("a data: URI needs a header of at most 1 KiB, a comma, then the bytes")
	}
	parts := strings.Split(header, ";")
	in := Inline{MediaType: strings.ToLower(strings.TrimSpace(parts[0]))}
	if in.MediaType == "" {
		in.MediaType = "text/plain"
	}
	if _, _, err := mime.ParseMediaType(in.MediaType); err != nil {
		return Inline{}, fmt.Errorf("its media type %q cannot be read", in.MediaType)
	}
	b64 := false
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		if strings.EqualFold(p, "base64") {
			b64 = true
			continue
		}
		if k, v, ok := strings.Cut(p, "="); ok && strings.EqualFold(strings.TrimSpace(k), "name") {
			n, err := url.PathUnescape(strings.Trim(v, `"`))
			if err != nil {
				return Inline{}, errors.New("its name parameter is not percent-encoded text")
			}
			in.Name = n
		}
	}
	var err error
	if b64 {
		in.Data, err = base64.StdEncoding.DecodeString(payload)
		if err != nil {
			// Some encoders leave the padding out.
			in.Data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
		}
		if err != nil {
			return Inline{}, errors.New("its bytes are not base64")
		}
	} else {
		text, err := url.PathUnescape(payload)
		if err != nil {
			return Inline{}, errors.New("its bytes are not percent-encoded")
		}
		in.Data = []byte(text)
	}
	if len(in.Data) > MaxInlineBytes {
		return Inline{}, ErrTooLarge
	}
	return in, nil
}
