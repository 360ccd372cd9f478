package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// lowBudget sets Memory for reading files to its smallest value for one
// test and puts the default back after it.
func lowBudget(t *testing.T) int64 {
	t.Helper()
	if err := mm.PatchPluginSettings(map[string]any{"ConversionMemoryMiB": config.MinConversionMemoryMiB}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"ConversionMemoryMiB": nil}) })
	return int64(config.MinConversionMemoryMiB) << 20
}

// gradientPNG is a w x h PNG of a smooth gradient: a small file that decodes
// to w x h x 8 bytes when sixteen, w x h x 4 otherwise.
func gradientPNG(t *testing.T, w, h int, sixteen bool) []byte {
	t.Helper()
	var img image.Image
	if sixteen {
		m := image.NewNRGBA64(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				m.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 65535 / w), uint16(y * 65535 / h), 30000, 65535})
			}
		}
		img = m
	} else {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				m.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 120, 255})
			}
		}
		img = m
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAtOnce makes n read_file calls of one file at the same time, each
// with its own progress token, and returns every answer; a protocol error
// fails the test.
func readAtOnce(t *testing.T, c *client.Client, fileID string, n int) []*mcp.CallToolResult {
	t.Helper()
	results := make([]*mcp.CallToolResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := mcp.CallToolRequest{}
			req.Params.Name = "read_file"
			req.Params.Arguments = map[string]any{"file_id": fileID}
			req.Params.Meta = &mcp.Meta{ProgressToken: fmt.Sprintf("read-%d", i)}
			results[i], errs[i] = c.CallTool(context.Background(), req)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v (server log: %s)", i, err, mm.ServerLogTail(40))
		}
	}
	return results
}

func TestParallelReadsOfAFileLargerThanTheBudgetAllAnswerDescribedNotDecoded(t *testing.T) {
	budget := lowBudget(t)
	data := gradientPNG(t, 3000, 3000, true)
	if est := fileview.EstimateCost(data); est.Bytes <= budget {
		t.Fatalf("the fixture is estimated at %d bytes, within the budget of %d", est.Bytes, budget)
	}
	post, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "a huge gradient", map[string][]byte{"gradient.png": data})
	c := aliceClient(t)
	for i, res := range readAtOnce(t, c, infos[0].Id, 8) {
		body := text(res)
		var out tools.FileResult
		if !res.IsError {
			structuredAs(t, res, &out)
		}
		if res.IsError || out.Read || out.Image != nil || len(res.Content) != 1 {
			t.Fatalf("call %d: a file over the budget must be described, not read: %+v %s", i, out, body)
		}
		for _, want := range []string{"not decoded", fmt.Sprintf("%d MiB this server allows", config.MinConversionMemoryMiB),
			"3,000×3,000", "Memory for reading files (MiB)", post.Id} {
			if !strings.Contains(body, want) {
				t.Fatalf("call %d: the description does not say %q: %s", i, want, body)
			}
		}
	}
}

func TestABudgetSizedImageReadByManyAtOnceIsDecodedOrBusyNeverAnError(t *testing.T) {
	budget := lowBudget(t)
	data := gradientPNG(t, 2500, 2500, false)
	// Decoding one takes more than half the budget: the reads go one by one.
	if est := fileview.EstimateCost(data); est.Bytes <= budget/2 || est.Bytes+2*int64(len(data)) > budget*9/10 {
		t.Fatalf("the fixture is estimated at %d bytes; it must take more than half of %d and fit with its answer", est.Bytes, budget)
	}
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "a large gradient", map[string][]byte{"large.png": data})
	c := aliceClient(t)
	var mu sync.Mutex
	var waits []string
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		msg, _ := n.Params.AdditionalFields["message"].(string)
		mu.Lock()
		waits = append(waits, msg)
		mu.Unlock()
	})
	decoded := 0
	for i, res := range readAtOnce(t, c, infos[0].Id, 6) {
		body := text(res)
		if res.IsError {
			if !strings.Contains(body, "busy") || !strings.Contains(body, "try the same call again") {
				t.Fatalf("call %d: an error that is not the busy answer: %s", i, body)
			}
			continue
		}
		var out tools.FileResult
		structuredAs(t, res, &out)
		if !out.Read || out.Image == nil || out.Image.OriginalWidth != 2500 {
			t.Fatalf("call %d: neither decoded nor busy: %+v %s", i, out, body)
		}
		decoded++
	}
	if decoded == 0 {
		t.Fatal("no read decoded the image")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) == 0 || !strings.Contains(waits[0], "Waiting for memory to read the file") {
		t.Fatalf("the reads that waited sent no progress naming the wait: %q", waits)
	}
}
