package workspace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

func redeemStream(s *Store, user, handle string) (RedeemedFile, []byte, error) {
	var got RedeemedFile
	var data []byte
	err := s.RedeemStream(context.Background(), user, handle, func(f RedeemedFile, r io.Reader) error {
		got = f
		var err error
		data, err = io.ReadAll(r)
		return err
	})
	return got, data, err
}

func TestAStreamedRedemptionGivesTheUploadedBytesAndRefusesWhatRedeemRefuses(t *testing.T) {
	s, now := newStore(t, roomy)
	data := bytes.Repeat([]byte("0123456789abcdef"), (2*ChunkSize+100)/16)
	up := upload(t, s, alice, "big.bin", data, sha(data))
	f, got, err := redeemStream(s, alice, up.Handle)
	if err != nil || !bytes.Equal(got, data) || f.SHA256 != sha(data) || f.Size != int64(len(data)) || f.Bytes != nil {
		t.Fatalf("redeemed %d bytes, %+v, %v", len(got), f, err)
	}
	if _, _, err := redeemStream(s, bob, up.Handle); !errors.Is(err, ErrNotFound) {
		t.Errorf("another user's handle: %v", err)
	}
	// Replaced by bytes the pin does not match: refused before a byte streams.
	write(t, s, alice, "big.bin", data[:len(data)-1])
	if _, got, err := redeemStream(s, alice, up.Handle); !errors.Is(err, ErrPinMismatch) || got != nil {
		t.Errorf("changed bytes: %v, %d bytes streamed", err, len(got))
	}
	write(t, s, alice, "big.bin", append(data, '!'))
	if _, _, err := redeemStream(s, alice, up.Handle); !errors.Is(err, ErrTooLarge) {
		t.Errorf("larger bytes: %v", err)
	}
	*now = now.Add(HandleLifetime)
	if _, _, err := redeemStream(s, alice, up.Handle); !errors.Is(err, ErrExpiredHandle) {
		t.Errorf("expired: %v", err)
	}
}

func TestAStreamWhoseStoredChunksAreNotTheRecordedBytesEndsInErrChanged(t *testing.T) {
	s, _ := newStore(t, roomy)
	data := bytes.Repeat([]byte("abcdefgh"), (2*ChunkSize+10)/8)
	f := write(t, s, alice, "r.bin", data)
	cases := map[string]func(){
		"a chunk with other bytes": func() { _ = s.kv.Set(chunkKey(f.Blob, 1), bytes.Repeat([]byte("x"), ChunkSize), Retention) },
		"a missing chunk":          func() { _ = s.kv.Delete(chunkKey(f.Blob, 1)) },
		"a longer last chunk":      func() { _ = s.kv.Set(chunkKey(f.Blob, 2), bytes.Repeat([]byte("y"), 20), Retention) },
	}
	for name, spoil := range cases {
		write(t, s, alice, "r.bin", data)
		f, _ = s.Stat(alice, "r.bin")
		spoil()
		_, rc, err := s.OpenVerified(alice, "r.bin", int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); !errors.Is(err, ErrChanged) {
			t.Errorf("%s: %v", name, err)
		}
		_ = rc.Close()
	}
	if _, _, err := s.OpenVerified(alice, "r.bin", int64(len(data))-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
}
