package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

const (
	// toolCostCalls is how many calls of each tool each side makes, one at a
	// time: enough that the servers' background work (Mattermost's jobs,
	// PostgreSQL's) is a small share of what is counted.
	toolCostCalls = 500
	// toolCostStatements is how many of a side's costliest statements are
	// shown.
	toolCostStatements = 4
)

// benchToolCosts is each tool of the load alone, called one at a time on
// node 1, over MCP (the wire client, 2025-11-25) and over the REST calls a
// REST-based MCP server makes for it: the processor each process spends per
// call, and the statements PostgreSQL runs per call with their planning and
// execution time (pg_stat_statements), where the two ways part.
func benchToolCosts(ctx context.Context, mm *harness.Server, s settings, fx fixture) error {
	person := fx.people[0]
	c, err := harness.ConnectMCPVersion(ctx, mm.URL, person.Token, "fastbench", legacyVersion)
	if err != nil {
		return err
	}
	defer func() { _ = harness.EndMCPSession(ctx, mm.URL, person.Token, c) }()
	wire := &wireClient{url: strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server/mcp", token: person.Token,
		version: legacyVersion, session: c.GetSessionId()}
	rest := restReads(ctx, mm.URL, fx)
	fmt.Printf("\n== each tool alone: %d calls, one at a time, on one node; per call ==\n", toolCostCalls)
	for i, r := range mixedReads(fx) {
		for _, side := range []struct {
			name string
			call func() error
		}{
			{"MCP", func() error { return wire.call(ctx, r.tool, r.args) }},
			{"REST", func() error { return rest[i](person.Token) }},
		} {
			if err := toolCost(ctx, mm, s, r.tool+" "+side.name, side.call); err != nil {
				return err
			}
		}
	}
	return nil
}

// toolCost measures one side of one tool and prints it.
func toolCost(ctx context.Context, mm *harness.Server, s settings, label string, call func() error) error {
	for range 5 { // the caches of both ways warm, as under the load
		if err := call(); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	if err := mm.ResetStatementStats(); err != nil {
		return err
	}
	before := s.processor()
	for range toolCostCalls {
		if err := call(); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	cpu := s.processor().Since(before)
	stmts, err := mm.StatementStats(ctx)
	if err != nil {
		return err
	}
	ms := func(sec float64) float64 { return sec * 1000 / toolCostCalls }
	perCall := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / toolCostCalls }
	var n int64
	var plan, exec time.Duration
	for _, st := range stmts {
		n, plan, exec = n+st.Calls, plan+st.Plan, exec+st.Exec
	}
	fmt.Printf("%-20s processor: plugin %.2f ms, Mattermost %.2f ms, PostgreSQL %.2f ms; statements %.2f (planned %.3f ms, run %.3f ms)\n",
		label, ms(cpu.Plugins), ms(cpu.Mattermost), ms(cpu.PostgreSQL), float64(n)/toolCostCalls, perCall(plan), perCall(exec))
	for _, st := range stmts[:min(len(stmts), toolCostStatements)] {
		fmt.Printf("    %5.2f x planned %.3f ms, run %.3f ms: %.110s\n", float64(st.Calls)/toolCostCalls, perCall(st.Plan), perCall(st.Exec), st.Query)
	}
	return nil
}
