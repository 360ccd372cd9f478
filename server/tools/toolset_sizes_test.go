package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// Every client puts tools/list in the model's context before the first
// question, so each toolset has a budget of bytes: adding a tool to one
// toolset costs its own budget, never shorter descriptions elsewhere. Each
// budget is the toolset's weight (catalogue.Weight) when it was set plus a
// stated headroom, rounded up to a half KiB; a new tool that does not fit
// pays for itself in shorter text, or raises its toolset's budget with the
// reason here.
const (
	// budgetEveryConnection: get_me weighs 783 bytes; 2 KiB more leaves
	// room for the tools every connection needs to reach the rest
	// (find_tools, load_tools).
	budgetEveryConnection = 3_072
	// budgetChannels: 16,234 bytes for 17 tools; 1 KiB more, one average
	// tool. Raised from 15,872 for search and fetch (1,582 bytes): research
	// hosts call them knowing nothing else of this server, so their
	// descriptions say what is searched and what an id is.
	budgetChannels = 17_408
	// budgetFiles: 3,888 bytes for 3 tools; 1 KiB more, one average tool.
	budgetFiles = 5_120
	// budgetPeople: 2,777 bytes for 3 tools; 1 KiB more, one average tool.
	budgetPeople = 4_096
	// budgetWorkspace: 6,201 bytes for 7 tools; 1 KiB more, one average tool;
	// then 512 bytes for the file object ChatGPT fetches in the answers of
	// files_read and save_attachment (about 160 bytes of schema each).
	budgetWorkspace = 8_192
	// budgetPosting: 11,917 bytes for 11 tools; 1 KiB more, one average tool.
	budgetPosting = 13_312
	// budgetChannelChanges: 4,536 bytes for 4 tools; 1 KiB more, one average tool.
	budgetChannelChanges = 5_632
	// budgetStatus: 1,909 bytes for 2 tools; 1 KiB more, one average tool.
	budgetStatus = 3_072
	// budgetOwnView: 7,594 bytes for 10 tools; 1 KiB more, one average tool.
	budgetOwnView = 8_704
)

// toolsetBudgets is each toolset's budget; toolset zero is the tools
// offered to every connection (catalogue.AlwaysOffered).
var toolsetBudgets = map[config.Toolset]int{
	0:                            budgetEveryConnection,
	config.ToolsetChannels:       budgetChannels,
	config.ToolsetFiles:          budgetFiles,
	config.ToolsetPeople:         budgetPeople,
	config.ToolsetWorkspace:      budgetWorkspace,
	config.ToolsetPosting:        budgetPosting,
	config.ToolsetChannelChanges: budgetChannelChanges,
	config.ToolsetStatus:         budgetStatus,
	config.ToolsetOwnView:        budgetOwnView,
}

// sizesFile shows a reviewer what each toolset weighs beside its budget,
// refreshed with the schema snapshot (-update), so a change of size is a
// reviewed diff.
var sizesFile = filepath.Join("testdata", "toolsets.md")

// measuredToolset is one toolset's share of tools/list.
type measuredToolset struct {
	name          string
	tools, weight int
	budget        int
}

// measureToolsets is every toolset's weight, the tools offered to every
// connection first, then in the System Console's order.
func measureToolsets(t *testing.T) []measuredToolset {
	t.Helper()
	cat := realCatalogue(t)
	var out []measuredToolset
	for _, set := range append([]config.Toolset{0}, config.Toolsets()...) {
		in := cat.InToolset(set)
		w, err := catalogue.Weight(in)
		if err != nil {
			t.Fatal(err)
		}
		name := set.Name()
		if set == 0 {
			name = "(every connection)"
		}
		out = append(out, measuredToolset{name: name, tools: len(in), weight: w, budget: toolsetBudgets[set]})
	}
	return out
}

// sizesTable is the Markdown the sizes file holds.
func sizesTable(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("# tools/list by toolset\n\n" +
		"What each toolset adds to `tools/list`, in bytes: each tool as tools/list sends it, and its comma\n" +
		"(`catalogue.Weight`). Each budget is a named constant in `server/tools/toolset_sizes_test.go`, with its\n" +
		"reason. Refresh with `go test ./server/tools -run Snapshot -update` and review the diff.\n\n" +
		"| toolset | tools | bytes | budget |\n|---|---:|---:|---:|\n")
	var tools, weight, budget int
	for _, m := range measureToolsets(t) {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", m.name, m.tools, thousands(m.weight), thousands(m.budget))
		tools, weight, budget = tools+m.tools, weight+m.weight, budget+m.budget
	}
	fmt.Fprintf(&b, "| the whole list: `{\"tools\":[]}` and the sum, less a comma | %d | %s | %s |\n",
		tools, thousands(wholeList(weight)), thousands(wholeList(budget)))
	return b.Bytes()
}

// wholeList is what tools/list weighs when its tools weigh weight.
func wholeList(weight int) int { return catalogue.ListEnvelope + weight - len(",") }

// thousands writes n with commas, as the budgets' reasons do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestEveryToolsetsSizeMatchesTheSnapshotInTheTree(t *testing.T) {
	got := sizesTable(t)
	if *update {
		if err := os.WriteFile(sizesFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(sizesFile)
	if err != nil {
		t.Fatalf("read the sizes: %v; make them with: go test ./server/tools -run Snapshot -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("what a toolset weighs in tools/list differs from %s.\n"+
			"If the change is meant, refresh it with: go test ./server/tools -run Snapshot -update, and review the diff.\n%s",
			sizesFile, firstDifference(want, got))
	}
}

func TestEveryToolsetHasABudget(t *testing.T) {
	for _, set := range append([]config.Toolset{0}, config.Toolsets()...) {
		if toolsetBudgets[set] == 0 {
			t.Errorf("toolset %q has no budget: add a named constant with its reason to toolsetBudgets", set.Name())
		}
	}
}

func TestEveryToolsetStaysWithinItsBudget(t *testing.T) {
	for _, m := range measureToolsets(t) {
		t.Logf("%s: %d tools, %d of %d bytes", m.name, m.tools, m.weight, m.budget)
		if m.weight > m.budget {
			t.Errorf("toolset %s weighs %d bytes in tools/list, over its budget of %d: shorten its tools' descriptions, "+
				"or raise its budget in toolset_sizes_test.go with the reason", m.name, m.weight, m.budget)
		}
	}
}

// TestTheWholeToolListIsItsToolsetsAndWithinTheirSum holds the whole list
// to the sum of the budgets, not to a ceiling of its own: the parts must
// add up to what tools/list sends, or a budget would miss bytes.
func TestTheWholeToolListIsItsToolsetsAndWithinTheirSum(t *testing.T) {
	all := realCatalogue(t).All()
	size, err := catalogue.ListSize(all)
	if err != nil {
		t.Fatal(err)
	}
	var weight, budget int
	for _, m := range measureToolsets(t) {
		weight, budget = weight+m.weight, budget+m.budget
	}
	t.Logf("tools/list with every tool offered: %d tools, %d bytes, within %d", len(all), size, wholeList(budget))
	if size != wholeList(weight) {
		t.Fatalf("tools/list is %d bytes but its toolsets add up to %d: a tool is in no measured toolset", size, wholeList(weight))
	}
	if size > wholeList(budget) {
		t.Fatalf("tools/list is %d bytes, over the sum of the budgets, %d", size, wholeList(budget))
	}
}

func TestThousandsAreWrittenWithCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 783: "783", 1_000: "1,000", 54_268: "54,268", 1_234_567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
