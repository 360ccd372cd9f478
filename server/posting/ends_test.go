package posting

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type unread struct{}

func (unread) Read([]byte) (int, error) { return 0, errors.New("the middle was read") }

func TestALargeFileWithItsSHA256OnRecordIsStagedFromItsEndsAlone(t *testing.T) {
	var asked [2]int
	st := Stream{Name: "plan.pdf", Size: MaxWholeBytes + 1, SHA256: strings.Repeat("ab", 32), Body: unread{},
		Ends: func(head, tail int) ([]byte, []byte, error) {
			asked = [2]int{head, tail}
			return []byte("%PDF-1.7\n%âãÏÓ\n1 0 obj"), []byte("%%EOF\n"), nil
		}}
	s, err := describeStream(context.Background(), Staged{Name: "plan.pdf"}, st)
	if err != nil {
		t.Fatal(err)
	}
	if s.Size != st.Size || s.SHA256 != st.SHA256 || !strings.Contains(s.Detected, "PDF") {
		t.Fatalf("staged %+v", s)
	}
	if asked != [2]int{headBytes, tailBytes} {
		t.Errorf("the ends asked were %v", asked)
	}
	// Without a sha256 on record, the whole is read (and here fails).
	st.SHA256 = ""
	if _, err := describeStream(context.Background(), Staged{Name: "plan.pdf"}, st); err == nil {
		t.Fatal("a file without a sha256 on record was staged without reading it")
	}
}
