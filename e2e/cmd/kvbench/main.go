// Command kvbench measures what one person's MCP sessions leave in the KV
// store and whether their list of writes waiting for them survives it: one
// person tries to open 20,000 MCP sessions (initialize calls of protocol
// 2025-11-25, several at once, none ended); past MaxSessionsPerPerson, all in
// use, the rest are refused with 503. Then one write waits for them in
// Mattermost. It prints the time the sessions took, how many were opened and
// refused, the KV rows they left, the plugin's resident memory, and whether
// the person's confirmation list and get_pending still show the write. It
// prints figures; it asserts nothing.
//
//	go run ./e2e/cmd/kvbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	sessions := flag.Int("sessions", 20000, "MCP sessions the person opens")
	workers := flag.Int("concurrency", 8, "initialize calls at once")
	flag.Parse()
	if err := run(*bundle, *sessions, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "kvbench:", err)
		os.Exit(1)
	}
}

func run(bundle string, sessions, workers int) error {
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true})
	if err != nil {
		return err
	}
	defer mm.Close()
	person := mm.Users[0]
	site := strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server"
	proc, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	fmt.Printf("== one person tries to open %d MCP sessions, %d at a time, ending none ==\n", sessions, workers)
	fmt.Printf("plugin resident at rest: %d MiB\n", proc.KiB("VmRSS")>>10)

	var failed, refused atomic.Int64
	var firstErr atomic.Value
	started := time.Now()
	peak, err := proc.Peak(20*time.Millisecond, func() error {
		parallel(sessions, workers, func(int) {
			if err := initialize(site+"/mcp", person.Token); errors.Is(err, errRefused) {
				refused.Add(1)
			} else if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
		})
		return nil
	})
	if err != nil {
		return err
	}
	took := time.Since(started)
	fmt.Printf("tried in %s (%.0f per second): %d opened, %d refused with 503 (every session in use), %d failed",
		took.Round(time.Millisecond), float64(sessions)/took.Seconds(), int64(sessions)-refused.Load()-failed.Load(), refused.Load(), failed.Load())
	if e := firstErr.Load(); e != nil {
		fmt.Printf(" (first: %s)", e)
	}
	fmt.Println()
	fmt.Printf("plugin resident: peak %d MiB while opening, %d MiB after\n", peak>>10, proc.KiB("VmRSS")>>10)
	rows, size, err := mm.KVRows(ctx, "mcpsession_", `"user_id":"`+person.ID+`"`)
	if err != nil {
		return err
	}
	all, allSize, err := mm.KVRows(ctx, "", "")
	if err != nil {
		return err
	}
	fmt.Printf("the person's session records in the KV store: %d rows, %d KiB; the plugin's KV store: %d rows, %d KiB\n",
		rows, size>>10, all, allSize>>10)

	fmt.Println()
	fmt.Println("== then one write waits for the person in Mattermost ==")
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true, "WriteConfirmation": config.ConfirmMattermost}); err != nil {
		return err
	}
	c, err := harness.ConnectMCP(ctx, mm.URL, person.Token, "kvbench")
	if err != nil {
		return err
	}
	defer c.Close()
	town, _, err := mm.Client(person).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	marker := "kvbench-" + model.NewId()[:8]
	go func() {
		// It waits up to a minute for an answer that never comes.
		_, _ = harness.CallTool(ctx, c, "create_post", map[string]any{"channel": town.Id, "message": marker})
	}()
	listURL := site + approval.APIPath
	shown := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !shown; time.Sleep(200 * time.Millisecond) {
		body, err := getBody(listURL, person.Token)
		if err != nil {
			return err
		}
		shown = strings.Contains(body, marker)
	}
	listTime, err := median(9, func() error { _, err := getBody(listURL, person.Token); return err })
	if err != nil {
		return err
	}
	fmt.Printf("confirmation list (GET %s): shows the write: %v; %s per request (median of 9)\n", approval.APIPath, shown, listTime.Round(time.Microsecond))
	var pending string
	pendingTime, err := median(9, func() error {
		res, err := harness.CallTool(ctx, c, "get_pending", nil)
		if err == nil {
			pending = text(res)
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("get_pending: shows the write: %v; %s per call (median of 9)\n", strings.Contains(pending, marker), pendingTime.Round(time.Microsecond))
	return nil
}

// errRefused is an initialize refused because every session of the person
// is in use.
var errRefused = errors.New("refused: every session in use")

// initialize opens one MCP session as the token's user.
func initialize(endpoint, token string) error {
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"kvbench","version":"1"}}}`))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" {
		return errRefused
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		return fmt.Errorf("initialize: %d %s", resp.StatusCode, body)
	}
	return nil
}

func getBody(u, token string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	return string(body), err
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	b.Write(raw)
	return b.String()
}

// parallel runs f(0..n-1) on workers goroutines.
func parallel(n, workers int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				f(int(i))
			}
		}()
	}
	wg.Wait()
}

func median(runs int, f func() error) (time.Duration, error) {
	times := make([]time.Duration, 0, runs)
	for range runs {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
