package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
)

// noopPath is a plugin route that does nothing but answer: what any plugin
// route costs, the plugin RPC's hop and Mattermost's sign-in of the token
// included.
const noopPath = "/plugins/mcp-server/.well-known/oauth-protected-resource"

// benchFloor runs get_me under the load's clients and people against one
// server, beside the same load of its floor: the plugin route that does
// nothing, and REST GET /api/v4/users/me, which answers the same question
// without the plugin. Every request sends the person's token, so
// Mattermost signs each in alike; the route is also run without one, as
// issue 35 first measured it, which shows what that sign-in costs a plugin
// request.
func benchFloor(ctx context.Context, mm *harness.Server, s settings, fx fixture) error {
	site := mm.URL
	me := []toolCall{{"get_me", nil}}
	get := func(url string, signedIn bool) func() (loadFigures, error) {
		return func() (loadFigures, error) {
			return measure(s, func(i, _ int) error {
				token := ""
				if signedIn {
					token = fx.people[i%len(fx.people)].Token
				}
				return rest(ctx, token, http.MethodGet, url, nil)
			}), nil
		}
	}
	kinds := []loadKind{
		{"newest", "get_me, MCP newest protocol", func() (loadFigures, error) {
			return mcpLoad(ctx, site, fx, s, mcp.LATEST_PROTOCOL_VERSION, me)
		}},
		{"legacy", "get_me, MCP " + legacyVersion, func() (loadFigures, error) { return mcpLoad(ctx, site, fx, s, legacyVersion, me) }},
		{"sdk", "get_me, the TypeScript SDK's clients", func() (loadFigures, error) { return sdkLoad(ctx, site, fx, s, "get_me") }},
		{"noop", "a plugin route that does nothing", get(strings.TrimRight(site, "/")+noopPath, true)},
		{"anon", "the same route, no token", get(strings.TrimRight(site, "/")+noopPath, false)},
		{"rest", "REST GET /api/v4/users/me", get(strings.TrimRight(site, "/")+"/api/v4/users/me", true)},
	}
	fmt.Printf("\n== get_me beside its floor: %d clients of %d people x %d requests, one server ==\n", s.clients, s.ppl, s.calls)
	figures, err := rounds(s, kinds)
	if err != nil {
		return err
	}
	printProcessor(kinds, figures)
	for _, base := range []struct{ key, name, goal string }{
		{"noop", "the no-op route", " (goal at least 0.7x)"}, {"anon", "the no-op route, no token", ""},
		{"rest", "REST /users/me", " (goal at least 1.0x)"}} {
		b := indexOf(kinds, base.key)
		for i, k := range kinds[:3] { // the MCP kinds, first in kinds
			fmt.Printf("%-46s %s\n", k.name+" / "+base.name+":", compare(figures[i], figures[b], base.goal))
		}
	}
	return nil
}

// rounds runs each kind once not counted (caches, connections, the
// database's plans), then s.rounds times in turn, printing each round.
func rounds(s settings, kinds []loadKind) ([][]loadFigures, error) {
	for _, k := range kinds {
		if _, err := k.run(); err != nil {
			return nil, err
		}
	}
	figures := make([][]loadFigures, len(kinds))
	for r := range s.rounds {
		for i, k := range kinds {
			f, err := k.run()
			if err != nil {
				return nil, err
			}
			figures[i] = append(figures[i], f)
			fmt.Printf("round %d  %-36s %6.0f calls/s  p50 %6s  p99 %6s  errors %d %s\n         %s\n", r+1, k.name, f.perSecond(),
				f.p50.Round(time.Millisecond), f.p99.Round(time.Millisecond), f.errors, f.firstError, f.cpuPerCall())
			if f.trips != nil {
				fmt.Printf("         %s\n", tripsPerCall(*f.trips, f.calls))
			}
		}
	}
	return figures, nil
}

// printProcessor prints each kind's processor time per call, by process,
// the median over the rounds: on a machine whose cores the servers, the
// database and the clients share, where each call's cost goes.
func printProcessor(kinds []loadKind, figures [][]loadFigures) {
	for i, k := range kinds {
		med := func(part func(pluginproc.Processor) float64) float64 {
			var per []float64
			for _, f := range figures[i] {
				per = append(per, part(f.cpu)/float64(max(f.calls, 1)))
			}
			slices.Sort(per)
			return per[len(per)/2]
		}
		f := loadFigures{calls: 1, cpu: pluginproc.Processor{
			Plugins:    med(func(p pluginproc.Processor) float64 { return p.Plugins }),
			Mattermost: med(func(p pluginproc.Processor) float64 { return p.Mattermost }),
			PostgreSQL: med(func(p pluginproc.Processor) float64 { return p.PostgreSQL }),
			Self:       med(func(p pluginproc.Processor) float64 { return p.Self }),
		}}
		fmt.Printf("%-46s %s\n", k.name+", median:", f.cpuPerCall())
	}
}

// compare is a's throughput, p50 and p99 over b's, round by round.
func compare(a, b []loadFigures, goal string) string {
	var thr, p50, p99 []float64
	for r := range b {
		thr = append(thr, a[r].perSecond()/b[r].perSecond())
		p50 = append(p50, float64(a[r].p50)/float64(b[r].p50))
		p99 = append(p99, float64(a[r].p99)/float64(b[r].p99))
	}
	return fmt.Sprintf("throughput %s%s  p50 %s  p99 %s", ratio(thr), goal, ratio(p50), ratio(p99))
}

// indexOf is the place of the kind of key in kinds, or -1.
func indexOf(kinds []loadKind, key string) int {
	for i, k := range kinds {
		if k.key == key {
			return i
		}
	}
	return -1
}
