package workspace

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestTheEndsOfAFileAreReadWithoutItsMiddle(t *testing.T) {
	s, _ := newStore(t, roomy)
	data := make([]byte, 3*ChunkSize+1234)
	for i := range data {
		data[i] = byte(i * 7)
	}
	f, err := s.Write(context.Background(), alice, "big.bin", bytes.NewReader(data), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ head, tail int }{{64 << 10, 1<<20 + 64<<10}, {10, 10}, {len(data) + 5, len(data) + 5}, {ChunkSize, ChunkSize + 1234}} {
		h, tl, err := s.Ends(f, tc.head, tc.tail)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(h, data[:min(tc.head, len(data))]) || !bytes.Equal(tl, data[len(data)-min(tc.tail, len(data)):]) {
			t.Errorf("head %d, tail %d: the ends are not the file's", tc.head, tc.tail)
		}
	}
	// A chunk gone is a changed file, not short ends.
	_ = s.kv.Delete(chunkKey(f.Blob, 3))
	if _, _, err := s.Ends(f, 10, 10); !errors.Is(err, ErrChanged) {
		t.Fatalf("a missing chunk: %v, want ErrChanged", err)
	}
}
