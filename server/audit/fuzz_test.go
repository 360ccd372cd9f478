package audit

import (
	"fmt"
	"strings"
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

// FuzzADaysHeadAndPeople feeds the head and the index of people what a KV
// value could hold: they never panic, a head's figures stay within a day,
// and a person's chunks are chunks a day has.
func FuzzADaysHeadAndPeople(f *testing.F) {
	f.Add([]byte(`{"n":20001,"d":-1,"i":-5,"p":{"a":-1},"x":null,"r":-3}`), []byte(`{"v":2,"u":{"a":"ffffffffffffffffffffffffff"}}`))
	f.Add([]byte(`{"n":3,"i":99}`), []byte(`{"v":2,"u":{"a":"zz","b":"00"}}`))
	f.Add([]byte(`null`), []byte(`{"v":1,"u":{"a":[1,2]}}`))
	f.Fuzz(func(t *testing.T, rawHead, rawPeople []byte) {
		h := readHead(rawHead)
		if h.Count < 0 || h.Count > DayCap || h.Dropped < 0 || h.Repeated < 0 || h.People == nil || h.Cut == nil || h.Counts == nil ||
			h.Indexed != nil && (*h.Indexed < 0 || *h.Indexed > h.Count) {
			t.Fatalf("a head past its bounds: %+v", h)
		}
		for user, set := range readPeople(rawPeople).Users {
			c := parseChunkSet(set)
			for n := -1; n <= DayCap/chunkEntries; n++ {
				if c.has(n) && (n < 0 || n >= DayCap/chunkEntries) {
					t.Fatalf("%s holds chunk %d", user, n)
				}
			}
		}
	})
}

func TestAChunkSetHoldsTheChunksOfADayAndNothingElse(t *testing.T) {
	cases := []struct {
		add  []int
		want []int
	}{
		{nil, nil},
		{[]int{0}, []int{0}},
		{[]int{99, 0, 7, 8, 7}, []int{0, 7, 8, 99}},
		{[]int{-1, 100, 1 << 20}, nil},
	}
	for _, c := range cases {
		var set chunkSet
		for _, n := range c.add {
			set.add(n)
		}
		set = parseChunkSet(set.String())
		var got []int
		for n := -1; n <= DayCap/chunkEntries; n++ {
			if set.has(n) {
				got = append(got, n)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("added %v: holds %v, want %v", c.add, got, c.want)
		}
	}
	for _, bad := range []string{"", "zz", "00", strings.Repeat("f", 28)} {
		if parseChunkSet(bad) != (chunkSet{}) {
			t.Errorf("%q read as a set", bad)
		}
	}
}
