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
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
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
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true})
	if err != nil {
		return err
	}
	defer mm.Close()
	if err := mm.PatchPluginSettings(map[string]any{"MaxWorkspaceFileMiB": fileMiB, "WorkspaceQuotaMiB": 2 * fileMiB}); err != nil {
		return err
	}
	proc, err := pluginproc.Find(mm)
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
		if err := harness.CallToolOnce(ctx, mm.URL, users[i].Token, "postbench", "request_upload", map[string]any{"name": fmt.Sprintf("redeem%d.bin", i), "size": len(data), "sha256": sums[i]}, &slot); err != nil {
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
	rest := proc.KiB("VmRSS")
	reset := proc.ResetPeak()
	started := time.Now()
	sampledPeak, err := proc.Peak(5*time.Millisecond, func() error {
		return pluginproc.AtOnce(concurrent, func(i int) error {
			var posted struct {
				PostID string `json:"post_id"`
			}
			if err := harness.CallToolOnce(ctx, mm.URL, users[i].Token, "postbench", "create_post", map[string]any{"channel": town.Id, "message": "redeemed",
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
	hwm := proc.KiB("VmHWM")
	bound := int64(workspace.RedeemSlots*workspace.ChunkSize>>20) + headroomMiB
	fmt.Printf("plugin process %d, resident at rest before the posts: %d MiB\n", proc.PID, rest>>10)
	fmt.Printf("%d concurrent create_post, each redeeming a %d MiB handle: all %d posted byte-identical in %.1f s\n", concurrent, fileMiB, concurrent, took.Seconds())
	if reset {
		fmt.Printf("  peak resident (VmHWM, reset before the posts): %d MiB\n", hwm>>10)
	} else {
		fmt.Printf("  peak resident (VmHWM since the plugin started; /proc/%d/clear_refs could not be written): %d MiB\n", proc.PID, hwm>>10)
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
