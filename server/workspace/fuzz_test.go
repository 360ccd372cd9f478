package workspace

import (
	"bytes"
	"path"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func FuzzCheckNameAcceptsOnlySinglePlainElements(f *testing.F) {
	for _, seed := range []string{"report.pdf", "../x", ".env", "a\u202eb", "图表.png", "a/b", "", " x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if !utf8.ValidString(name) || len(name) > MaxNameBytes || strings.HasPrefix(name, ".") ||
			strings.ContainsAny(name, "/\\\x00") || path.Base(name) != name {
			t.Fatalf("accepted %q", name)
		}
		if _, err := resolve("someone", name); err != nil {
			t.Fatalf("accepted %q but resolution refused it: %v", name, err)
		}
	})
}

func FuzzParseHandleNeverAcceptsWhatWasNotSigned(f *testing.F) {
	secret := bytes.Repeat([]byte{1}, 32)
	good, _ := SignHandle(secret, Claims{Type: handleType, UserID: "u", Name: "a.bin", MaxSize: 5, Expires: time.Now().Unix()})
	f.Add(good)
	f.Add("mmws1..")
	f.Add("9xuqwrwgstrb3mzrxb83nb357a")
	f.Fuzz(func(t *testing.T, handle string) {
		c, err := ParseHandle(secret, handle)
		if err != nil {
			return
		}
		// Whatever parses must be exactly what SignHandle produces for its claims.
		again, _ := SignHandle(secret, c)
		if c.Type != handleType || again != handle {
			t.Fatalf("accepted %q as %+v", handle, c)
		}
	})
}
