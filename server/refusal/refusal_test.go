package refusal

import (
	"fmt"
	"testing"
)

func TestARefusalReadsAsWhatIsWrongThenWhatToDo(t *testing.T) {
	cases := []struct {
		r    *Error
		want string
	}{
		{New("No such channel.", "Call list_channels."), "No such channel. Call list_channels."},
		{New("No such channel. ", "Call list_channels."), "No such channel. Call list_channels."},
		{New("Give a term; call list_channels.", ""), "Give a term; call list_channels."},
		{Newf("limit must be within 1 and %d.", 50), "limit must be within 1 and 50."},
	}
	for _, c := range cases {
		if got := c.r.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestARefusalIsFoundThroughWrapping(t *testing.T) {
	wrapped := fmt.Errorf("posting: %w", New("Too big.", "Shorten it."))
	r, ok := As(wrapped)
	if !ok || r.Next != "Shorten it." {
		t.Fatalf("As(%v) = %v, %v", wrapped, r, ok)
	}
	if _, ok := As(fmt.Errorf("plain")); ok {
		t.Fatal("a plain error was taken for a refusal")
	}
}
