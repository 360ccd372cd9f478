// Command wsbench measures the peak memory of the real plugin process while
// 16 transfers of the largest allowed workspace file run at once through
// the workspace routes (16 REST uploads, then 16 presigned downloads). It
// prints figures; it asserts nothing.
//
// Then 16 people post at once, each redeeming a handle of the largest file
// through create_post: the redemptions the slot bound is about.
//
//	go run ./e2e/cmd/wsbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
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
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true})
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
	proc, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	users := make([]harness.User, concurrent)
	for i := range users {
		if users[i], err = mm.CreateUser(fmt.Sprintf("bench%d", i)); err != nil {
			return err
		}
	}
	base := proc.KiB("VmRSS")
	fmt.Printf("plugin process %d, resident at rest: %d MiB\n", proc.PID, base>>10)
	site := strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server"
	data := bytes.Repeat([]byte("0123456789abcdef"), int(fileBytes/16))

	peak, err := proc.Peak(5*time.Millisecond, func() error {
		return pluginproc.AtOnce(concurrent, func(i int) error {
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
	base = proc.KiB("VmRSS")
	peak, err = proc.Peak(5*time.Millisecond, func() error {
		return pluginproc.AtOnce(concurrent, func(i int) error { return get(urls[i], fileBytes) })
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
		if err := harness.CallToolOnce(ctx, mm.URL, users[i].Token, "wsbench", "request_upload", map[string]any{"name": "redeem.bin", "size": fileBytes}, &slot); err != nil {
			return err
		}
		if err := put(slot.Upload.URL, "", data); err != nil {
			return err
		}
		handles[i] = slot.Handle
	}
	base = proc.KiB("VmRSS")
	peak, err = proc.Peak(5*time.Millisecond, func() error {
		return pluginproc.AtOnce(concurrent, func(i int) error {
			var posted map[string]any
			return harness.CallToolOnce(ctx, mm.URL, users[i].Token, "wsbench", "create_post", map[string]any{"channel": town.Id, "message": "redeemed",
				"files": []map[string]any{{"handle": handles[i]}}}, &posted)
		})
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d concurrent posts each redeeming a %d MiB handle: peak resident %d MiB (%d MiB above rest)\n",
		concurrent, fileBytes>>20, peak>>10, (peak-base)>>10)
	fmt.Printf("  redemptions stream: at most %d at once, each holding one 1 MiB chunk, not %d x %d MiB\n",
		workspace.RedeemSlots, concurrent, fileBytes>>20)
	return nil
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

func presign(site, token string) (string, error) {
	var out struct{ URL string }
	err := harness.CallToolOnce(context.Background(), site, token, "wsbench", "files_presign", map[string]any{"name": "large.bin", "direction": "download"}, &out)
	if err == nil && out.URL == "" {
		err = fmt.Errorf("files_presign gave no URL")
	}
	return out.URL, err
}
