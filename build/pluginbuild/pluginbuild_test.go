package pluginbuild

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestTheTagsAndPlatformsAreTheMakefiles(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(.*)$`).FindSubmatch(makefile)
		if m == nil {
			t.Fatalf("the Makefile sets no %s", name)
		}
		return strings.Join(strings.Fields(string(m[1])), " ")
	}
	if got := value("BUILD_TAGS"); got != Tags {
		t.Errorf("the Makefile's BUILD_TAGS are %q, pluginbuild.Tags %q", got, Tags)
	}
	if got := value("PLATFORMS"); got != strings.Join(Platforms, " ") {
		t.Errorf("the Makefile's PLATFORMS are %q, pluginbuild.Platforms %q", got, Platforms)
	}
}
