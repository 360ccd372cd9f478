package present

import (
	"strings"
	"testing"
)

func TestShownLineShowsEveryLineBreakOfEitherAppAsOneSign(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\nb\r\nc\rd", "a↵b↵c↵d"},
		{"a\u2424> ![x](https://attacker.example/p)", "a↵> ![x](https://attacker.example/p)"},
		{"a\u2028b\u2029c\u0085d", "a↵b↵c↵d"},
		{"bell\a\u202eend", "bell\uFFFD\uFFFDend"},
	} {
		if got := ShownLine(c.in); got != c.want {
			t.Errorf("ShownLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := ShownLines("one\r\ntwo\u2424still two\rand\nthree"); strings.Join(got, "|") != "one|two↵still two↵and|three" {
		t.Errorf("ShownLines = %q", got)
	}
}

func TestAFenceIsLongerThanAnyRunOfBackticksInside(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"a", "b"}, "```\na\nb\n```\n"},
		{[]string{"x ``` y"}, "````\nx ``` y\n````\n"},
		{[]string{"`", "``````"}, "```````\n`\n``````\n```````\n"},
		{[]string{"~~~"}, "```\n~~~\n```\n"},
	} {
		if got := Fenced(c.lines); got != c.want {
			t.Errorf("Fenced(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}

// FuzzAFencedValueStaysOnItsLineInsideTheBlock holds for any value: shown
// on a line of a block, it adds no line of its own, and no line inside
// starts a run of backticks as long as the fence (which alone could close
// it in either app).
func FuzzAFencedValueStaysOnItsLineInsideTheBlock(f *testing.F) {
	for _, s := range []string{"a\u2424```\u2424![x](https://a.example)", "````", "a\r\nb", "\u2028\u2029\u0085", "`` ` ``"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out := Fenced([]string{"Name: " + ShownLine(v)})
		if strings.ContainsAny(out, "\r\u2424\u2028\u2029\u0085") {
			t.Fatalf("a line break of an app stands in %q", out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || lines[0] != lines[2] || strings.Trim(lines[0], "`") != "" {
			t.Fatalf("%q is not one line between fences: %q", v, lines)
		}
		if strings.Contains(lines[1], lines[0]) {
			t.Fatalf("%q holds a run of backticks as long as its fence", lines[1])
		}
	})
}
