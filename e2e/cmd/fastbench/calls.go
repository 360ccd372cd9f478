package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

func benchCalls(ctx context.Context, mm *harness.Server, s settings) error {
	alice := mm.Users[0]
	api := mm.Client(alice)
	town, err := mm.TownSquare(ctx, alice)
	if err != nil {
		return err
	}
	// Window 1 of a fresh file each time: a read of a file already read
	// would be cut from its kept text. Two sizes: just over the 1 MiB of
	// text Mattermost extracts, whose record carries that megabyte beside
	// the file's bytes, and 1 MB, whose record's text is the file.
	posted := func(text []byte, n int) ([]string, error) {
		ids := make([]string, 0, n)
		for range n {
			up, _, err := api.UploadFile(ctx, text, town.Id, "big.txt")
			if err != nil {
				return nil, err
			}
			id := up.FileInfos[0].Id
			if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "fastbench", FileIds: []string{id}}); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	fresh, err := posted(harness.MiBOfText(), s.runs+1)
	if err != nil {
		return err
	}
	freshMB, err := posted(harness.TextOf(1_000_000), s.runs+1)
	if err != nil {
		return err
	}
	freshLike, err := posted(harness.MiBOfText(), s.runs/2)
	if err != nil {
		return err
	}
	photo, err := harness.TwelveMegapixelPhoto()
	if err != nil {
		return err
	}
	upPhoto, _, err := api.UploadFile(ctx, photo, town.Id, "photo.jpg")
	if err != nil {
		return err
	}
	photoID := upPhoto.FileInfos[0].Id
	if _, _, err := api.CreatePost(ctx, &model.Post{ChannelId: town.Id, Message: "fastbench photo", FileIds: []string{photoID}}); err != nil {
		return err
	}
	c, err := harness.ConnectMCPVersion(ctx, mm.URL, alice.Token, "fastbench", legacyVersion)
	if err != nil {
		return err
	}
	defer harness.EndMCPSession(ctx, mm.URL, alice.Token, c)
	callOf := func(c *client.Client) func(tool string, args map[string]any) func() error {
		return func(tool string, args map[string]any) func() error {
			return func() error {
				res, err := harness.CallTool(ctx, c, tool, args)
				if err == nil && res.IsError {
					err = fmt.Errorf("%s refused", tool)
				}
				return err
			}
		}
	}
	call := callOf(c)
	// The same calls through the smallest REST-based MCP server (restmcp.go),
	// like with like: its read_file downloads the whole file every time.
	restURL, stopREST, err := restMCP(mm.URL, fixture{people: []harness.User{alice}, team: mm.Team.Id, channel: town.Id, fileID: fresh[0]})
	if err != nil {
		return err
	}
	defer stopREST()
	rc, err := harness.ConnectMCPVersion(ctx, restURL, alice.Token, "fastbench", legacyVersion)
	if err != nil {
		return err
	}
	defer harness.EndMCPSession(ctx, restURL, alice.Token, rc)
	viaREST := callOf(rc)
	download := func(id string, into io.Writer) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, mm.URL+"/api/v4/files/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+alice.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /api/v4/files/%s: %d", id, resp.StatusCode)
		}
		_, err = io.Copy(into, resp.Body)
		return err
	}
	noop := func() error { return rest(ctx, "", http.MethodGet, strings.TrimRight(mm.URL, "/")+noopPath, nil) }
	window1Of := func(ids []string) func() error {
		next := 0
		return func() error {
			id := ids[next]
			next++
			return call("read_file", map[string]any{"file_id": id})()
		}
	}
	// The file window 2 is read from, read once (window 1) so its text is
	// kept; the fresh files' window 1 keep theirs too, none of which is
	// read again.
	kept := fresh[len(fresh)-1]
	if err := call("read_file", map[string]any{"file_id": kept})(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "fastbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	convert, err := imageMagick()
	if err != nil {
		return err
	}
	photoREST := func() error {
		f, err := os.Create(filepath.Join(dir, "in.jpg"))
		if err != nil {
			return err
		}
		err = download(photoID, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return exec.Command(convert, filepath.Join(dir, "in.jpg"), "-auto-orient", "-resize", "1568x1568", filepath.Join(dir, "out.jpg")).Run()
	}

	fmt.Printf("\n== single calls through one server, one client; %d pairs each (the JPEG %d), in turn ==\n", s.runs, s.photos)
	rows := []struct {
		what, goal string
		a, b       func() error
		n          int
	}{
		{"get_me / a plugin route that does nothing", "at most 1.5x", call("get_me", nil), noop, s.runs},
		{"read_file window 1 of a fresh 1 MiB+ text / GET /api/v4/files/{id}", "at most 1.1x", window1Of(fresh),
			func() error { return download(fresh[0], io.Discard) }, s.runs},
		{"read_file window 1 of a fresh 1 MB text / GET /api/v4/files/{id}", "at most 1.1x", window1Of(freshMB),
			func() error { return download(freshMB[0], io.Discard) }, s.runs},
		{"read_file window 2 of the 1 MiB+ text / get_me", "at most 1.2x", call("read_file", map[string]any{"file_id": kept, "offset": 501, "limit": 500}),
			call("get_me", nil), s.runs},
		{"get_me / the REST-based MCP server's", "like with like", call("get_me", nil), viaREST("get_me", nil), s.runs},
		{"read_file window 1 of a fresh 1 MiB+ text / the REST-based MCP server's", "like with like", window1Of(freshLike),
			viaREST("read_file", nil), s.runs / 2},
		{"read_file window 2 / the REST-based MCP server's read_file", "like with like", call("read_file", map[string]any{"file_id": kept, "offset": 501, "limit": 500}),
			viaREST("read_file", nil), s.runs},
		{"12 MP EXIF-6 JPEG to 1568 px / REST download + convert", "at most 0.6x", call("read_file", map[string]any{"file_id": photoID}),
			photoREST, s.photos},
	}
	for _, r := range rows {
		a, b, ratios, err := pairs(r.n, r.a, r.b)
		if err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		fmt.Printf("%-66s %8s / %8s  ratio %s (goal %s)\n", r.what, a.Round(10*time.Microsecond), b.Round(10*time.Microsecond), ratio(ratios), r.goal)
	}
	return nil
}

// pairs runs a and b in turn n times after one warm-up each, and returns
// their medians and the ratio of each pair.
func pairs(n int, a, b func() error) (time.Duration, time.Duration, []float64, error) {
	if err := b(); err != nil {
		return 0, 0, nil, err
	}
	var as, bs []time.Duration
	var ratios []float64
	for range n {
		t0 := time.Now()
		if err := a(); err != nil {
			return 0, 0, nil, err
		}
		da := time.Since(t0)
		t0 = time.Now()
		if err := b(); err != nil {
			return 0, 0, nil, err
		}
		db := time.Since(t0)
		as, bs, ratios = append(as, da), append(bs, db), append(ratios, float64(da)/float64(db))
	}
	slices.Sort(as)
	slices.Sort(bs)
	return as[len(as)/2], bs[len(bs)/2], ratios, nil
}

// ratio prints ratios as "min x / median x".
func ratio(rs []float64) string {
	s := slices.Clone(rs)
	slices.Sort(s)
	return fmt.Sprintf("min %.2fx median %.2fx", s[0], s[len(s)/2])
}

// imageMagick finds ImageMagick's convert.
func imageMagick() (string, error) {
	for _, p := range []string{"convert", "/usr/bin/convert"} {
		if path, err := exec.LookPath(p); err == nil {
			if out, err := exec.Command(path, "-version").CombinedOutput(); err == nil && strings.Contains(string(out), "ImageMagick") {
				return path, nil
			}
		}
	}
	return "", fmt.Errorf("ImageMagick's convert is not installed (apt-get install imagemagick; go run ./e2e/cmd/mmbench installs it)")
}
