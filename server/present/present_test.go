package present

import (
	"strings"
	"testing"
)

func TestNameShowsHiddenCharactersOnOneLineAndCleanDecodesNothing(t *testing.T) {
	in := "Sales\n" + string(rune(0xE0068)) + string(rune(0xE0069)) + "\u202E"
	if got := Name(in); got != "Sales\uFFFD⟨hidden text \"hi\"⟩⟨U+202E⟩" {
		t.Errorf("Name(%q) = %q", in, got)
	}
	// Clean is for what the person reads: decoded text there could be
	// markup, so it stays as it was.
	if got := Clean(in); strings.Contains(got, "hi") || strings.Contains(got, "\n") {
		t.Errorf("Clean(%q) = %q", in, got)
	}
}

func TestTextKeepsLineBreaksAndCountsWhatWasHidden(t *testing.T) {
	got, f := Text("a\nb\u200B")
	if got != "a\nb⟨U+200B⟩" || f.Chars != 1 {
		t.Errorf("Text = %q, %+v", got, f)
	}
}
