// Command callprofile shows where one tool call's time goes: it calls each
// named tool in a loop against one node of a real server and, for each,
// prints the latency and how many times the call waited on each plugin API
// method, on the database driver's and on the plugin RPC's response writer
// and body reader (read from
// the plugin's block profile: every such wait is a round trip to
// Mattermost), and keeps the plugin's CPU profile in
// /tmp/callprofile-cpu-<tool>.pb.gz for `go tool pprof`. It needs a bundle
// built for profiling:
//
//	make dist PLATFORMS=linux-amd64 GO_TAGS=mcppprof
//	go run ./e2e/cmd/callprofile -bundle $PWD/dist/mcp-server-0.1.0.tar.gz -tools get_me,read_file,fresh_read_file
//
// Tools: get_me, list_channels, read_channel, search_posts, search and
// search_files (of a word none of 30 documents holds), read_file
// (window 2 of a 1 MiB text, cut from its kept text), fresh_read_file
// (window 1 of a text just over 1 MiB never read before) and
// fresh_read_file_mb (of 1 MB, whose record's text is the file) and
// docx_read_file (window 2 of a long Word document's kept text). It
// measures; it asserts nothing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// pprofAddr is where the plugin built with mcppprof serves its profiles.
const pprofAddr = "127.0.0.1:6070"

func main() {
	bundle := flag.String("bundle", "", "plugin bundle built with GO_TAGS=mcppprof")
	names := flag.String("tools", "get_me,read_file", "tools to profile, comma-separated")
	secs := flag.Int("seconds", 5, "seconds of calls per tool")
	par := flag.Int("parallel", 1, "calls at once")
	version := flag.String("version", "2025-11-25", "protocol version of the client")
	flag.Parse()
	if err := run(*bundle, strings.Split(*names, ","), *secs, *par, *version); err != nil {
		fmt.Fprintln(os.Stderr, "callprofile:", err)
		os.Exit(1)
	}
}

