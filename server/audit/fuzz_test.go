package audit

import (
	"testing"
	"unicode/utf8"
)

// FuzzDecodeChunk feeds the chunk decoder what a KV value could hold: it
// never panics, and what it returns is within the bounds an entry has.
func FuzzDecodeChunk(f *testing.F) {
	good, _ := encodeChunk([]stored{toStored(ev(day0, "alice", "create_post", OutcomeAsked))})
	f.Add(good)
	f.Add([]byte(`{"v":1,"e":[{"t":-1,"k":"write","u":"\u0000","g":{"a":"b"}}]}`))
	f.Add([]byte(`{"v":1,"e":null}`))
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		entries, err := decodeChunk(raw)
		if err != nil {
			return
		}
		if len(entries) > chunkEntries {
			t.Fatalf("%d entries", len(entries))
		}
		for _, e := range entries {
			if len(e.ClientName) > maxClientNameBytes || len(e.UserID) > maxFieldBytes || len(e.Tool) > maxFieldBytes ||
				len(e.Targets) > maxTargets || !utf8.ValidString(e.ClientName+e.UserID+e.Tool+e.Outcome+e.Reason) {
				t.Fatalf("an entry past its bounds: %+v", e)
			}
		}
	})
}
