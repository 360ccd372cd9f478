// Command bundlesize weighs a plugin bundle part by part against its
// budget and fails naming each part that grew past its own, so a bundle
// that has to fit the server's largest upload (FileSettings.MaxFileSize)
// cannot grow unnoticed.
//
//	go run ./build/bundlesize dist/mcp-server-<version>.tar.gz
//
// A part's weight is its files gzipped alone by Go's gzip at the default
// level: within about 2% of what the part adds to the tarball, the same
// way every time, so a part's growth shows as its own.
package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

const mib = 1 << 20

// Budgets, compressed. Each is the part's weight when it was set plus a
// stated headroom; a part that does not fit says so, and is cut or its
// budget raised here with the reason.
const (
	// budgetBinary: the five server binaries weighed 9.0-10.2 MiB each
	// on 2026-12-04 (Go 1.26, stripped, without gRPC's tracing, a clean
	// build); 0.3 MiB more. Most of each is what every plugin links
	// (Mattermost's model, the plugin RPC, gRPC, protobuf): a plugin that
	// does nothing weighs 5.6-6.4 MiB, one that serves MCP through mcp-go
	// 7.0-7.9 (`go run ./build/bundlefloor`).
	budgetBinary = 10.5 * mib
	// budgetWebapp: main.js and the MCP Apps views (the PDF view's
	// pdf.js most of it) weighed 0.95 MiB; 0.55 MiB more.
	budgetWebapp = 1.5 * mib
	// budgetOther: plugin.json and the icon.
	budgetOther = 64 << 10
	// budgetTotal: the bundle of five platforms weighed 48.3 MiB; a
	// little over one part's growth more. The goal is 40 MiB (issue 47).
	budgetTotal = 50 * mib
)

// part is a group of the bundle's files with one budget.
type part struct {
	name   string
	budget int64
	files  int
	raw    int64
	packed int64
}

// partOf names the part a file of the bundle belongs to.
func partOf(name string) (string, int64) {
	base := path.Base(name)
	switch {
	case strings.Contains(name, "/server/dist/"):
		return "server binary " + strings.TrimSuffix(strings.TrimPrefix(base, "plugin-"), ".exe"), budgetBinary
	case strings.Contains(name, "/webapp/"):
		return "webapp", budgetWebapp
	}
	return "plugin.json and assets", budgetOther
}

// weigh reads a bundle and weighs each part.
func weigh(r io.Reader) ([]*part, int64, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("not a gzipped tarball: %w", err)
	}
	tr := tar.NewReader(zr)
	parts := map[string]*part{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name, budget := partOf(h.Name)
		p := parts[name]
		if p == nil {
			p = &part{name: name, budget: budget}
			parts[name] = p
		}
		var packed countingWriter
		zw, _ := gzip.NewWriterLevel(&packed, gzip.DefaultCompression)
		n, err := io.Copy(zw, tr)
		if err != nil {
			return nil, 0, err
		}
		if err := zw.Close(); err != nil {
			return nil, 0, err
		}
		p.files++
		p.raw += n
		p.packed += int64(packed)
	}
	out := make([]*part, 0, len(parts))
	var total int64
	for _, p := range parts {
		out = append(out, p)
		total += p.packed
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, total, nil
}

type countingWriter int64

func (c *countingWriter) Write(b []byte) (int, error) {
	*c += countingWriter(len(b))
	return len(b), nil
}

// report writes the table and returns what grew past its budget.
func report(w io.Writer, parts []*part, total, fileSize int64) []string {
	var over []string
	fmt.Fprintf(w, "%-28s %5s %12s %12s %12s\n", "part", "files", "raw", "compressed", "budget")
	for _, p := range parts {
		fmt.Fprintf(w, "%-28s %5d %12d %12d %12d\n", p.name, p.files, p.raw, p.packed, p.budget)
		if p.packed > p.budget {
			over = append(over, fmt.Sprintf("%s weighs %.2f MiB compressed, over its budget of %.2f MiB", p.name, float64(p.packed)/mib, float64(p.budget)/mib))
		}
	}
	fmt.Fprintf(w, "%-28s %5s %12s %12d %12d (the file: %d bytes, %.1f MiB)\n", "total", "", "", total, int64(budgetTotal), fileSize, float64(fileSize)/mib)
	if fileSize > budgetTotal {
		over = append(over, fmt.Sprintf("the bundle is %.2f MiB, over its budget of %.2f MiB", float64(fileSize)/mib, float64(budgetTotal)/mib))
	}
	return over
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bundlesize <bundle.tar.gz>")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	parts, total, err := weigh(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if over := report(os.Stdout, parts, total, st.Size()); len(over) > 0 {
		for _, o := range over {
			fmt.Fprintln(os.Stderr, "bundlesize: "+o+": find what grew (go tool nm -size -sort size on an unstripped build), cut it, or raise the budget in build/bundlesize with the reason")
		}
		os.Exit(1)
	}
}
