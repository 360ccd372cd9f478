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
