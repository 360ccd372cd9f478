package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// hostile is how the hostile PNG measure runs (set from flags).
var hostile struct {
	parallel  int
	guardMiB  int64
	only      bool
	budgetMiB int
}

// hostileCallTimeout bounds one call, so a plugin that died leaves the
// measure with errors to count instead of hanging it.
const hostileCallTimeout = 5 * time.Minute

// benchHostilePNG posts a 5700x5700 16-bit RGBA gradient (a small file that
// decodes to 260 MB, under Mattermost's own pixel limit), then makes
// hostile.parallel read_file calls of it at once while sampling the plugin
// process's resident memory, and prints how each call was answered and the
// peak against the budget for reading files + 128 MiB.
func benchHostilePNG(ctx context.Context, mm *harness.Server) error {
	pid, err := pluginPID(mm)
	if err != nil {
		return err
	}
	if hostile.budgetMiB > 0 {
		if err := mm.PatchPluginSettings(map[string]any{"ConversionMemoryMiB": hostile.budgetMiB}); err != nil {
			return err
		}
	}
	budgetMiB := int64(config.DefaultConversionMemoryMiB)
	if settings, err := mm.PluginSettings(); err == nil {
		if v, ok := settings["conversionmemorymib"].(float64); ok {
			budgetMiB = int64(v)
		}
	}
	data, err := hostilePNG(5700, 5700)
	if err != nil {
		return err
	}
	alice := mm.Users[0]
	api := mm.Client(alice)
	town, _, err := api.GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	up, _, err := api.UploadFile(ctx, data, town.Id, "gradient.png")
	if err != nil {
		return err
	}
	fileID := up.FileInfos[0].Id
	if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "hostile", FileIds: []string{fileID}}); err != nil {
		return err
	}
	c, err := client.NewStreamableHttpClient(mm.URL+"/plugins/mcp-server/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + alice.Token}))
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mmbench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}

	rest := statusKiB(pid, "VmRSS")
	fmt.Printf("file: %d bytes; plugin process %d resident at rest: %d MiB; budget for reading files: %d MiB\n",
		len(data), pid, rest>>10, budgetMiB)
	var outcomes sync.Map // call -> outcome
	start := time.Now()
	peak, killed := sampledWithGuard(pid, hostile.guardMiB<<10, func() {
		var wg sync.WaitGroup
		for i := range hostile.parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outcomes.Store(i, readOutcome(ctx, c, fileID))
			}()
		}
		wg.Wait()
	})
	took := time.Since(start)
	hwm := statusKiB(pid, "VmHWM")

	counts := map[string]int{}
	var examples []string
	outcomes.Range(func(_, v any) bool {
		o := v.(string)
		kind, _, _ := strings.Cut(o, ":")
		counts[kind]++
		if kind == "error" && len(examples) < 3 {
			examples = append(examples, o)
		}
		return true
	})
	var kinds []string
	for k := range counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, counts[k]))
	}
	slices.Sort(kinds)
	fmt.Printf("%d calls answered in %s: %s\n", hostile.parallel, took.Round(100*time.Millisecond), strings.Join(kinds, ", "))
	for _, e := range examples {
		fmt.Printf("  %s\n", e)
	}
	goal := budgetMiB + 128
	if killed {
		fmt.Printf("the plugin process passed %d MiB resident and was killed by this benchmark, as the kernel would kill it on a smaller host\n", hostile.guardMiB)
	}
	fmt.Printf("%-44s %7d MiB\n", "peak resident while reading (sampled)", peak>>10)
	if hwm > 0 {
		fmt.Printf("%-44s %7d MiB\n", "VmHWM of the plugin process", hwm>>10)
	}
	fmt.Printf("%-44s %7d MiB (budget %d MiB + 128 MiB)\n", "goal: at most", goal, budgetMiB)
	return nil
}

// readOutcome calls read_file once and says how it was answered: decoded,
// described, busy, or error with why.
func readOutcome(ctx context.Context, c *client.Client, fileID string) string {
	ctx, cancel := context.WithTimeout(ctx, hostileCallTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_file"
	req.Params.Arguments = map[string]any{"file_id": fileID}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "error: " + err.Error()
	}
	var body strings.Builder
	for _, content := range res.Content {
		if t, ok := content.(mcp.TextContent); ok {
			body.WriteString(t.Text)
		}
	}
	if res.IsError {
		if strings.Contains(body.String(), "busy") {
			return "busy"
		}
		return "error: refused: " + body.String()
	}
	var out struct {
		Read  bool            `json:"read"`
		Image json.RawMessage `json:"image"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		return "error: " + err.Error()
	}
	if out.Read && len(out.Image) > 0 {
		return "decoded"
	}
	return "described"
}

// hostilePNG is the hostile file: a w x h 16-bit RGBA gradient,
// which deflate squeezes to a few hundred kilobytes.
func hostilePNG(w, h int) ([]byte, error) {
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 65535 / w), uint16(y * 65535 / h), uint16((x + y) * 32767 / (w + h)), 65535})
		}
	}
	var b bytes.Buffer
	err := png.Encode(&b, img)
	return b.Bytes(), err
}

// sampledWithGuard runs f while sampling pid's resident set every 5 ms. If it
// passes guardKiB the process is killed (it is the plugin this benchmark's
// own Mattermost started), and killed says so.
func sampledWithGuard(pid int, guardKiB int64, f func()) (peakKiB int64, killed bool) {
	var peak atomic.Int64
	var hit atomic.Bool
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			v := statusKiB(pid, "VmRSS")
			if v > peak.Load() {
				peak.Store(v)
			}
			if v > guardKiB && !hit.Load() {
				hit.Store(true)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load(), hit.Load()
}

// pluginPID finds the plugin's process: a child of a Mattermost node this
// harness started, running the plugin's executable.
func pluginPID(mm *harness.Server) (int, error) {
	parents := map[int]bool{}
	for _, p := range mm.PIDs() {
		parents[p] = true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		_, rest, ok := strings.Cut(string(stat), ") ")
		fields := strings.Fields(rest)
		if !ok || len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		if !parents[ppid] {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmd), "plugin-linux-amd64") {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no plugin process among the children of %v", mm.PIDs())
}

// statusKiB reads one VmXXX line of /proc/<pid>/status, in KiB; 0 when the
// process is gone.
func statusKiB(pid int, field string) int64 {
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
