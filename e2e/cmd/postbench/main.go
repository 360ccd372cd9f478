// Command postbench measures the peak memory of the real plugin process
// while 16 people post at once, each redeeming an upload handle of a 50 MiB
// file through create_post (writes allowed, with the client's own approval,
// so each call stages and posts at once). It prints the plugin process's
// peak resident set (VmHWM, reset just before the posts) beside the bound
// posting promises: slots x chunk + 128 MiB. It prints figures; it asserts
// nothing, so the same command measures an older bundle for comparison.
//
//	go run ./e2e/cmd/postbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
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

const (
	concurrent = 16
	fileMiB    = 50
	// headroom is what the bound allows beside the streams: the Go runtime,
	// the plugin's code and its idle heap.
	headroomMiB = 128
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	flag.Parse()
	if err := run(*bundle); err != nil {
		fmt.Fprintln(os.Stderr, "postbench:", err)
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
	if err := mm.PatchPluginSettings(map[string]any{"MaxWorkspaceFileMiB": fileMiB, "WorkspaceQuotaMiB": 2 * fileMiB}); err != nil {
		return err
	}
	pid, err := pluginPID(mm)
	if err != nil {
		return err
	}
	town, _, err := mm.Client(mm.Admin).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	// One person per post keeps every upload within its own quota; each
	// file is different, so nothing can be shared between them.
	users := make([]harness.User, concurrent)
	handles := make([]string, concurrent)
	sums := make([]string, concurrent)
	for i := range users {
		if users[i], err = mm.CreateUser(fmt.Sprintf("post%d", i)); err != nil {
			return err
		}
		data := make([]byte, fileMiB<<20)
		if _, err := rand.NewChaCha8([32]byte{byte(i)}).Read(data); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		sums[i] = hex.EncodeToString(sum[:])
		var slot struct {
			Handle string `json:"handle"`
			Upload struct {
				URL string `json:"url"`
			} `json:"upload"`
		}
		if err := callTool(mm.URL, users[i].Token, "request_upload", map[string]any{"name": fmt.Sprintf("redeem%d.bin", i), "size": len(data), "sha256": sums[i]}, &slot); err != nil {
			return err
		}
		if err := put(slot.Upload.URL, data); err != nil {
			return err
		}
		handles[i] = slot.Handle
	}
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true, "WriteConfirmation": config.ConfirmClientApproval}); err != nil {
		return err
	}
	time.Sleep(time.Second) // let the upload phase's garbage be collected
	rest := status(pid, "VmRSS")
	reset := resetPeak(pid)
	started := time.Now()
	sampledPeak, err := sampled(pid, func() error {
		return parallel(func(i int) error {
			var posted struct {
				PostID string `json:"post_id"`
			}
			if err := callTool(mm.URL, users[i].Token, "create_post", map[string]any{"channel": town.Id, "message": "redeemed",
				"files": []map[string]any{{"handle": handles[i]}}}, &posted); err != nil {
				return err
			}
			return checkPosted(mm, users[i], posted.PostID, sums[i])
		})
	})
	took := time.Since(started)
	if err != nil {
		return err
	}
	hwm := status(pid, "VmHWM")
	bound := int64(workspace.RedeemSlots*workspace.ChunkSize>>20) + headroomMiB
	fmt.Printf("plugin process %d, resident at rest before the posts: %d MiB\n", pid, rest>>10)
	fmt.Printf("%d concurrent create_post, each redeeming a %d MiB handle: all %d posted byte-identical in %.1f s\n", concurrent, fileMiB, concurrent, took.Seconds())
	if reset {
		fmt.Printf("  peak resident (VmHWM, reset before the posts): %d MiB\n", hwm>>10)
	} else {
		fmt.Printf("  peak resident (VmHWM since the plugin started; /proc/%d/clear_refs could not be written): %d MiB\n", pid, hwm>>10)
	}
	fmt.Printf("  peak resident sampled every 5 ms: %d MiB\n", sampledPeak>>10)
	fmt.Printf("  bound: slots x chunk + %d MiB = %d x %d MiB + %d MiB = %d MiB\n", headroomMiB, workspace.RedeemSlots, workspace.ChunkSize>>20, headroomMiB, bound)
	fmt.Printf("  (for scale: slots x file = %d MiB, %d files x %d MiB = %d MiB)\n", workspace.RedeemSlots*fileMiB, concurrent, fileMiB, concurrent*fileMiB)
	verdict := "within"
	if hwm>>10 > bound {
		verdict = "OVER"
	}
	fmt.Printf("  %s the bound by %d MiB\n", verdict, abs(bound-hwm>>10))
	return nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// checkPosted reads the post's file back as its author and compares sha256.
func checkPosted(mm *harness.Server, u harness.User, postID, want string) error {
	ctx := context.Background()
	c := mm.Client(u)
	p, _, err := c.GetPost(ctx, postID, "")
	if err != nil {
		return err
	}
	if len(p.FileIds) != 1 {
		return fmt.Errorf("post %s has %d files", postID, len(p.FileIds))
	}
	data, _, err := c.GetFile(ctx, p.FileIds[0])
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != want {
		return fmt.Errorf("post %s: the file differs from the upload", postID)
	}
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
			if v := status(pid, "VmRSS"); v > peak.Load() {
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

// resetPeak sets the process's VmHWM back to its current resident set.
func resetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

func put(u string, data []byte) error {
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	if err != nil {
		return err
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
	init.Params.ClientInfo = mcp.Implementation{Name: "postbench", Version: "1"}
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
	if res.IsError {
		return fmt.Errorf("%s refused: %v", tool, res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// pluginPID finds the plugin's process: a child of Mattermost whose
// executable lies under the harness's temp dir.
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
		parent, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(ppid(pid)), "cmdline"))
		if err != nil || !strings.Contains(string(parent), "mattermost") {
			continue
		}
		return pid, nil
	}
	return 0, fmt.Errorf("no plugin process under %s", mm.TempDir())
}

// ppid is a process's parent, from /proc/<pid>/stat (after the command in
// parentheses: state, then the parent's id).
func ppid(pid int) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}

// status reads one VmXXX line of /proc/<pid>/status, in KiB.
func status(pid int, field string) int64 {
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
