package posting

import (
	"archive/zip"
	"bytes"
	"testing"
)

// FuzzSniffProbeOfAnUntrustedHeadAndTail: the head and tail of a large
// file are whatever the person uploaded. Rebuilding what Sniff reads must
// never panic, and never give more than the head and the tail hold.
func FuzzSniffProbeOfAnUntrustedHeadAndTail(f *testing.F) {
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, _ := zw.Create("word/document.xml")
	_, _ = w.Write(bytes.Repeat([]byte("<w:p/>"), 200))
	_ = zw.Close()
	whole := z.Bytes()
	f.Add(whole[:64], whole[len(whole)/2:], int64(len(whole)))
	f.Add([]byte("PK\x03\x04"), []byte("PK\x05\x06"+string(make([]byte, 18))), int64(1<<20))
	f.Add([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, []byte("tail"), int64(100))
	f.Add([]byte("caf\xc3"), []byte(nil), int64(4))
	f.Fuzz(func(t *testing.T, head, tail []byte, size int64) {
		probe := sniffProbe(head, tail, size)
		if len(probe) > len(head)+len(tail) {
			t.Fatalf("a probe of %d bytes from a head of %d and a tail of %d", len(probe), len(head), len(tail))
		}
	})
}
