package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThePluginIDIsWrittenOnlyInPluginJSON fails when a source file types
// the plugin's id as a literal: every copy must be read from plugin.json
// (the server from the bundle, the webapp when it is built, the e2e
// harness and commands from the repository's file), so no copy can
// disagree with it.
func TestThePluginIDIsWrittenOnlyInPluginJSON(t *testing.T) {
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.ID == "" {
		t.Fatalf("plugin.json names no id: %v", err)
	}
	literals := []string{`"` + m.ID + `"`, `'` + m.ID + `'`, "`" + m.ID + "`", `"` + m.ID + `-`, "`" + m.ID + "-"}
	var found []string
	for _, dir := range []string{"server", "e2e", "build", "webapp/src"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "dist" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			ext := filepath.Ext(path)
			if d.IsDir() || (ext != ".go" && ext != ".ts" && ext != ".tsx") || strings.HasSuffix(path, "copies_test.go") {
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, lit := range literals {
				if strings.Contains(string(text), lit) {
					found = append(found, path+" ("+lit+")")
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) > 0 {
		t.Fatalf("the plugin id is typed by hand outside plugin.json: %v", found)
	}
}
