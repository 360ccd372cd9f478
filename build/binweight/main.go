// Command binweight says what takes the space in the plugin's server
// binary, by module and by package: the sizes of its symbols (code, data,
// type descriptors), from a build that keeps its symbol table (the shipped
// one is stripped, and otherwise the same). Issue 47 asks that the bundle
// stay small; build/bundlesize weighs the parts of a bundle, this weighs
// what one binary holds.
//
//	go run ./build/binweight [-top 30] [binary]
//
// Without a binary it builds ./server for this machine as `make dist` does,
// less -s -w.
package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/build/pluginbuild"
)

func main() {
	top := flag.Int("top", 30, "how many modules and packages to list")
	flag.Parse()
	bin := flag.Arg(0)
	if bin == "" {
		dir, err := os.MkdirTemp("", "binweight")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "plugin")
		if err := pluginbuild.Build("./server", "", bin, false); err != nil {
			fail(err)
		}
	}
	syms, err := symbolsOf(bin)
	if err != nil {
		fail(err)
	}
	byModule, byPackage, total := weigh(syms)
	info, err := os.Stat(bin)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s: %d bytes, %d of them in named symbols\n", bin, info.Size(), total)
	list("module", byModule, total, *top)
	list("package", byPackage, total, *top)
}

// symbol is one named symbol of the binary that takes bytes in its file.
type symbol struct {
	name string
	size int64
}

// symbolsOf reads the symbols of an ELF binary (the build for this
// machine) that take bytes in the file: zeroed data (.bss, whose 32 MiB
// of FIPS random-generator memory is never in the file) is left out.
func symbolsOf(bin string) ([]symbol, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (binweight reads ELF binaries: build for linux)", bin, err)
	}
	defer f.Close()
	all, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a stripped binary has no symbols to weigh)", bin, err)
	}
	var out []symbol
	for _, s := range all {
		if s.Size == 0 || int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) || f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue
		}
		out = append(out, symbol{s.Name, int64(s.Size)})
	}
	return out, nil
}

// weigh sums the symbols' sizes by module and by package.
func weigh(syms []symbol) (byModule, byPackage map[string]int64, total int64) {
	byModule, byPackage = map[string]int64{}, map[string]int64{}
	for _, s := range syms {
		pkg := packageOf(s.name)
		byPackage[pkg] += s.size
		byModule[moduleOf(pkg)] += s.size
		total += s.size
	}
	return byModule, byPackage, total
}

// packageOf is the import path of the package a symbol belongs to; what is
// the linker's own (type descriptors, strings, tables) is named by its
// kind.
func packageOf(sym string) string {
	for _, prefix := range []string{"type:", "go:itab.", "go:"} {
		if rest, ok := strings.CutPrefix(sym, prefix); ok {
			if prefix == "go:" {
				return "(linker: " + strings.SplitN(rest, ".", 2)[0] + ")"
			}
			sym, _, _ = strings.Cut(rest, ",") // an itab belongs to its type's package
			break
		}
	}
	sym = strings.TrimLeft(sym, "*[]")
	// The linker writes a dot in a path's last element as %2e
	// (gopkg.in/yaml%2ev3), so the first dot after the last slash ends the
	// path.
	slash := strings.LastIndex(sym, "/")
	if dot := strings.Index(sym[slash+1:], "."); dot >= 0 {
		sym = sym[:slash+1+dot]
	}
	return strings.ReplaceAll(sym, "%2e", ".")
}

// moduleOf is the module a package path most likely comes from: the first
// three elements of a path under a host (github.com/owner/repo,
// golang.org/x/net), the host and first element for the rest with a dot,
// the first element of the standard library's.
func moduleOf(pkg string) string {
	pkg = strings.TrimPrefix(pkg, "vendor/")
	parts := strings.Split(pkg, "/")
	switch {
	case strings.HasPrefix(pkg, "("):
		return pkg
	case parts[0] == "gopkg.in":
		for i, p := range parts {
			if strings.Contains(p, ".v") {
				return strings.Join(parts[:i+1], "/")
			}
		}
		return pkg
	case len(parts) >= 3 && (parts[0] == "github.com" || parts[0] == "golang.org"):
		return strings.Join(parts[:3], "/")
	case strings.Contains(parts[0], ".") && len(parts) >= 2:
		return strings.Join(parts[:2], "/")
	case pkg == "main":
		return "main (the plugin)"
	}
	return "std: " + parts[0]
}

func list(what string, sizes map[string]int64, total int64, top int) {
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return sizes[names[i]] > sizes[names[j]] })
	fmt.Printf("\n%-60s %12s %6s\n", "by "+what, "bytes", "share")
	for _, n := range names[:min(top, len(names))] {
		fmt.Printf("%-60s %12d %5.1f%%\n", n, sizes[n], 100*float64(sizes[n])/float64(total))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "binweight:", err)
	os.Exit(1)
}
