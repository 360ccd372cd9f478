//go:build mcppprof

package main

import (
	"net/http"
	_ "net/http/pprof" // only in a build made for profiling (-tags mcppprof)
	"os"
	"runtime"
)

// A bundle built with -tags mcppprof serves Go's profiles on the address in
// MCP_PLUGIN_PPROF (e.g. 127.0.0.1:6070), for the bench commands; the
// shipped bundle has no such listener. On a two-node harness the second
// plugin process finds the port taken and serves none.
func init() {
	if addr := os.Getenv("MCP_PLUGIN_PPROF"); addr != "" {
		// Most of a call's time is spent waiting on Mattermost (plugin API
		// round trips), which only the block profile shows.
		runtime.SetBlockProfileRate(int(10 * 1000)) // one sample per 10 µs blocked
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}
}
