package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// countsPath is node 1's route of the plugin's counts of round trips,
// served while Mattermost's environment has the plugin count them
// (server/counting.go).
const countsPath = "/plugins/mcp-server/debug/round-trips"

// countsOf reads node 1's counts of the plugin's round trips so far.
func countsOf(ctx context.Context, mm *harness.Server) func() map[string]int64 {
	return func() map[string]int64 {
		raw, err := restBody(ctx, mm.Admin.Token, "GET", strings.TrimRight(mm.URL, "/")+countsPath, nil)
		var out map[string]int64
		if err == nil {
			err = json.Unmarshal(raw, &out)
		}
		if err != nil {
			fmt.Printf("fastbench: the plugin's counts could not be read: %v\n", err)
		}
		return out
	}
}

// tripsPerCall is node 1's round trips of a round, per call of the round,
// and the five methods called most.
func tripsPerCall(t mattermost.Trips, calls int) string {
	type method struct {
		name string
		n    int64
	}
	var top []method
	for m, n := range t.Methods {
		top = append(top, method{m, n})
	}
	// Most called first; a name breaks ties, so runs compare line by line.
	slices.SortFunc(top, func(a, b method) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.name, b.name)) })
	per := func(n int64) float64 { return float64(n) / float64(max(calls, 1)) }
	var names []string
	for _, m := range top[:min(5, len(top))] {
		names = append(names, fmt.Sprintf("%s %.2f", m.name, per(m.n)))
	}
	return fmt.Sprintf("node 1's round trips per call: %.2f (KV reads %.2f, writes %.2f; queries %.2f): %s",
		per(t.All), per(t.KVReads), per(t.KVWrites), per(t.Queries), strings.Join(names, ", "))
}
