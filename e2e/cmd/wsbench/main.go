// Command wsbench measures the peak memory of the real plugin process while
// 16 transfers of the largest allowed workspace file run at once through
// the workspace routes (16 REST uploads, then 16 presigned downloads), and
// prints it beside largest file x redemption slots, the bound the redemption
// of handles promises. It prints figures; it asserts nothing.
//
// Then 16 people post at once, each redeeming a handle of the largest file
// through create_post: the redemptions the slot bound is about.
//
//	go run ./e2e/cmd/wsbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

const concurrent = 16

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	flag.Parse()
	if err := run(*bundle); err != nil {
		fmt.Fprintln(os.Stderr, "wsbench:", err)
		os.Exit(1)
	}
}

func run(bundle string) error {
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard})
	if err != nil {
		return err
	}
	defer mm.Close()
	fileBytes := int64(config.DefaultMaxWorkspaceFileMiB) << 20
	// Room for 16 largest files per person: one person per transfer keeps
	// every upload within its own quota.
	if err := mm.PatchPluginSettings(map[string]any{"WorkspaceQuotaMiB": 2 * config.DefaultMaxWorkspaceFileMiB}); err != nil {
		return err
	}
	pid, err := pluginPID(mm)
	if err != nil {
		return err
	}
	users := make([]harness.User, concurrent)
	for i := range users {
		if users[i], err = mm.CreateUser(fmt.Sprintf("bench%d", i)); err != nil {
			return err
		}
	}
	base := rssKiB(pid, "VmRSS")
	fmt.Printf("plugin process %d, resident at rest: %d MiB\n", pid, base>>10)
	site := strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server"
	data := bytes.Repeat([]byte("0123456789abcdef"), int(fileBytes/16))

	peak, err := sampled(pid, func() error {
		return parallel(func(i int) error {
			return put(site+workspace.APIPath+"/large.bin", users[i].Token, data)
		})
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d concurrent %d MiB REST uploads: peak resident %d MiB (%d MiB above rest)\n", concurrent, fileBytes>>20, peak>>10, (peak-base)>>10)

	urls := make([]string, concurrent)
	for i := range urls {
		if urls[i], err = presign(mm.URL, users[i].Token); err != nil {
			return err
		}
	}
	base = rssKiB(pid, "VmRSS")
	peak, err = sampled(pid, func() error {
		return parallel(func(i int) error { return get(urls[i], fileBytes) })
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d concurrent %d MiB presigned downloads: peak resident %d MiB (%d MiB above rest)\n", concurrent, fileBytes>>20, peak>>10, (peak-base)>>10)
	fmt.Printf("largest file x redemption slots = %d MiB x %d = %d MiB\n", fileBytes>>20, workspace.RedeemSlots, (fileBytes>>20)*workspace.RedeemSlots)

	// Redemptions: each person fills an upload slot, then posts with its
	// handle (the person's own client approval is the only check here).
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true, "WriteConfirmation": config.ConfirmClientApproval}); err != nil {
		return err
	}
	town, _, err := mm.Client(mm.Admin).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	handles := make([]string, concurrent)
	for i := range handles {
		var slot struct {
			Handle string `json:"handle"`
			Upload struct {
				URL string `json:"url"`
			} `json:"upload"`
		}
		if err := callTool(mm.URL, users[i].Token, "request_upload", map[string]any{"name": "redeem.bin", "size": fileBytes}, &slot); err != nil {
			return err
		}
		if err := put(slot.Upload.URL, "", data); err != nil {
			return err
		}
		handles[i] = slot.Handle
	}
	base = rssKiB(pid, "VmRSS")
	peak, err = sampled(pid, func() error {
		return parallel(func(i int) error {
			var posted map[string]any
			return callTool(mm.URL, users[i].Token, "create_post", map[string]any{"channel": town.Id, "message": "redeemed",
				"files": []map[string]any{{"handle": handles[i]}}}, &posted)
		})
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d concurrent posts each redeeming a %d MiB handle: peak resident %d MiB (%d MiB above rest)\n",
		concurrent, fileBytes>>20, peak>>10, (peak-base)>>10)
	fmt.Printf("  file bytes held at once are bounded by largest file x slots = %d MiB; each upload through the plugin RPC\n"+
		"  adds transient copies while it is encoded, so the process peak is a small multiple of that, not 16 x %d MiB\n",
		(fileBytes>>20)*workspace.RedeemSlots, fileBytes>>20)
	return nil
}

func parallel(f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, concurrent)
	for i := range concurrent {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(i) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sampled runs f while sampling the process's resident set every 5 ms.
func sampled(pid int, f func() error) (peakKiB int64, err error) {
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if v := rssKiB(pid, "VmRSS"); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	err = f()
	close(stop)
	<-done
	return peak.Load(), err
}

func put(u, token string, data []byte) error {
	req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("PUT: %d %s", resp.StatusCode, body)
	}
	return nil
}

func get(u string, want int64) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != want {
		return fmt.Errorf("GET: %d bytes of %d, %v", n, want, err)
	}
	return nil
}

// callTool calls one tool as the token's user and decodes its structured
// answer into out.
func callTool(site, token, tool string, args map[string]any, out any) error {
	c, err := client.NewStreamableHttpClient(strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "wsbench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		return fmt.Errorf("%s refused: %v", tool, res.Content)
	}
	return json.Unmarshal(raw, out)
}

func presign(site, token string) (string, error) {
	var out struct{ URL string }
	err := callTool(site, token, "files_presign", map[string]any{"name": "large.bin", "direction": "download"}, &out)
	if err == nil && out.URL == "" {
		err = fmt.Errorf("files_presign gave no URL")
	}
	return out.URL, err
}

// pluginPID finds the plugin's process: its executable lies under the
// harness's temp dir.
func pluginPID(mm *harness.Server) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), "plugin-linux-amd64") || !strings.Contains(string(cmd), mm.TempDir()) {
			continue
		}
		return pid, nil
	}
	return 0, fmt.Errorf("no plugin process under %s", mm.TempDir())
}

// rssKiB reads one VmXXX line of /proc/<pid>/status, in KiB.
func rssKiB(pid int, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
