package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
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
	proc, err := pluginproc.Find(mm)
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
	c, err := harness.ConnectMCP(ctx, mm.URL, alice.Token, "mmbench")
	if err != nil {
		return err
	}
	defer c.Close()

	rest := proc.KiB("VmRSS")
	fmt.Printf("file: %d bytes; plugin process %d resident at rest: %d MiB; budget for reading files: %d MiB\n",
		len(data), proc.PID, rest>>10, budgetMiB)
	var outcomes sync.Map // call -> outcome
	start := time.Now()
	peak, killed := proc.PeakOrKill(5*time.Millisecond, hostile.guardMiB<<10, func() {
		_ = pluginproc.AtOnce(hostile.parallel, func(i int) error {
			outcomes.Store(i, readOutcome(ctx, c, fileID))
			return nil
		})
	})
	took := time.Since(start)
	hwm := proc.KiB("VmHWM")

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
	res, err := harness.CallTool(ctx, c, "read_file", map[string]any{"file_id": fileID})
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
