// Command profcall (scratch) loops one tool call against one node while
// fetching the plugin's CPU and block profiles.
package main

import (
	"context"
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

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

func main() {
	bundle := flag.String("bundle", "", "")
	tool := flag.String("tool", "get_me", "")
	secs := flag.Int("seconds", 10, "")
	par := flag.Int("parallel", 1, "")
	version := flag.String("version", "2025-11-25", "")
	flag.Parse()
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: *bundle, LogWriter: io.Discard, ExtraEnv: []string{"MCP_PLUGIN_PPROF=127.0.0.1:6070"}})
	if err != nil {
		panic(err)
	}
	defer mm.Close()
	_ = mm.LiftCallRate()
	alice := mm.Users[0]
	api := mm.Client(alice)
	town, _, _ := api.GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	var text strings.Builder
	for i := 1; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "%06d the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	up, _, _ := api.UploadFile(ctx, []byte(text.String()), town.Id, "big.txt")
	id := up.FileInfos[0].Id
	_, _, _ = api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "fastbench", FileIds: []string{id}})
	c, err := harness.ConnectMCPVersion(ctx, mm.URL, alice.Token, "profcall", *version)
	if err != nil {
		panic(err)
	}
	fetch := func(path, out string) {
		resp, err := http.Get("http://127.0.0.1:6070/debug/pprof/" + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		f, _ := os.Create(out)
		io.Copy(f, resp.Body)
		f.Close()
	}
	tools := strings.Split(*tool, ",")
	for _, tl := range tools {
		args := map[string]any{}
		switch tl {
		case "read_file":
			args = map[string]any{"file_id": id, "offset": 501, "limit": 500}
		case "read_file1":
			args = map[string]any{"file_id": id, "limit": 200}
			tl = "read_file"
		case "read_channel":
			args = map[string]any{"channel": town.Id, "limit": 30}
		case "search_posts":
			args = map[string]any{"terms": "fastbench"}
		}
		if _, err := harness.CallTool(ctx, c, tl, args); err != nil {
			panic(err)
		}
		fetch("block", "/tmp/prof-block-before.pb.gz")
		stop := time.Now().Add(time.Duration(*secs) * time.Second)
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		for range *par {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					t0 := time.Now()
					res, err := harness.CallTool(ctx, c, tl, args)
					if err != nil || res.IsError {
						fmt.Println("error", err)
					}
					mu.Lock()
					lat = append(lat, time.Since(t0))
					mu.Unlock()
				}
			}()
		}
		cpuDone := make(chan struct{})
		go func() {
			fetch(fmt.Sprintf("profile?seconds=%d", *secs-1), "/tmp/prof-cpu-"+tl+".pb.gz")
			close(cpuDone)
		}()
		wg.Wait()
		<-cpuDone
		fetch("block", "/tmp/prof-block-"+tl+".pb.gz")
		slices.Sort(lat)
		fmt.Printf("%s: %d calls, p50 %s p90 %s\n", tl, len(lat), lat[len(lat)/2], lat[len(lat)*9/10])
		out, _ := exec.Command("go", "tool", "pprof", "-top", "-sample_index=contentions", "-nodecount=300", "-base", "/tmp/prof-block-before.pb.gz", "/tmp/prof-block-"+tl+".pb.gz").Output()
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "apiRPCClient") || strings.Contains(line, "httpResponseWriterRPCClient") || strings.Contains(line, "remoteIOReader") || strings.Contains(line, "hooksRPCServer).ServeHTTP") {
				fmt.Println("   ", line)
			}
		}
	}
}
