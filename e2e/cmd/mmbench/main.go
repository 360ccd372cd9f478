// Command mmbench measures the file pipeline end to end: read_file of a text
// window through a real Mattermost against a plain file download, the JPEG
// pipeline against ImageMagick on the same photo, and the plugin process's
// peak memory while many read_file calls of a hostile PNG run at once,
// against the budget for reading files + 128 MiB. It prints figures; it
// asserts nothing (speed is measured here, never in tests).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview/imaging"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	runs := flag.Int("runs", 30, "repetitions of each request")
	flag.IntVar(&hostile.parallel, "parallel", 64, "read_file calls of the hostile PNG at once")
	flag.Int64Var(&hostile.guardMiB, "guard-mib", 6144, "resident MiB at which the plugin process is killed, as the kernel would on a smaller host, so a build without a bound cannot take this machine")
	flag.BoolVar(&hostile.only, "hostile-only", false, "run only the hostile PNG measure")
	flag.IntVar(&hostile.budgetMiB, "budget-mib", 0, "set Memory for reading files (MiB) to this before the hostile PNG measure (0: leave the default)")
	flag.Parse()
	if err := run(*bundle, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "mmbench:", err)
		os.Exit(1)
	}
}

func run(bundle string, runs int) error {
	ctx := context.Background()
	if !hostile.only {
		fmt.Println("== JPEG pipeline: 12 MP photo, EXIF orientation 6, to at most 1568 px ==")
		if err := benchJPEG(ctx); err != nil {
			return err
		}
		fmt.Println()
	}
	mm, err := harness.StartForBench(ctx, harness.Options{BundlePath: bundle})
	if err != nil {
		return err
	}
	defer mm.Close()
	if !hostile.only {
		fmt.Println("== read_file of a 500-line window of a 1 MB text file, through the real server ==")
		if err := benchReadFile(ctx, mm, runs); err != nil {
			return err
		}
		fmt.Println()
	}
	fmt.Printf("== %d read_file calls at once of a 5700x5700 16-bit RGBA PNG: the plugin's peak memory ==\n", hostile.parallel)
	return benchHostilePNG(ctx, mm)
}

func benchReadFile(ctx context.Context, mm *harness.Server, runs int) error {
	alice := mm.Users[0]
	api := mm.Client(alice)
	town, err := mm.TownSquare(ctx, alice)
	if err != nil {
		return err
	}
	text := harness.MiBOfText()
	up, _, err := api.UploadFile(ctx, text, town.Id, "big.txt")
	if err != nil {
		return err
	}
	fileID := up.FileInfos[0].Id
	if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "bench", FileIds: []string{fileID}}); err != nil {
		return err
	}

	c, err := harness.ConnectMCP(ctx, mm.URL, alice.Token, "mmbench")
	if err != nil {
		return err
	}
	defer c.Close()
	readFile := func() error {
		res, err := harness.CallTool(ctx, c, "read_file", map[string]any{"file_id": fileID})
		if err == nil && res.IsError {
			err = fmt.Errorf("read_file refused")
		}
		return err
	}
	download := func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, mm.URL+"/api/v4/files/"+fileID, nil)
		req.Header.Set("Authorization", "Bearer "+alice.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && n != int64(len(text)) {
			err = fmt.Errorf("downloaded %d bytes of %d", n, len(text))
		}
		return err
	}
	getMe := func() error {
		_, err := harness.CallTool(ctx, c, "get_me", nil)
		return err
	}
	metadata := func() error {
		resp, err := http.Get(mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource")
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	}
	route, err := median(runs, metadata)
	if err != nil {
		return err
	}
	floor, err := median(runs, getMe)
	if err != nil {
		return err
	}
	mcpTime, err := median(runs, readFile)
	if err != nil {
		return err
	}
	getTime, err := median(runs, download)
	if err != nil {
		return err
	}
	fmt.Printf("%-44s %10s\n", "a plugin route, no work (median)", route.Round(10*time.Microsecond))
	fmt.Printf("%-44s %10s\n", "get_me, the protocol's floor (median)", floor.Round(10*time.Microsecond))
	fmt.Printf("%-44s %10s\n", "read_file, first window (median)", mcpTime.Round(10*time.Microsecond))
	fmt.Printf("%-44s %10s\n", "GET /api/v4/files/{id}, whole file (median)", getTime.Round(10*time.Microsecond))
	fmt.Printf("%-44s %9.2fx (goal: at most 1.5x)\n", "ratio", float64(mcpTime)/float64(getTime))

	// The next windows are cut from the text the first read kept: no fetch,
	// no conversion.
	window2 := func(id string) func() error {
		return func() error {
			res, err := harness.CallTool(ctx, c, "read_file", map[string]any{"file_id": id, "offset": 501, "limit": 500})
			if err == nil && res.IsError {
				err = fmt.Errorf("read_file window 2 refused")
			}
			return err
		}
	}
	textWindow2, err := median(runs, window2(fileID))
	if err != nil {
		return err
	}
	doc := harness.WordDocument(5 << 20)
	upDoc, _, err := api.UploadFile(ctx, doc, town.Id, "big.docx")
	if err != nil {
		return err
	}
	docID := upDoc.FileInfos[0].Id
	if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "bench docx", FileIds: []string{docID}}); err != nil {
		return err
	}
	readDoc := func() error {
		res, err := harness.CallTool(ctx, c, "read_file", map[string]any{"file_id": docID})
		if err == nil && res.IsError {
			err = fmt.Errorf("read_file of the docx refused")
		}
		return err
	}
	t0 := time.Now()
	if err := readDoc(); err != nil {
		return err
	}
	docWindow1 := time.Since(t0)
	docWindow2, err := median(runs, window2(docID))
	if err != nil {
		return err
	}
	fmt.Printf("%-44s %10s\n", "1 MB text, window 2 (median)", textWindow2.Round(10*time.Microsecond))
	fmt.Printf("%-44s %10s\n", fmt.Sprintf("%.1f MB docx, window 1 (fetch + convert)", float64(len(doc))/1e6), docWindow1.Round(10*time.Microsecond))
	fmt.Printf("%-44s %10s\n", "docx, window 2 (median, kept text)", docWindow2.Round(10*time.Microsecond))
	fmt.Printf("%-44s %9.2fx, %.2fx of the no-op route (goal: within 2x)\n", "window 2 against get_me",
		float64(docWindow2)/float64(floor), float64(docWindow2)/float64(route))
	return nil
}

