// Command loadbench runs many MCP clients at once against two Mattermost
// servers behind a strict round-robin proxy (a cluster without sticky
// sessions): each client initializes, then makes a series of read calls
// (get_me, list_channels, read_channel, read_file, search_posts). It prints
// the errors and the latency of the calls (p50, p99, max); it asserts
// nothing.
//
//	go run ./e2e/cmd/loadbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	clients := flag.Int("clients", 200, "MCP clients at once")
	calls := flag.Int("calls", 20, "read calls per client")
	people := flag.Int("people", 20, "people the clients sign in as (clients share them)")
	flag.Parse()
	if err := run(*bundle, *clients, *calls, *people); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(bundle string, clients, calls, people int) error {
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
	users := make([]harness.User, people)
	for i := range users {
		if users[i], err = mm.CreateUser(fmt.Sprintf("load%d", i)); err != nil {
			return err
		}
	}
	// Something to read: a channel with posts and a text attachment.
	admin := mm.Client(mm.Admin)
	ch, _, err := admin.GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	up, _, err := admin.UploadFile(ctx, []byte(strings.Repeat("a line of the load test's file\n", 2000)), ch.Id, "load.txt")
	if err != nil {
		return err
	}
	if _, _, err := admin.CreatePost(ctx, &model.Post{ChannelId: ch.Id, Message: "loadbench file", FileIds: []string{up.FileInfos[0].Id}}); err != nil {
		return err
	}
	for i := 0; i < 30; i++ {
		if _, _, err := admin.CreatePost(ctx, &model.Post{ChannelId: ch.Id, Message: fmt.Sprintf("loadbench post %d", i)}); err != nil {
			return err
		}
	}
	fileID := up.FileInfos[0].Id
	reads := []struct {
		tool string
		args map[string]any
	}{
		{"get_me", nil},
		{"list_channels", nil},
		{"read_channel", map[string]any{"channel": ch.Id, "limit": 30}},
		{"read_file", map[string]any{"file_id": fileID, "limit": 200}},
		{"search_posts", map[string]any{"terms": "loadbench"}},
	}

	var mu sync.Mutex
	var latencies []time.Duration
	var failures []string
	fail := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 { // the first few say enough
			failures = append(failures, s)
		}
	}
	errorsSeen := 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	began := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			u := users[i%people]
			<-start
			// Making and starting the client sends nothing: any error is
			// the initialize call's.
			c, err := harness.ConnectMCP(ctx, proxy, u.Token, "loadbench")
			if err != nil {
				mu.Lock()
				errorsSeen++
				mu.Unlock()
				fail("initialize: " + err.Error())
				return
			}
			defer c.Close()
			for n := 0; n < calls; n++ {
				r := reads[(i+n)%len(reads)]
				t0 := time.Now()
				res, err := harness.CallTool(ctx, c, r.tool, r.args)
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil || res.IsError {
					errorsSeen++
				}
				mu.Unlock()
				if err != nil {
					fail(r.tool + ": " + err.Error())
				} else if res.IsError {
					fail(r.tool + " answered an error")
				}
			}
		}(i)
	}
	close(start)
	wg.Wait()
	elapsed := time.Since(began)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	at := func(q float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(q*float64(len(latencies))))]
	}
	n1, n2 := mm.ProxyHits()
	fmt.Printf("%d clients x %d read calls through a round robin of two servers: %d calls in %s, %d errors\n",
		clients, calls, len(latencies), elapsed.Round(time.Millisecond), errorsSeen)
	fmt.Printf("latency p50 %s, p99 %s, max %s; requests node 1 %d, node 2 %d\n",
		at(0.50).Round(time.Millisecond), at(0.99).Round(time.Millisecond), at(1).Round(time.Millisecond), n1, n2)
	for _, f := range failures {
		fmt.Println("  error:", f)
	}
	return nil
}
