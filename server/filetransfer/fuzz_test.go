package filetransfer

import (
	"testing"
)

// The URIs and data: URIs a client sends are untrusted input.

func FuzzParseDataURI(f *testing.F) {
	for _, s := range []string{"data:text/plain;name=tiny.txt;base64,SGVsbG8gd29ybGQh", "data:,a%20b", "data:;base64,", "data:x/y;name=\"a\";base64,AAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := ParseDataURI(s)
		if err == nil && len(in.Data) > MaxInlineBytes {
			t.Fatalf("read %d bytes, over the bound", len(in.Data))
		}
	})
}

func FuzzParseURI(f *testing.F) {
	f.Add(WorkspaceURI(alice, "deck.pdf"))
	f.Add(AttachmentURI(alice, "fileidfileidfileidfileid12"))
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParseURI(s)
		if err != nil {
			return
		}
		again := WorkspaceURI(ref.UserID, ref.Name)
		if ref.Kind == KindAttachment {
			again = AttachmentURI(ref.UserID, ref.Name)
		}
		if back, err := ParseURI(again); err != nil || back != ref {
			t.Fatalf("%q read as %+v, which writes back as %q, read as %+v (%v)", s, ref, again, back, err)
		}
	})
}