func benchJPEG(ctx context.Context) error {
	photo, err := harness.TwelveMegapixelPhoto()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mmbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "photo.jpg")
	if err := os.WriteFile(in, photo, 0o600); err != nil {
		return err
	}
	ours, err := median(5, func() error {
		_, err := imaging.Prepare(ctx, photo)
		return err
	})
	if err != nil {
		return err
	}
	convert, err := imageMagick()
	if err != nil {
		return err
	}
	theirs, err := median(5, func() error {
		return exec.Command(convert, in, "-auto-orient", "-resize", "1568x1568", filepath.Join(dir, "out.jpg")).Run()
	})
	if err != nil {
		return err
	}
	fmt.Printf("%-44s %10s\n", "imaging.Prepare (median of 5)", ours.Round(time.Millisecond))
	fmt.Printf("%-44s %10s\n", "convert -auto-orient -resize (median of 5)", theirs.Round(time.Millisecond))
	fmt.Printf("%-44s %9.2fx (goal: at most 1.5x)\n", "ratio", float64(ours)/float64(theirs))
	return nil
}

// imageMagick finds ImageMagick's convert, installing Debian's imagemagick
// when it is missing (a "convert" that is not ImageMagick does not count).
func imageMagick() (string, error) {
	for _, p := range []string{"convert", "/usr/bin/convert"} {
		if path, err := exec.LookPath(p); err == nil && isImageMagick(path) {
			return path, nil
		}
	}
	fmt.Println("installing imagemagick from Debian's packages for the comparison ...")
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "imagemagick"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("apt-get %s: %v\n%s", args[0], err, out)
		}
	}
	if !isImageMagick("/usr/bin/convert") {
		return "", fmt.Errorf("Debian's imagemagick was installed but /usr/bin/convert is not ImageMagick")
	}
	return "/usr/bin/convert", nil
}

func isImageMagick(path string) bool {
	out, err := exec.Command(path, "-version").CombinedOutput()
	return err == nil && strings.Contains(string(out), "ImageMagick")
}

func median(n int, f func() error) (time.Duration, error) {
	if err := f(); err != nil { // warm-up, not counted
		return 0, err
	}
	times := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
