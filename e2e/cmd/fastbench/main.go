// Command fastbench measures what a call of the plugin costs next to what
// Mattermost itself costs, side by side in one run, and prints every figure
// as a ratio (plugin / baseline), the minimum and median over rounds that
// alternate the two:
//
//   - the load: 200 MCP clients of 20 people, 20 read calls each (get_me,
//     list_channels, read_channel, read_file, search_posts), through two
//     Mattermost servers behind a strict round robin, against the REST calls
//     a REST-based MCP server makes for the same tools, from the same
//     clients, people and mix; once for clients of the newest protocol
//     (no MCP sessions) and once for 2025-11-25 (with sessions);
//   - get_me under the same load (200 clients, one server; the wire client
//     on both revisions, and the official TypeScript SDK's clients, from
//     e2e/node/sdk-load.mjs) beside its floor: a plugin route that does
//     nothing and REST GET /api/v4/users/me;
//   - get_me against a plugin route that does nothing, one call at a time;
//   - read_file, window 1 of a fresh text file, against
//     GET /api/v4/files/{id} of the whole file: one just over the 1 MiB of
//     text Mattermost extracts (its record carries that megabyte beside the
//     bytes) and one of 1 MB (its record's text is the file);
//   - read_file, window 2 of the first, against get_me;
//   - read_file of a 12 MP EXIF-6 JPEG (upright, at most 1568 px) against a
//     REST download and ImageMagick's convert -auto-orient -resize;
//   - with -only tools, alone: each tool of the load, one call at a time,
//     against its REST calls: every process's processor per call and the
//     statements PostgreSQL plans and runs for it.
//
// It prints figures; it asserts nothing (speed is measured here, never in
// tests). The machine's other work shows in the spread: quote the medians.
//
//	go run ./e2e/cmd/fastbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
)

// legacyVersion is the last protocol version with MCP sessions, which most
// clients still speak.
const legacyVersion = "2025-11-25"

type settings struct {
	bundle               string
	clients, calls, ppl  int
	rounds, runs, photos int
	pprof, mmPprof       string
	oneNode              bool
	kinds                string
	client               string
	// processor reads the processor time used so far by the server's
	// processes and this one (nil: not read).
	processor func() pluginproc.Processor
	// countCalls has the plugin count its round trips; counts reads node
	// 1's so far (nil: not counted).
	countCalls bool
	counts     func() map[string]int64
}

func main() {
	var s settings
	flag.StringVar(&s.bundle, "bundle", "", "plugin bundle to install")
	flag.IntVar(&s.clients, "clients", 200, "MCP clients at once in the load")
	flag.IntVar(&s.calls, "calls", 20, "read calls per client in the load")
	flag.IntVar(&s.ppl, "people", 20, "people the clients sign in as (clients share them)")
	flag.IntVar(&s.rounds, "rounds", 3, "rounds of the load, plugin and REST in turn")
	flag.IntVar(&s.runs, "runs", 30, "pairs of each single call")
	flag.IntVar(&s.photos, "photos", 7, "pairs of the JPEG measure")
	flag.StringVar(&s.pprof, "plugin-pprof", "", "with a bundle built with GO_TAGS=mcppprof: the address node 1's plugin serves its profiles on (e.g. 127.0.0.1:6070)")
	flag.StringVar(&s.mmPprof, "mm-pprof", "", "the address node 1's Mattermost serves its profiles on (MetricsSettings), e.g. 127.0.0.1:6072")
	flag.BoolVar(&s.oneNode, "one-node", false, "run the load against node 1 alone (for -mm-pprof: a second node would find its port taken)")
	flag.StringVar(&s.kinds, "kinds", "newest,legacy,restmcp,rest", "which loads to run, comma-separated (one alone, to profile it): newest, legacy, restmcp (the same tools from an MCP server over REST), rest")
	flag.StringVar(&s.client, "client", clientWire, "how the load's MCP clients call: wire (the bytes a client sends, the answer read whole and not decoded, as the REST load reads) or mcp-go (mcp-go's client, whose decoding runs on the servers' cores)")
	flag.BoolVar(&s.countCalls, "count-calls", false, "have the plugin count its round trips to Mattermost and print node 1's per call of each load (with -one-node, every call's); the plugin then pays for the counting")
	only := flag.String("only", "", "run only the mixed load (load), only get_me beside its floor (floor), only the single calls (calls), or only each tool of the load alone with what PostgreSQL plans and runs for it (tools; not in a whole run, as the statements' counting costs every statement)")
	flag.Parse()
	if s.client != clientWire && s.client != clientMCPGo {
		fmt.Fprintf(os.Stderr, "fastbench: -client %q is neither %s nor %s\n", s.client, clientWire, clientMCPGo)
		os.Exit(2)
	}
	if err := run(s, *only); err != nil {
		fmt.Fprintln(os.Stderr, "fastbench:", err)
		os.Exit(1)
	}
}

func run(s settings, only string) error {
	ctx := context.Background()
	opts := harness.Options{BundlePath: s.bundle, LogWriter: io.Discard, AsShipped: true, StatementStats: only == "tools"}
	if s.pprof != "" {
		opts.ExtraEnv = append(opts.ExtraEnv, "MCP_PLUGIN_PPROF="+s.pprof)
	}
	if s.mmPprof != "" {
		// Mattermost serves Go's profiles beside its metrics; the second
		// node finds the port taken and serves none.
		opts.ExtraEnv = append(opts.ExtraEnv, "MM_METRICSSETTINGS_ENABLE=true", "MM_METRICSSETTINGS_LISTENADDRESS="+s.mmPprof)
	}
	if s.countCalls {
		opts.ExtraEnv = append(opts.ExtraEnv, "MCP_PLUGIN_COUNT_CALLS=1")
	}
	mm, err := harness.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer mm.Close()
	s.processor = func() pluginproc.Processor { return pluginproc.ProcessorNow(mm) }
	if s.countCalls {
		s.counts = countsOf(ctx, mm)
	}
	if err := mm.LiftCallRate(); err != nil {
		return err
	}
	fmt.Printf("fastbench: every figure is plugin / baseline, measured in turn in this run; min and median over the rounds; the loads' MCP clients: %s\n", s.client)
	if only != "calls" {
		fx, err := loadFixture(ctx, mm, s.ppl)
		if err != nil {
			return err
		}
		if only == "tools" {
			return benchToolCosts(ctx, mm, s, fx)
		}
		if only != "floor" {
			if err := benchLoad(ctx, mm, s, fx); err != nil {
				return err
			}
		}
		if only != "load" {
			if err := benchFloor(ctx, mm, s, fx); err != nil {
				return err
			}
		}
	}
	if only == "" || only == "calls" {
		if err := benchCalls(ctx, mm, s); err != nil {
			return err
		}
	}
	return nil
}
