package config

import (
	"strings"
	"testing"
)

func TestAToolLeftOutThatIsNoToolIsRefusedNamingTheNearestOnes(t *testing.T) {
	known := []string{"create_post", "delete_post", "update_post", "read_file", "read_thread"}
	for _, c := range []struct {
		excluded string
		want     []string // "" when accepted
	}{
		{"", nil},
		{"delete_post, read_file", nil},
		{"delete_pots", []string{`"Tools to leave out" names "delete_pots", which is no tool of this plugin`, "nearest tools are delete_post"}},
		{"read_file, frobnicate", []string{`"frobnicate"`, "write the names as the tool list shows them (such as delete_post)"}},
		{"get_me", []string{"get_me, which is always offered", "Remove it from the list"}},
	} {
		cfg, err := Parse(map[string]any{"ExcludedTools": c.excluded})
		if err != nil {
			t.Fatalf("%q: %v", c.excluded, err)
		}
		err = cfg.CheckExcludedTools(known, "get_me")
		if c.want == nil {
			if err != nil {
				t.Errorf("%q refused: %v", c.excluded, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q accepted", c.excluded)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", c.excluded, err, w)
			}
		}
	}
}
