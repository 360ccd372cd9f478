package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"strings"
	"testing"
)

// bundleOf is a gzipped tarball of files (name to size), each of random
// bytes so that it does not compress.
func bundleOf(t *testing.T, files map[string]int) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, size := range files {
		data := make([]byte, size)
		_, _ = rand.Read(data)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(size), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func TestTheReportNamesThePartThatGrewPastItsBudgetAndNoOther(t *testing.T) {
	b := bundleOf(t, map[string]int{
		"mcp-server/plugin.json":                          2 << 10,
		"mcp-server/server/dist/plugin-linux-amd64":       2 << 20,
		"mcp-server/server/dist/plugin-windows-amd64.exe": budgetBinary + 1<<20,
		"mcp-server/webapp/dist/main.js":                  1 << 20,
	})
	size := int64(b.Len())
	parts, total, err := weigh(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 4 {
		t.Fatalf("%d parts, want plugin.json and assets, two binaries and the webapp", len(parts))
	}
	var table strings.Builder
	over := report(&table, parts, total, size)
	if len(over) != 1 || !strings.Contains(over[0], "server binary windows-amd64") {
		t.Fatalf("over budget: %q, want the windows binary alone\n%s", over, table.String())
	}
	for _, want := range []string{"server binary linux-amd64", "webapp", "total"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table does not show %q:\n%s", want, table.String())
		}
	}
}

func TestABundleOverItsTotalIsRefusedEvenWhenEachPartFits(t *testing.T) {
	if over := report(&strings.Builder{}, nil, 0, budgetTotal+1); len(over) != 1 || !strings.Contains(over[0], "the bundle is") {
		t.Fatalf("a bundle over the total: %q", over)
	}
}

func TestSomethingThatIsNotABundleIsRefused(t *testing.T) {
	if _, _, err := weigh(strings.NewReader("not a tarball")); err == nil {
		t.Fatal("weighed a text as a bundle")
	}
}
