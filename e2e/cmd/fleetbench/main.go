// Command fleetbench runs many MCP clients of one person against two
// Mattermost servers behind a strict round-robin proxy. First short-lived
// clients (serverless handlers, scripts): 1,000 in a minute, each
// initializing, calling get_me and closing without ending its session (as
// the TypeScript SDK's and mcp-go's close() leave it). Then an agent fleet
// on one service account: 64, then 200 clients at once of protocol
// 2025-11-25 (which has sessions), each initializing and making 20 read
// calls, then ending its session. It prints the refusals and errors, the
// latency of the calls, and the person's session rows in the KV store
// against their bound (transport.MaxSessionsPerPerson); it asserts nothing.
//
//	go run ./e2e/cmd/fleetbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// legacyVersion is the last protocol version with sessions.
const legacyVersion = "2025-11-25"

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	rounds := flag.String("clients", "64,200", "clients at once in each round, comma-separated")
	calls := flag.Int("calls", 20, "read calls per client")
	shortLived := flag.Int("short-lived", 1000, "short-lived clients, started evenly over -over (0: none)")
	over := flag.Duration("over", time.Minute, "the time the short-lived clients start over")
	flag.Parse()
	if err := run(*bundle, *rounds, *calls, *shortLived, *over); err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}

func run(bundle, rounds string, calls, shortLived int, over time.Duration) error {
	ctx := context.Background()
	mm, err := harness.StartForBench(ctx, harness.Options{BundlePath: bundle})
	if err != nil {
		return err
	}
	defer mm.Close()
	proxy, err := mm.StartSecondNode(ctx)
	if err != nil {
		return err
	}
	if shortLived > 0 {
		person, err := mm.CreateUser("shortlived")
		if err != nil {
			return err
		}
		fmt.Printf("== short-lived clients of one person through a round robin of two servers; at most %d sessions per person ==\n", transport.MaxSessionsPerPerson)
		if err := shortLivedRound(ctx, mm, proxy, person, shortLived, over); err != nil {
			return err
		}
	}
	person, err := mm.CreateUser("fleet")
	if err != nil {
		return err
	}
	fmt.Printf("== clients of one person at once through a round robin of two servers; at most %d sessions per person ==\n", transport.MaxSessionsPerPerson)
	for _, field := range strings.Split(rounds, ",") {
		clients, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil {
			return fmt.Errorf("-clients: %w", err)
		}
		if err := round(ctx, mm, proxy, person, clients, calls); err != nil {
			return err
		}
	}
	return nil
}

func round(ctx context.Context, mm *harness.Server, proxy string, person harness.User, clients, calls int) error {
	reads := []string{"get_me", "list_channels", "list_teams", "list_unreads"}
	var mu sync.Mutex
	var latencies []time.Duration
	var failures []string
	errorsSeen := 0
	fail := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		errorsSeen++
		if len(failures) < 10 { // the first few say enough
			failures = append(failures, s)
		}
	}
	opened := make(chan *client.Client, clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := harness.ConnectMCPVersion(ctx, proxy, person.Token, "fleetbench", legacyVersion)
			if err != nil {
				fail("initialize: " + err.Error())
				return
			}
			opened <- c
			for n := range calls {
				tool := reads[(i+n)%len(reads)]
				t0 := time.Now()
				res, err := harness.CallTool(ctx, c, tool, nil)
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
				if err != nil {
					fail(tool + ": " + err.Error())
				} else if res.IsError {
					fail(tool + " answered an error")
				}
			}
		}()
	}
	h1, h2 := mm.ProxyHits()
	began := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(began)
	close(opened)
	rows, size, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+person.ID+`"`)
	if err != nil {
		return err
	}
	_, indexSize, err := mm.KVRows(ctx, "mcpsessidx_"+person.ID, "")
	if err != nil {
		return err
	}
	ended := 0
	for c := range opened {
		if harness.EndMCPSession(ctx, proxy, person.Token, c) == nil {
			ended++
		}
	}
	after, _, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+person.ID+`"`)
	if err != nil {
		return err
	}
	at := quantiles(latencies)
	n1, n2 := mm.ProxyHits()
	fmt.Printf("%d clients x %d calls: %d initializes and calls in %s, %d errors\n",
		clients, calls, clients+len(latencies), elapsed.Round(time.Millisecond), errorsSeen)
	fmt.Printf("  latency p50 %s, p99 %s, max %s; requests node 1 %d, node 2 %d\n", at(0.5), at(0.99), at(1), n1-h1, n2-h2)
	fmt.Printf("  the person's session rows in the KV store: %d (bound %d), %d KiB, index %d bytes; after %d clients ended their sessions: %d\n",
		rows, transport.MaxSessionsPerPerson, size>>10, indexSize, ended, after)
	for _, f := range failures {
		fmt.Println("  error:", f)
	}
	return nil
}

// shortLivedRound starts n clients of person evenly over the time given,
// each initializing, calling get_me once and closing without a DELETE that
// Mattermost accepts (mcp-go's Close sends it without the token, as the
// TypeScript SDK's close() sends none), and counts the refused initializes
// (503), the other errors and the session rows left.
func shortLivedRound(ctx context.Context, mm *harness.Server, proxy string, person harness.User, n int, over time.Duration) error {
	var mu sync.Mutex
	var failures []string
	refused, errorsSeen := 0, 0
	fail := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(s, "status 503") {
			refused++
		} else {
			errorsSeen++
		}
		if len(failures) < 10 {
			failures = append(failures, s)
		}
	}
	var latencies []time.Duration
	var wg sync.WaitGroup
	tick := time.NewTicker(over / time.Duration(n))
	defer tick.Stop()
	h1, h2 := mm.ProxyHits()
	began := time.Now()
	for range n {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			c, err := harness.ConnectMCPVersion(ctx, proxy, person.Token, "fleetbench-short-lived", legacyVersion)
			if err != nil {
				fail("initialize: " + err.Error())
				return
			}
			defer c.Close()
			res, err := harness.CallTool(ctx, c, "get_me", nil)
			switch {
			case err != nil:
				fail("get_me: " + err.Error())
			case res.IsError:
				fail("get_me answered an error")
			default:
				mu.Lock()
				latencies = append(latencies, time.Since(t0))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	rows, size, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+person.ID+`"`)
	if err != nil {
		return err
	}
	_, indexSize, err := mm.KVRows(ctx, "mcpsessidx_"+person.ID, "")
	if err != nil {
		return err
	}
	at := quantiles(latencies)
	n1, n2 := mm.ProxyHits()
	fmt.Printf("%d short-lived clients (initialize, get_me, no DELETE) in %s: %d served, %d refused (503), %d other errors\n",
		n, elapsed.Round(time.Millisecond), len(latencies), refused, errorsSeen)
	fmt.Printf("  client's initialize and call p50 %s, p99 %s, max %s; requests node 1 %d, node 2 %d\n", at(0.5), at(0.99), at(1), n1-h1, n2-h2)
	fmt.Printf("  the person's session rows in the KV store: %d (bound %d), %d KiB, index %d bytes\n",
		rows, transport.MaxSessionsPerPerson, size>>10, indexSize)
	for _, f := range failures {
		fmt.Println("  error:", f)
	}
	return nil
}

// quantiles sorts latencies and answers each quantile of them, rounded to
// the millisecond (0 for none).
func quantiles(latencies []time.Duration) func(q float64) time.Duration {
	slices.Sort(latencies)
	return func(q float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(q*float64(len(latencies))))].Round(time.Millisecond)
	}
}
