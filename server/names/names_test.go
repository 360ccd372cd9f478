package names

import (
	"slices"
	"strings"
	"testing"
)

func TestNamesMatchWhateverTheCaseSpacesDashesOrLeadingTilde(t *testing.T) {
	for _, pair := range [][2]string{
		{"Town Square", "town-square"},
		{"~town-square", "town-square"},
		{"TOWN_SQUARE", "Town Square"},
		{"@alice", "alice"},
	} {
		if !Same(pair[0], pair[1]) {
			t.Errorf("%q and %q should match", pair[0], pair[1])
		}
	}
	if Same("town", "town-square") || Same("", "") {
		t.Error("different or empty names must not match")
	}
}

func TestEditDistanceCountsRunes(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"marketng", "marketing", 1}, {"café", "cafe", 1}}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestATypoFindsTheClosestNamesFirstAndNothingFarAway(t *testing.T) {
	cands := []Candidate{
		{Key: "research", Names: []string{"market-research", "Market Research"}},
		{Key: "marketing", Names: []string{"marketing", "Marketing"}},
		{Key: "random", Names: []string{"off-topic", "Random Chatter"}},
	}
	got := Closest("marketng", cands, 5)
	if len(got) == 0 || got[0] != "marketing" {
		t.Fatalf("Closest = %v, want marketing first", got)
	}
	if slices.Contains(got, "random") {
		t.Fatalf("Closest = %v includes an unrelated name", got)
	}
	if got := Closest("market", cands, 5); !slices.Contains(got, "research") || !slices.Contains(got, "marketing") {
		t.Fatalf("a shared prefix should find both market channels, got %v", got)
	}
	if got := Closest("zzzzzzzz", cands, 5); len(got) != 0 {
		t.Fatalf("nothing is close to zzzzzzzz, got %v", got)
	}
}

func TestChannelURLsPermalinksAndMessageURLsAreRead(t *testing.T) {
	cases := map[string]Link{
		"https://mm.example.com/acme/channels/town-square":           {Team: "acme", Channel: "town-square"},
		"http://127.0.0.1:8065/sub/path/acme/channels/off-topic?x=1": {Team: "acme", Channel: "off-topic"},
		"https://mm.example.com/acme/pl/abcdefghijklmnopqrstuvwxyz":  {Team: "acme", Post: "abcdefghijklmnopqrstuvwxyz"},
		"https://mm.example.com/_redirect/pl/abc":                    {Post: "abc"},
		"https://mm.example.com/acme/messages/@bob":                  {Team: "acme", Person: "bob"},
		"https://mm.example.com/acme/messages/0123abcd":              {Team: "acme", Group: "0123abcd"},
	}
	for in, want := range cases {
		got, ok := ParseLink(in)
		if !ok || got != want {
			t.Errorf("ParseLink(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"town-square", "~town-square", "https://mm.example.com/", "https://mm.example.com/acme/boards/x", "ftp://x/a/channels/b"} {
		if _, ok := ParseLink(in); ok {
			t.Errorf("ParseLink(%q) should not be a link", in)
		}
	}
}

func TestAFileNameHoldingASignForALineBreakIsRefused(t *testing.T) {
	for _, name := range []string{"a\u2424b.txt", "a\u21B5.txt", "x\u240A.csv", "x\u240D.csv"} {
		err := CheckFile(name)
		if err == nil || !strings.Contains(err.Error(), "U+") || !strings.Contains(err.Error(), "remove it") || !strings.Contains(err.Error(), "Use a plain file name") {
			t.Errorf("CheckFile(%q) = %v", name, err)
		}
	}
	if err := CheckFile("tide ↑ table.csv"); err != nil {
		t.Errorf("a name with an arrow that is no line break was refused: %v", err)
	}
}
