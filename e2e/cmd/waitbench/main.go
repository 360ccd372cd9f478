// Command waitbench measures what held waits cost (issue 45) on one real
// Mattermost node: a mixed read load alone, then the same load while N
// people each hold their share of waits (wait_for_reply on a post nobody
// answers, each called again as it ends). The load runs twice: paced (a
// fixed rate that leaves the machine room, so the processor the waits take
// shows), then as fast as it goes (so what they take from it shows in its
// throughput). It prints the processor time per second of the plugin,
// Mattermost and PostgreSQL and the load's calls per second, each way, and
// what the waits added. It asserts nothing.
//
//	go run ./e2e/cmd/waitbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz [-people 5] [-waits 10] [-seconds 20] [-rate 50] [-rounds 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// httpClient is every MCP client's: one pool of connections, large enough
// that neither the held waits nor the load close and reopen connections
// (the default keeps 2 idle a host), which would cost the server more than
// the waits themselves.
var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}

// connect is an initialized MCP client of the newest protocol as token's person.
func connect(ctx context.Context, site, token string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(site+"/plugins/mcp-server/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}), transport.WithHTTPBasicClient(httpClient))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "waitbench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// loadWorkers is how many calls of the read load are in flight at once:
// enough to keep the node busy, few enough to leave it a core.
const loadWorkers = 4

// peoplePerWorker is how many people a load worker calls as, in turn.
const peoplePerWorker = 3

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	people := flag.Int("people", 5, "people holding waits")
	waits := flag.Int("waits", 10, "waits each person holds (their share: transport.MaxHeldWaits)")
	seconds := flag.Int("seconds", 20, "length of each phase")
	rounds := flag.Int("rounds", 3, "rounds of the waits, each between two phases of the load alone")
	rate := flag.Int("rate", 50, "calls a second of the paced load")
	flag.Parse()
	if err := run(*bundle, *people, *waits, time.Duration(*seconds)*time.Second, *rate, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "waitbench:", err)
		os.Exit(1)
	}
}

type phase struct {
	cpu   pluginproc.Processor
	calls int64
	took  time.Duration
}

func (p phase) print(name string) {
	s := p.took.Seconds()
	fmt.Printf("%-34s load %.1f calls/s; processor per second: plugin %.3f, Mattermost %.3f, PostgreSQL %.3f (cores)\n",
		name+":", float64(p.calls)/s, p.cpu.Plugins/s, p.cpu.Mattermost/s, p.cpu.PostgreSQL/s)
}