func run(bundle string, names []string, secs, par int, version string) error {
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true, ExtraEnv: []string{"MCP_PLUGIN_PPROF=" + pprofAddr}})
	if err != nil {
		return err
	}
	defer mm.Close()
	if err := mm.LiftCallRate(); err != nil {
		return err
	}
	alice := mm.Users[0]
	api := mm.Client(alice)
	town, err := mm.TownSquare(ctx, alice)
	if err != nil {
		return err
	}
	uploadText := func(text []byte) (string, error) {
		up, _, err := api.UploadFile(ctx, text, town.Id, "big.txt")
		if err != nil {
			return "", err
		}
		id := up.FileInfos[0].Id
		_, _, err = api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "callprofile", FileIds: []string{id}})
		return id, err
	}
	upload := func() (string, error) { return uploadText(harness.MiBOfText()) }
	kept, err := upload()
	if err != nil {
		return err
	}
	c, err := harness.ConnectMCPVersion(ctx, mm.URL, alice.Token, "callprofile", version)
	if err != nil {
		return err
	}
	defer harness.EndMCPSession(ctx, mm.URL, alice.Token, c)
	for _, name := range names {
		tool, args := name, func() (map[string]any, bool) { return nil, true }
		switch name {
		case "read_file":
			args = func() (map[string]any, bool) {
				return map[string]any{"file_id": kept, "offset": 501, "limit": 500}, true
			}
		case "fresh_read_file", "fresh_read_file_mb":
			tool = "read_file"
			text := harness.MiBOfText()
			if name == "fresh_read_file_mb" {
				text = harness.TextOf(1_000_000)
			}
			var fresh []string
			for range 30 * secs {
				id, err := uploadText(text)
				if err != nil {
					return err
				}
				fresh = append(fresh, id)
			}
			var mu sync.Mutex
			args = func() (map[string]any, bool) { // each file once: the calls end with them
				mu.Lock()
				defer mu.Unlock()
				if len(fresh) == 0 {
					return nil, false
				}
				id := fresh[0]
				fresh = fresh[1:]
				return map[string]any{"file_id": id}, true
			}
		case "docx_read_file":
			tool = "read_file"
			up, _, err := api.UploadFile(ctx, harness.WordDocument(5<<20), town.Id, "big.docx")
			if err != nil {
				return err
			}
			id := up.FileInfos[0].Id
			if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "callprofile", FileIds: []string{id}}); err != nil {
				return err
			}
			args = func() (map[string]any, bool) {
				return map[string]any{"file_id": id, "offset": 501, "limit": 500}, true
			}
		case "read_channel":
			args = func() (map[string]any, bool) { return map[string]any{"channel": town.Id, "limit": 30}, true }
		case "search_posts":
			args = func() (map[string]any, bool) { return map[string]any{"terms": "callprofile"}, true }
		case "search", "search_files":
			// A word no document holds, as searchbench's first search.
			for i := range 30 {
				if _, err := uploadText(harness.Prose(i, 100<<10)); err != nil {
					return err
				}
			}
			if name == "search" {
				args = func() (map[string]any, bool) { return map[string]any{"query": "nobodywrotezanzibar"}, true }
			} else {
				args = func() (map[string]any, bool) { return map[string]any{"words": "nobodywrotezanzibar"}, true }
			}
		}
		size := 0
		if !strings.HasPrefix(name, "fresh_") {
			a, _ := args()
			res, err := harness.CallTool(ctx, c, tool, a) // warm: the kept text, the caches
			if err != nil {
				return err
			}
			b, _ := json.Marshal(res)
			size = len(b)
		}
		before := "/tmp/callprofile-block-before.pb.gz"
		after := "/tmp/callprofile-block-" + name + ".pb.gz"
		if err := profile("block", before); err != nil {
			return err
		}
		cpu := make(chan error, 1)
		go func() {
			cpu <- profile(fmt.Sprintf("profile?seconds=%d", max(1, secs-1)), "/tmp/callprofile-cpu-"+name+".pb.gz")
		}()
		lat := loop(ctx, c, tool, args, time.Duration(secs)*time.Second, par)
		if err := <-cpu; err != nil {
			return err
		}
		if err := profile("block", after); err != nil {
			return err
		}
		slices.Sort(lat)
		fmt.Printf("%s: %d calls, p50 %s, p90 %s, answer %d bytes; waits per call:\n", name, len(lat), lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*9/10].Round(10*time.Microsecond), size)
		if err := roundTrips(before, after, len(lat)); err != nil {
			return err
		}
	}
	return nil
}

// loop calls tool for d from par goroutines and returns each call's time.
func loop(ctx context.Context, c *client.Client, tool string, args func() (map[string]any, bool), d time.Duration, par int) []time.Duration {
	stop := time.Now().Add(d)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for time.Now().Before(stop) {
				a, ok := args()
				if !ok {
					return
				}
				t0 := time.Now()
				res, err := harness.CallTool(ctx, c, tool, a)
				if err != nil || res.IsError {
					fmt.Fprintln(os.Stderr, "callprofile: a call failed:", err)
				}
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat
}

// profile saves one of the plugin's profiles.
func profile(path, out string) error {
	resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/" + path)
	if err != nil {
		return fmt.Errorf("the plugin serves no profiles (build it with GO_TAGS=mcppprof): %w", err)
	}
	defer resp.Body.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	return errors.Join(err, f.Close())
}

// roundTrips prints the plugin RPC waits between two block profiles, per
// call: net/rpc blocks about twice per round trip (sending, then waiting
// for the answer), so the counts are halved.
func roundTrips(before, after string, calls int) error {
	out, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index=contentions", "-nodecount=500", "-base", before, after).Output()
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		fn := f[len(f)-1]
		for _, kind := range []string{"apiRPCClient).", "httpResponseWriterRPCClient).", "remoteIOReader).", "dbRPCClient)."} {
			if i := strings.Index(fn, kind); i >= 0 && !strings.HasSuffix(fn, ".Close") {
				var n float64
				fmt.Sscan(f[3], &n)
				fmt.Printf("  %-40s %5.1f\n", fn[i:], n/2/float64(calls))
			}
		}
	}
	return nil
}
