package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// update rewrites the files tests compare against (go test ./server/tools
// -run Snapshot -update), so that a changed schema is a reviewed diff.
var update = flag.Bool("update", false, "rewrite testdata/tools.json and testdata/toolsets.md from the catalogue")

// snapshotFile holds what every model reads of every tool before it calls
// one, as tools/list sends it.
var snapshotFile = filepath.Join("testdata", "tools.json")

// toolSnapshot is one tool as the snapshot keeps it.
type toolSnapshot struct {
	Name         string             `json:"name"`
	Title        string             `json:"title"`
	Description  string             `json:"description"`
	Annotations  mcp.ToolAnnotation `json:"annotations"`
	InputSchema  json.RawMessage    `json:"inputSchema"`
	OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
	Meta         *mcp.Meta          `json:"_meta,omitempty"`
	Execution    *mcp.ToolExecution `json:"execution,omitempty"`
}

// catalogueSnapshot is every tool of the catalogue, whatever the settings
// offer, sorted by name and pretty-printed.
func catalogueSnapshot(t *testing.T) []byte {
	t.Helper()
	var snaps []toolSnapshot
	for _, tool := range realCatalogue(t).All() {
		listed := tool.MCP()
		snaps = append(snaps, toolSnapshot{Name: listed.Name, Title: listed.Title, Description: listed.Description,
			Annotations: listed.Annotations, InputSchema: listed.RawInputSchema, OutputSchema: listed.RawOutputSchema, Meta: listed.Meta, Execution: listed.Execution})
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].Name < snaps[j].Name })
	out, err := json.MarshalIndent(snaps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestEveryToolsSchemaMatchesTheSnapshotInTheTree(t *testing.T) {
	got := catalogueSnapshot(t)
	if *update {
		if err := os.WriteFile(snapshotFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(snapshotFile)
	if err != nil {
		t.Fatalf("read the snapshot: %v; make it with: go test ./server/tools -run Snapshot -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("a tool's name, title, description, annotations or schema differs from %s, which every model reads first.\n"+
			"If the change is meant, refresh it with: go test ./server/tools -run Snapshot -update, and review the diff.\n%s",
			snapshotFile, firstDifference(want, got))
	}
}

func TestTheSnapshotIsTheSameOnEveryBuild(t *testing.T) {
	if a, b := catalogueSnapshot(t), catalogueSnapshot(t); !bytes.Equal(a, b) {
		t.Fatalf("two snapshots of one catalogue differ, so the snapshot test would fail at random:\n%s", firstDifference(a, b))
	}
}

// firstDifference shows the first line where two snapshots part, with its
// line number.
func firstDifference(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return fmt.Sprintf("line %d:\n  snapshot:  %s\n  catalogue: %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// TestEveryToolsSchemaHasOneTypePerNodeAndNoBareObject holds every input
// and output schema to what every model provider takes: a client that maps
// schemas onto one type per node (Gemini's function declarations) rejects a
// type list or drops the constraint, and OpenAI's strict mode falls back on
// an object that says nothing of its fields.
func TestEveryToolsSchemaHasOneTypePerNodeAndNoBareObject(t *testing.T) {
	var snaps []toolSnapshot
	if err := json.Unmarshal(catalogueSnapshot(t), &snaps); err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		for _, kind := range []string{"inputSchema", "outputSchema"} {
			raw := s.InputSchema
			if kind == "outputSchema" {
				raw = s.OutputSchema
			}
			var schema any
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatalf("%s %s: %v", s.Name, kind, err)
			}
			for _, problem := range unportable(schema, kind) {
				t.Errorf("%s: %s", s.Name, problem)
			}
		}
	}
}

// unportable is what in the schema node at path a single-type client could
// not take: a node without one type (or an anyOf of such nodes), and an
// object with neither properties nor a typed additionalProperties.
func unportable(node any, path string) []string {
	n, ok := node.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s is %v, not a schema object", path, node)}
	}
	var out []string
	if branches, ok := n["anyOf"].([]any); ok {
		for i, b := range branches {
			out = append(out, unportable(b, fmt.Sprintf("%s.anyOf[%d]", path, i))...)
		}
		return out
	}
	typ, ok := n["type"].(string)
	if !ok {
		return append(out, fmt.Sprintf("%s has type %v: give it one type, or anyOf branches of one type each", path, n["type"]))
	}
	if typ == "object" {
		props, hasProps := n["properties"].(map[string]any)
		values, hasValues := n["additionalProperties"].(map[string]any)
		if !hasProps && !hasValues {
			out = append(out, fmt.Sprintf("%s is a bare object: list its properties, or its values' type in additionalProperties", path))
		}
		for name, p := range props {
			out = append(out, unportable(p, path+".properties."+name)...)
		}
		if hasValues {
			out = append(out, unportable(values, path+".additionalProperties")...)
		}
	}
	if items, ok := n["items"]; ok {
		out = append(out, unportable(items, path+".items")...)
	}
	return out
}
