package filetransfer

import (
	"context"
	"encoding/json"
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

func FuzzDigestSHA256Hex(f *testing.F) {
	f.Add("sha-256", helloDigest)
	f.Add("SHA-256", helloDigest+"=")
	f.Add("sha-256", helloSHA)
	f.Add("md5", "")
	f.Fuzz(func(t *testing.T, algorithm, value string) {
		sha, err := Digest{Algorithm: algorithm, Value: value}.SHA256Hex()
		if err != nil {
			return
		}
		back := DigestOfHex(sha)
		if back == nil || len(sha) != 64 {
			t.Fatalf("%q read as %q, which is no sha256", value, sha)
		}
		if again, err := back.SHA256Hex(); err != nil || again != sha {
			t.Fatalf("%q read as %q, written back as %q, read again as %q (%v)", value, sha, back.Value, again, err)
		}
	})
}

func FuzzAuthorizeUploadParams(f *testing.F) {
	f.Add(`{"name":"deck.pdf","mimeType":"application/pdf","size":5,"digest":{"algorithm":"sha-256","value":"` + helloDigest + `"}}`)
	f.Add(`{"mimeType":"text/plain"}`)
	f.Add(`{"size":-1}`)
	f.Fuzz(func(t *testing.T, params string) {
		s, b := service(alice)
		res, e := s.Serve(context.Background(), both, MethodAuthorizeUpload, json.RawMessage(params))
		if e != nil {
			if len(b.uploads) != 0 || e.Message == "" {
				t.Fatalf("refused %q (%s) after asking the backend, or without a word", params, e.Message)
			}
			return
		}
		r := b.uploads[0]
		if r.Name == "" || len(r.Name) > maxUploadNameBytes || (r.Size != nil && (*r.Size < 0 || *r.Size > 50<<20)) || (r.SHA256 != "" && len(r.SHA256) != 64) {
			t.Fatalf("%q authorized an upload held to %+v", params, r)
		}
		if a := res.(AuthorizedUpload); a.Upload.Method != "PUT" || !IsFileURI(a.File.URI) {
			t.Fatalf("%q answered %+v", params, a)
		}
	})
}
