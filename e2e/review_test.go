package e2e

import (
	"strings"
	"testing"
)

// The smaller findings of the security review (issue 17, part 4).

func TestBobWritingTheSameBytesAsAliceReadsHisOwnFileNameNotHers(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	same := numberedText(1500)
	a, b := connect(t, mm.URL, alice.Token), connect(t, mm.URL, bob.Token)
	secret := uniq(t, "alice-secret-plan") + ".png"
	if res := call(t, a, "files_write", map[string]any{"name": secret, "text": same}); res.IsError {
		t.Fatalf("alice's files_write: %s", text(res))
	}
	// Alice's first window keeps the whole text for her next one.
	if res := call(t, a, "files_read", map[string]any{"name": secret}); res.IsError || !strings.Contains(text(res), secret+": its name says") {
		t.Fatalf("alice's files_read should note her name against the bytes: %s", text(res))
	}
	mine := uniq(t, "notes") + ".png"
	if res := call(t, b, "files_write", map[string]any{"name": mine, "text": same}); res.IsError {
		t.Fatalf("bob's files_write: %s", text(res))
	}
	for _, offset := range []int{1, 501} {
		res := call(t, b, "files_read", map[string]any{"name": mine, "offset": offset})
		if res.IsError || strings.Contains(text(res), "alice-secret-plan") || !strings.Contains(text(res), mine+": its name says") {
			t.Fatalf("bob's files_read at line %d: %s", offset, text(res))
		}
	}
	listed := listWorkspace(t, bob.Token)
	for _, e := range listed {
		if strings.Contains(e.Name, "alice-secret-plan") {
			t.Fatalf("bob's workspace lists alice's file: %+v", listed)
		}
	}
}
