// Command searchbench measures file search over a channel of many large
// documents (issue 54): P searches at once, by the research tool search and
// by search_files, of a word no document holds (every candidate looked at)
// and of a word every document holds, against Mattermost's own REST file
// search (POST /api/v4/teams/{id}/files/search) of the same words on the
// same server, and against what search asks of Mattermost by REST (posts,
// files and channels), and get_me, the floor of any tool call through the
// plugin, measured the same way. It prints each round's median time per
// search, its ratio to REST's file search, the processor time each process
// spent a search, and the peak resident memory of the plugin and of
// Mattermost above what they held at rest, then each figure's minimum and
// median over the rounds; it asserts nothing.
//
//	go run ./e2e/cmd/searchbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz [-docs 300] [-kib 900] [-at-once 8] [-rounds 3]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
)

// The words searched: one no document holds, and one every document
// holds (its first line).
const (
	missingWord = "nobodywrotezanzibar"
	presentWord = "quarterlyharbour"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	docs := flag.Int("docs", 300, "documents in the channel")
	kib := flag.Int("kib", 900, "size of each document in KiB")
	atOnce := flag.Int("at-once", 8, "searches sent at once")
	rounds := flag.Int("rounds", 3, "rounds of each search")
	flag.Parse()
	if err := run(*bundle, *docs, *kib, *atOnce, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

// search is one way to search: its name and one search of word.
type search struct {
	name string
	call func(ctx context.Context, i int, word string) error
}

func run(bundle string, docs, kib, atOnce, rounds int) error {
	ctx := context.Background()
	mm, err := harness.StartForBench(ctx, harness.Options{BundlePath: bundle})
	if err != nil {
		return err
	}
	defer mm.Close()
	plugin, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	server := pluginproc.Proc{PID: mm.PIDs()[0]}
	alice := mm.Users[0]
	ch, _, err := mm.Client(alice).CreateChannel(ctx, &model.Channel{TeamId: mm.Team.Id, Name: "drive-" + model.NewId()[:8], DisplayName: "Team drive", Type: model.ChannelTypeOpen})
	if err != nil {
		return err
	}
	started := time.Now()
	if err := postDocuments(ctx, mm, alice, ch.Id, docs, kib); err != nil {
		return err
	}
	fmt.Printf("%d documents of %d KiB posted and extracted in %v\n", docs, kib, time.Since(started).Round(time.Second))
	// As autovacuum would soon: REST's search, whose plan follows the
	// statistics, is measured as on a server in use.
	if err := mm.Analyze(ctx); err != nil {
		return err
	}

	clients := make([]*client.Client, atOnce)
	for i := range clients {
		if clients[i], err = harness.ConnectMCP(ctx, mm.URL, alice.Token, "searchbench"); err != nil {
			return err
		}
		defer clients[i].Close()
	}
	tool := func(name string, args func(word string) map[string]any) search {
		return search{name: name, call: func(ctx context.Context, i int, word string) error {
			res, err := harness.CallTool(ctx, clients[i], name, args(word))
			if err == nil && res.IsError {
				err = fmt.Errorf("%s refused: %v", name, res.Content)
			}
			return err
		}}
	}
	searches := []search{
		{name: "REST", call: func(ctx context.Context, _ int, word string) error {
			return restSearch(ctx, mm.URL, alice.Token, mm.Team.Id, word)
		}},
		// What search itself asks of Mattermost, by REST: posts, files and
		// channels.
		{name: "REST x3", call: func(ctx context.Context, _ int, word string) error {
			return restResearch(ctx, mm.URL, alice.Token, mm.Team.Id, word)
		}},
		tool("search", func(word string) map[string]any { return map[string]any{"query": word} }),
		tool("search_files", func(word string) map[string]any { return map[string]any{"words": word} }),
		// The floor of any tool call through the plugin, searching nothing.
		tool("get_me", func(string) map[string]any { return map[string]any{} }),
	}
	fmt.Printf("resident at rest: plugin %d MiB, Mattermost %d MiB; %d searches at once, %d rounds\n",
		plugin.KiB("VmRSS")>>10, server.KiB("VmRSS")>>10, atOnce, rounds)
	for _, word := range []string{missingWord, presentWord} {
		times := map[string][]time.Duration{}
		pluginPeaks, serverPeaks := map[string][]int64{}, map[string][]int64{}
		for round := 1; round <= rounds; round++ {
			for _, s := range searches {
				cpu := pluginproc.ProcessorNow(mm)
				took, pluginPeak, serverPeak, err := batch(ctx, plugin, server, atOnce, func(i int) error { return s.call(ctx, i, word) })
				if err != nil {
					return fmt.Errorf("%s of %q: %w", s.name, word, err)
				}
				used := pluginproc.ProcessorNow(mm).Since(cpu)
				times[s.name] = append(times[s.name], took)
				pluginPeaks[s.name], serverPeaks[s.name] = append(pluginPeaks[s.name], pluginPeak), append(serverPeaks[s.name], serverPeak)
				fmt.Printf("%q round %d %-12s median %8v (%5.2fx REST)  plugin +%d MiB, Mattermost +%d MiB; processor a search: plugin %.1f, Mattermost %.1f, PostgreSQL %.1f ms\n", word, round, s.name,
					took.Round(100*time.Microsecond), ratio(took, times["REST"][round-1]), pluginPeak>>10, serverPeak>>10,
					used.Plugins*1000/float64(atOnce), used.Mattermost*1000/float64(atOnce), used.PostgreSQL*1000/float64(atOnce))
			}
		}
		for _, s := range searches {
			ratios := make([]float64, rounds)
			for i := range ratios {
				ratios[i] = ratio(times[s.name][i], times["REST"][i])
			}
			if s.name == "search" {
				for i := range ratios {
					ratios[i] = ratio(times[s.name][i], times["REST x3"][i])
				}
				fmt.Printf("%q %-12s x REST of posts, files and channels: min %.2f median %.2f\n", word, s.name, slices.Min(ratios), pluginproc.Median(ratios))
				for i := range ratios {
					ratios[i] = ratio(times[s.name][i], times["REST"][i])
				}
			}
			fmt.Printf("%q %-12s time min %v median %v; x REST min %.2f median %.2f; plugin +%d/+%d MiB, Mattermost +%d/+%d MiB (min/median)\n", word, s.name,
				slices.Min(times[s.name]).Round(100*time.Microsecond), pluginproc.Median(times[s.name]).Round(100*time.Microsecond),
				slices.Min(ratios), pluginproc.Median(ratios), slices.Min(pluginPeaks[s.name])>>10, pluginproc.Median(pluginPeaks[s.name])>>10,
				slices.Min(serverPeaks[s.name])>>10, pluginproc.Median(serverPeaks[s.name])>>10)
		}
	}
	return nil
}

// batch runs n searches at once and returns their median time, and the
// peak resident memory of the plugin and of Mattermost above what each held
// just before.
func batch(ctx context.Context, plugin, server pluginproc.Proc, n int, one func(i int) error) (time.Duration, int64, int64, error) {
	pluginBase, serverBase := plugin.KiB("VmRSS"), server.KiB("VmRSS")
	took := make([]time.Duration, n)
	var serverPeak int64
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		serverPeak, _ = server.Peak(5*time.Millisecond, func() error { <-done; return nil })
	}()
	pluginPeak, err := plugin.Peak(5*time.Millisecond, func() error {
		return pluginproc.AtOnce(n, func(i int) error {
			start := time.Now()
			err := one(i)
			took[i] = time.Since(start)
			return err
		})
	})
	close(done)
	wg.Wait()
	return pluginproc.Median(took), max(pluginPeak-pluginBase, 0), max(serverPeak-serverBase, 0), err
}

// postDocuments posts n documents of kib KiB to the channel, one a post,
// four at a time, and waits until Mattermost has extracted the text of
// each. The oldest holds a word no other does; each holds presentWord.
func postDocuments(ctx context.Context, mm *harness.Server, u harness.User, channelID string, n, kib int) error {
	c := mm.Client(u)
	sem := make(chan struct{}, 4)
	errs := make(chan error, n)
	ids := make([]string, n)
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			text := append([]byte(fmt.Sprintf("Document %d of the team drive, %s.\n", i, presentWord)), harness.Prose(i, kib<<10)...)
			up, _, err := c.UploadFile(ctx, text, channelID, fmt.Sprintf("document-%03d.txt", i))
			if err == nil {
				ids[i] = up.FileInfos[0].Id
				_, _, err = c.CreatePost(ctx, &model.Post{ChannelId: channelID, Message: fmt.Sprintf("document %d", i), FileIds: model.StringArray{up.FileInfos[0].Id}})
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			return err
		}
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		done, err := mm.ExtractedFiles(ctx, ids)
		if err != nil {
			return err
		}
		if done == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Mattermost extracted the text of %d of %d documents in 5 minutes", done, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// restSearch is Mattermost's own file search of word, as its web app sends
// it.
func restSearch(ctx context.Context, site, token, teamID, word string) error {
	return restPost(ctx, site, token, "/api/v4/teams/"+teamID+"/files/search", map[string]any{"terms": word, "is_or_search": false, "page": 0, "per_page": 20})
}

// restResearch is what search asks of Mattermost, by REST: a search of
// posts, of files and of the team's channels, one after the other.
func restResearch(ctx context.Context, site, token, teamID, word string) error {
	if err := restPost(ctx, site, token, "/api/v4/teams/"+teamID+"/posts/search", map[string]any{"terms": word, "is_or_search": false, "page": 0, "per_page": 20}); err != nil {
		return err
	}
	if err := restSearch(ctx, site, token, teamID, word); err != nil {
		return err
	}
	return restPost(ctx, site, token, "/api/v4/teams/"+teamID+"/channels/search", map[string]any{"term": word})
}

// restPost posts a JSON body to one of Mattermost's REST routes as the
// token's person and reads the whole answer.
func restPost(ctx context.Context, site, token, path string, payload map[string]any) error {
	body, _ := json.Marshal(payload)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(site, "/")+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("REST %s: %d %s", path, resp.StatusCode, out)
	}
	return nil
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
