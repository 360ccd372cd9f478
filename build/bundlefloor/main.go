// Command bundlefloor weighs what the bundle's server binaries are made of,
// for every platform the bundle carries: the smallest plugin there is
// (./build/bundlefloor/bare), the smallest that serves MCP
// (./build/bundlefloor/mcp) and the plugin (./server), each built as `make
// dist` builds it and compressed by Go's gzip at its best level (within 2%
// of the bundle's gzip -9). The first two are floors no code of the
// plugin's own can go under.
//
//	go run ./build/bundlefloor
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-server/mattermost-plugin-mcp/build/pluginbuild"
)

var builds = []struct{ name, pkg string }{
	{"a plugin that does nothing", "./build/bundlefloor/bare"},
	{"mcp-go's server and pluginapi", "./build/bundlefloor/mcp"},
	{"this plugin", "./server"},
}

const mib = 1 << 20

func main() {
	dir, err := os.MkdirTemp("", "bundlefloor")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("%-32s", "compressed MiB")
	for _, p := range pluginbuild.Platforms {
		fmt.Printf("%15s", p)
	}
	fmt.Printf("%10s\n", "all five")
	for _, b := range builds {
		fmt.Printf("%-32s", b.name)
		var total int64
		for _, p := range pluginbuild.Platforms {
			n, err := weigh(dir, b.pkg, p)
			if err != nil {
				fail(err)
			}
			total += n
			fmt.Printf("%15.2f", float64(n)/mib)
		}
		fmt.Printf("%10.2f\n", float64(total)/mib)
	}
}

// weigh builds pkg for platform as `make dist` does and returns its size
// compressed at gzip's best.
func weigh(dir, pkg, platform string) (int64, error) {
	bin := filepath.Join(dir, "bin")
	if err := pluginbuild.Build(pkg, platform, bin, true); err != nil {
		return 0, err
	}
	f, err := os.Open(bin)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if _, err := io.Copy(zw, f); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(out.Len()), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bundlefloor:", err)
	os.Exit(1)
}
