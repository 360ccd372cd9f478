// Command chatfilebench measures a file ChatGPT hands over by link (its
// file params) reaching the person: create_post with chatgpt_files whose
// download_url is on a local stand-in for ChatGPT's file host, from the
// call until the person is asked (the file fetched whole into Mattermost as
// the post's upload and described on the way), against a REST upload of
// the same bytes to Mattermost itself (POST /api/v4/files). It prints each
// round's time, ratio, the plugin process's peak resident memory above
// rest and the processor time the plugin, Mattermost and PostgreSQL spent
// on each, then each figure's minimum and median; it asserts nothing.
//
//	go run ./e2e/cmd/chatfilebench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz [-mib 40] [-rounds 3]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	mib := flag.Int("mib", 40, "file size in MiB")
	rounds := flag.Int("rounds", 3, "rounds")
	flag.Parse()
	if err := run(*bundle, *mib, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "chatfilebench:", err)
		os.Exit(1)
	}
}

func run(bundle string, mib, rounds int) error {
	ctx := context.Background()
	mm, err := harness.Start(ctx, harness.Options{BundlePath: bundle, LogWriter: io.Discard, AsShipped: true})
	if err != nil {
		return err
	}
	defer mm.Close()
	// Room for every round's file in the person's workspace; asked in
	// Mattermost, so the call stops at the question.
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true, "WriteConfirmation": config.ConfirmMattermost,
		"MaxWorkspaceFileMiB": mib, "WorkspaceQuotaMiB": (rounds + 1) * mib}); err != nil {
		return err
	}
	if err := mm.PatchConfig(&model.Config{ServiceSettings: model.ServiceSettings{AllowedUntrustedInternalConnections: model.NewPointer("127.0.0.1")}}); err != nil {
		return err
	}
	proc, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	alice := mm.Users[0]
	town, _, err := mm.Client(alice).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	data := bytes.Repeat([]byte("%PDF-1.7 0123456789abcdef"), mib<<20/25+1)[:mib<<20]
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data)
	}))
	defer host.Close()
	fmt.Printf("plugin process %d, resident at rest: %d MiB; file %d MiB\n", proc.PID, proc.KiB("VmRSS")>>10, mib)

	var chatTimes, restTimes []time.Duration
	var ratios []float64
	var peaks []int64
	for round := 1; round <= rounds; round++ {
		marker := fmt.Sprintf("chatfilebench round %d %d", round, time.Now().UnixNano())
		callCtx, cancel := context.WithCancel(ctx)
		base := proc.KiB("VmRSS")
		proc.ResetPeak()
		cpu := pluginproc.ProcessorNow(mm)
		started := time.Now()
		var took time.Duration
		peak, err := proc.Peak(5*time.Millisecond, func() error {
			go func() {
				var out map[string]any
				_ = harness.CallToolOnce(callCtx, mm.URL, alice.Token, chatfile.ClientName, "create_post", map[string]any{
					"channel": town.Id, "message": marker,
					chatfile.Argument: []any{map[string]any{"download_url": host.URL + "/files/plan.pdf", "file_id": "file-bench",
						"mime_type": "application/pdf", "file_name": fmt.Sprintf("round%d.pdf", round)}},
				}, &out)
			}()
			err := waitAsked(mm.URL, alice.Token, marker, time.Minute)
			took = time.Since(started)
			return err
		})
		cancel()
		if err != nil {
			return err
		}
		chatCPU := pluginproc.ProcessorNow(mm).Since(cpu)
		cpu = pluginproc.ProcessorNow(mm)
		restStarted := time.Now()
		if err := harness.RESTUpload(mm.URL, alice.Token, town.Id, fmt.Sprintf("round%d.pdf", round), data); err != nil {
			return err
		}
		rest := time.Since(restStarted)
		restCPU := pluginproc.ProcessorNow(mm).Since(cpu)
		r := took.Seconds() / rest.Seconds()
		chatTimes, restTimes, ratios, peaks = append(chatTimes, took), append(restTimes, rest), append(ratios, r), append(peaks, max(peak-base, 0))
		fmt.Printf("round %d: ChatGPT's file fetched and asked %v (%.1f MiB/s, peak +%d MiB); REST upload to Mattermost %v (%.1f MiB/s); %.2fx REST\n",
			round, took.Round(time.Millisecond), float64(mib)/took.Seconds(), max(peak-base, 0)>>10, rest.Round(time.Millisecond), float64(mib)/rest.Seconds(), r)
		fmt.Printf("  processor (plugin, Mattermost, PostgreSQL): chat file %.2f, %.2f, %.2f s; REST %.2f, %.2f, %.2f s\n",
			chatCPU.Plugins, chatCPU.Mattermost, chatCPU.PostgreSQL, restCPU.Plugins, restCPU.Mattermost, restCPU.PostgreSQL)
	}
	fmt.Printf("chat file: min %v, median %v; REST: min %v, median %v; x REST min %.2f median %.2f; peak above rest min %d MiB, median %d MiB\n",
		slices.Min(chatTimes).Round(time.Millisecond), pluginproc.Median(chatTimes).Round(time.Millisecond),
		slices.Min(restTimes).Round(time.Millisecond), pluginproc.Median(restTimes).Round(time.Millisecond),
		slices.Min(ratios), pluginproc.Median(ratios), slices.Min(peaks)>>10, pluginproc.Median(peaks)>>10)
	return nil
}

// waitAsked polls the person's pending confirmations until one titled
// with marker is asked.
func waitAsked(site, token, marker string, within time.Duration) error {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodGet, site+"/plugins/mcp-server"+approval.APIPath, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		var list struct {
			Confirmations []struct{ Title, State string }
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			return err
		}
		for _, c := range list.Confirmations {
			if strings.Contains(c.Title, marker) && c.State == "pending" {
				return nil
			}
		}
	}
	return fmt.Errorf("the person was not asked within %v", within)
}
