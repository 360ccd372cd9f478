package paging

import (
	"errors"
	"testing"
)

type args struct {
	Channel string `json:"channel"`
	Limit   int    `json:"limit"`
}

func key(t *testing.T, a args) string {
	t.Helper()
	k, err := Key(a)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestACursorLeadsBackToItsPosition(t *testing.T) {
	k := key(t, args{Channel: "town-square", Limit: 30})
	c, err := Encode("read_channel", k, "post123")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(c, "read_channel", k)
	if err != nil || got != "post123" {
		t.Fatalf("Decode = %q, %v; want post123", got, err)
	}
}

func TestACursorFromAnotherToolIsRefused(t *testing.T) {
	k := key(t, args{Channel: "x"})
	c, err := Encode("search_posts", k, "30")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(c, "read_channel", k); !errors.Is(err, ErrOtherCall) {
		t.Fatalf("err = %v, want ErrOtherCall", err)
	}
}

func TestACursorReusedWithOtherArgumentsIsRefused(t *testing.T) {
	c, err := Encode("read_channel", key(t, args{Channel: "a", Limit: 30}), "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []args{{Channel: "b", Limit: 30}, {Channel: "a", Limit: 31}} {
		if _, err := Decode(c, "read_channel", key(t, other)); !errors.Is(err, ErrOtherCall) {
			t.Errorf("%+v: err = %v, want ErrOtherCall", other, err)
		}
	}
}

func TestACursorNoToolMadeIsMalformed(t *testing.T) {
	for _, s := range []string{"", "not base64!", "e30", "bm90IGpzb24"} {
		if _, err := Decode(s, "read_channel", "k"); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: err = %v, want ErrMalformed", s, err)
		}
	}
}

func TestAnOffsetIsADecimalFromZeroToMaxOffsetAndNothingNearTheIntegerMaximumPasses(t *testing.T) {
	cases := []struct {
		at   string
		want int
		err  error
	}{
		{"0", 0, nil},
		{"30", 30, nil},
		{"16777216", MaxOffset, nil},
		{"16777217", 0, ErrOutOfRange},
		{"9223372036854775807", 0, ErrOutOfRange},
		{"9223372036854775800", 0, ErrOutOfRange},
		{"99999999999999999999999", 0, ErrOutOfRange},
		{"-1", 0, ErrMalformed},
		{"-9223372036854775808", 0, ErrMalformed},
		{"1e3", 0, ErrMalformed},
		{"", 0, ErrMalformed},
		{"0x10", 0, ErrMalformed},
	}
	for _, c := range cases {
		got, err := Offset(c.at)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("Offset(%q) = %d, %v; want %d, %v", c.at, got, err, c.want, c.err)
		}
	}
}

// FuzzOffset: whatever a cursor carries, an offset that passes plus any
// page limit a tool takes neither overflows nor goes negative, so the depth
// checks and slices after it hold.
func FuzzOffset(f *testing.F) {
	for _, s := range []string{"0", "30", "16777216", "16777217", "9223372036854775807", "-1", "+5", " 7", "1_000"} {
		f.Add(s)
	}
	const largestLimit = 1000 // above every tool's page limit
	f.Fuzz(func(t *testing.T, at string) {
		n, err := Offset(at)
		if err != nil {
			if n != 0 || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrOutOfRange)) {
				t.Fatalf("Offset(%q) = %d, %v", at, n, err)
			}
			return
		}
		if n < 0 || n > MaxOffset || n+largestLimit < n {
			t.Fatalf("Offset(%q) = %d passed", at, n)
		}
	})
}
