package tools

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// The README's tool table sits between these two lines, written from the
// catalogue so that it cannot fall behind it.
const (
	toolTableStart = "<!-- The tool table is written from the catalogue: go test ./server/tools -run ReadmesToolTable -update -->"
	toolTableEnd   = "<!-- End of the tool table. -->"
)

// writesCell says in the table what a tool changes.
var writesCell = map[catalogue.Effect]string{
	catalogue.ReadsOnly:           "no",
	catalogue.ChangesOwnWorkspace: "your workspace",
	catalogue.ChangesOwnView:      "your view",
	catalogue.ChangesMattermost:   "Mattermost, once you say yes",
}

// toolTable is the README's table of every tool: the one every connection
// gets, each toolset's in the System Console's order, then the loaders a
// connection that chose its tools gets; each with what it changes and its
// description as the model reads it.
func toolTable(t *testing.T) string {
	t.Helper()
	cat := realCatalogue(t)
	var b strings.Builder
	b.WriteString("| Tool | Toolset | Writes | What it does |\n|---|---|---|---|\n")
	row := func(tool catalogue.Tool, set string) {
		desc := strings.ReplaceAll(strings.Join(strings.Fields(tool.Description), " "), "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", tool.Name, set, writesCell[tool.Effect], desc)
	}
	for _, tool := range cat.InToolset(0) {
		row(tool, "every connection")
	}
	for _, set := range config.Toolsets() {
		for _, tool := range cat.InToolset(set) {
			row(tool, set.DisplayName())
		}
	}
	for _, tool := range cat.Loaders() {
		row(tool, "a connection that chose its tools")
	}
	return b.String()
}

// TestTheReadmesToolTableIsTheCatalogues holds README.md's tool table to
// the catalogue (go test ./server/tools -run ReadmesToolTable -update
// rewrites it), as the schema snapshot is held.
func TestTheReadmesToolTableIsTheCatalogues(t *testing.T) {
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(readme, []byte(toolTableStart+"\n"))
	end := bytes.Index(readme, []byte(toolTableEnd))
	if start < 0 || end < start {
		t.Fatalf("README.md has no tool table between the lines\n%s\n%s", toolTableStart, toolTableEnd)
	}
	start += len(toolTableStart) + 1
	want := toolTable(t)
	if *update {
		if err := os.WriteFile(readmeFile, slicesConcat(readme[:start], []byte(want), readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := string(readme[start:end]); got != want {
		t.Errorf("README.md's tool table is not the catalogue's. Refresh it with: go test ./server/tools -run ReadmesToolTable -update, and review the diff.\n%s", want)
	}
	for _, tool := range realCatalogue(t).All() {
		if _, ok := writesCell[tool.Effect]; !ok {
			t.Errorf("%s changes something the table has no word for (effect %d)", tool.Name, tool.Effect)
		}
	}
}
