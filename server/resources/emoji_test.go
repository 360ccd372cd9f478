package resources

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

var updateEmoji = flag.Bool("update-emoji", false, "rewrite webapp/src/views/emoji_data.ts from Mattermost's system emoji")

// emojiData is the thread view's table of Mattermost's system emoji (name
// and code points, as model.SystemEmojis has them), written from the
// server's own list so the two cannot drift apart. Skin-tone variants are
// left out: the view draws them from their base emoji and the tone.
func emojiData() []byte {
	tone := regexp.MustCompile(`_(light|medium_light|medium|medium_dark|dark)_skin_tone$|^skin-tone-\d$`)
	var names []string
	for name := range model.SystemEmojis {
		if !tone.MatchString(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// Generated from Mattermost's system emoji (model.SystemEmojis) by\n" +
		"// go test ./server/resources -run TestTheThreadViewKnowsMattermostsOwnEmoji -update-emoji\n" +
		"// Do not edit. name=code points (hex, '-' between), ',' between entries.\n" +
		"export const emojiData =\n")
	const perLine = 12
	for i := 0; i < len(names); i += perLine {
		var line []string
		for _, n := range names[i:min(i+perLine, len(names))] {
			line = append(line, n+"="+model.SystemEmojis[n])
		}
		sep := " +\n"
		if i+perLine >= len(names) {
			sep = ";\n"
		}
		b.WriteString("    '" + strings.Join(line, ",") + ",'" + sep)
	}
	return []byte(b.String())
}

func TestTheThreadViewKnowsMattermostsOwnEmoji(t *testing.T) {
	path := filepath.Join("..", "..", "webapp", "src", "views", "emoji_data.ts")
	got := emojiData()
	if *updateEmoji {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != string(got) {
		t.Fatalf("%s is not Mattermost's emoji of this server version (%v): rewrite it with go test ./server/resources -run %s -update-emoji", path, err, t.Name())
	}
}
