package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// golden compares an answer a pure function wrote with
// testdata/golden/<name>.golden, or rewrites that file under -update (go
// test ./server/tools -run <Test> -update), so that a changed answer is a
// reviewed diff like a changed schema.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v; make it with: go test ./server/tools -run %s -update", path, err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (if the change is meant, rewrite it with -update and review the diff):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