func run(bundle string, people, waits int, length time.Duration, rate, rounds int) error {
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true})
	if err != nil {
		return err
	}
	defer mm.Close()
	// The load is one person's, at a pace past the default rate: the
	// bench measures the server, not the person's limit.
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.LimitMaxCallsPerMinute}); err != nil {
		return err
	}
	town, _, err := mm.Client(mm.Users[0]).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	// Each worker's calls go to a few people in turn, so no one person's
	// rate holds the load back.
	var readers []harness.User
	for i := range loadWorkers * peoplePerWorker {
		u, err := mm.CreateUser(fmt.Sprintf("reader%d", i))
		if err != nil {
			return err
		}
		if _, _, err := mm.Client(mm.Admin).AddChannelMember(ctx, town.Id, u.ID); err != nil {
			return err
		}
		readers = append(readers, u)
	}
	// load runs until stop, paced at rate calls a second over all workers
	// when paced.
	load := func(stop <-chan struct{}, paced bool) (int64, error) {
		var tick <-chan time.Time
		if paced {
			t := time.NewTicker(time.Second / time.Duration(rate))
			defer t.Stop()
			tick = t.C
		}
		var calls atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, loadWorkers)
		reads := []struct {
			tool string
			args map[string]any
		}{{"get_me", nil}, {"read_channel", map[string]any{"channel": town.Id, "limit": 20}}, {"list_teams", nil}, {"search_posts", map[string]any{"terms": "release"}}}
		for w := range loadWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var cs []*client.Client
				for _, u := range readers[w*peoplePerWorker : (w+1)*peoplePerWorker] {
					c, err := connect(ctx, mm.URL, u.Token)
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					cs = append(cs, c)
				}
				for i := w; ; i++ {
					c := cs[i%len(cs)]
					if tick != nil {
						select {
						case <-stop:
							return
						case <-tick:
						}
					}
					select {
					case <-stop:
						return
					default:
					}
					r := reads[i%len(reads)]
					res, err := harness.CallTool(ctx, c, r.tool, r.args)
					if err == nil && res.IsError {
						err = fmt.Errorf("a tool error: %v", res.Content)
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %w", r.tool, err)
						return
					}
					calls.Add(1)
				}
			}()
		}
		wg.Wait()
		close(errs)
		return calls.Load(), <-errs
	}
	measure := func(paced bool, during func(stop <-chan struct{})) (phase, error) {
		stop := make(chan struct{})
		var held sync.WaitGroup
		if during != nil {
			held.Add(1)
			go func() { defer held.Done(); during(stop) }()
		}
		time.AfterFunc(length, func() { close(stop) })
		before, started := pluginproc.ProcessorNow(mm), time.Now()
		calls, err := load(stop, paced)
		p := phase{cpu: pluginproc.ProcessorNow(mm).Since(before), calls: calls, took: time.Since(started)}
		held.Wait()
		return p, err
	}

	// The people who wait, each with a post nobody answers.
	type waiter struct {
		c    *client.Client
		post string
	}
	var waiters []waiter
	for i := range people {
		u, err := mm.CreateUser(fmt.Sprintf("waiter%d", i))
		if err != nil {
			return err
		}
		if _, _, err := mm.Client(mm.Admin).AddChannelMember(ctx, town.Id, u.ID); err != nil {
			return err
		}
		p, _, err := mm.Client(u).CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "Has anyone seen the release checklist?"})
		if err != nil {
			return err
		}
		c, err := connect(ctx, mm.URL, u.Token)
		if err != nil {
			return err
		}
		defer c.Close()
		waiters = append(waiters, waiter{c, p.Id})
	}
	hold := func(stop <-chan struct{}) {
		var wg sync.WaitGroup
		for _, w := range waiters {
			for range waits {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := harness.CallTool(ctx, w.c, "wait_for_reply", map[string]any{"post": w.post, "seconds": 20}); err != nil {
							return
						}
					}
				}()
			}
		}
		wg.Wait()
	}

	fmt.Printf("%d people each holding %d waits; the read load: %d calls in flight, paced at %d a second, then as fast as it goes; %v a phase\n",
		people, waits, loadWorkers, rate, length)
	for _, paced := range []bool{true, false} {
		name := "as fast as it goes"
		if paced {
			name = "paced"
		}
		// Rounds of the load alone, with the waits, alone again: each
		// with-phase is set against the alone phases on either side, so
		// that a drift of the machine over the run is not taken for the
		// waits' cost.
		alones := make([]phase, 0, rounds+1)
		first, err := measure(paced, nil)
		if err != nil {
			return err
		}
		first.print(name + ", alone")
		alones = append(alones, first)
		var added, ratios []float64
		for range rounds {
			with, err := measure(paced, hold)
			if err != nil {
				return err
			}
			with.print(name + ", with the waits")
			next, err := measure(paced, nil)
			if err != nil {
				return err
			}
			next.print(name + ", alone")
			alone := joined(alones[len(alones)-1], next)
			alones = append(alones, next)
			s1, s2 := alone.took.Seconds(), with.took.Seconds()
			sum := func(p pluginproc.Processor) float64 { return p.Plugins + p.Mattermost + p.PostgreSQL }
			added = append(added, sum(with.cpu)/s2-sum(alone.cpu)/s1)
			ratios = append(ratios, 100*(float64(with.calls)/s2)/(float64(alone.calls)/s1))
			fmt.Printf("  the waits added: plugin %+.3f, Mattermost %+.3f, PostgreSQL %+.3f cores (sum %+.3f); load throughput %.1f%% of alone\n",
				with.cpu.Plugins/s2-alone.cpu.Plugins/s1, with.cpu.Mattermost/s2-alone.cpu.Mattermost/s1, with.cpu.PostgreSQL/s2-alone.cpu.PostgreSQL/s1,
				added[len(added)-1], ratios[len(ratios)-1])
		}
		fmt.Printf("%s, over %d rounds: the waits added %s cores (min %+.3f, median %+.3f); throughput %s%% of alone (min %.1f, median %.1f)\n",
			name, rounds, list(added, "%+.3f"), slices.Min(added), median(added), list(ratios, "%.1f"), slices.Min(ratios), median(ratios))
	}
	return nil
}

// joined is two phases as one.
func joined(a, b phase) phase {
	return phase{cpu: pluginproc.Processor{Plugins: a.cpu.Plugins + b.cpu.Plugins, Mattermost: a.cpu.Mattermost + b.cpu.Mattermost,
		PostgreSQL: a.cpu.PostgreSQL + b.cpu.PostgreSQL}, calls: a.calls + b.calls, took: a.took + b.took}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func list(xs []float64, format string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(parts, "/")
}
