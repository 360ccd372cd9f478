// Command fastbench measures what a call of the plugin costs next to what
// Mattermost itself costs, side by side in one run, and prints every figure
// as a ratio (plugin / baseline), the minimum and median over rounds that
// alternate the two:
//
//   - the load: 200 MCP clients of 20 people, 20 read calls each (get_me,
//     list_channels, read_channel, read_file, search_posts), through two
//     Mattermost servers behind a strict round robin, against the REST calls
//     a REST-based MCP server makes for the same tools, from the same
//     clients, people and mix; once for clients of the newest protocol
//     (no MCP sessions) and once for 2025-11-25 (with sessions);
//   - get_me against a plugin route that does nothing;
//   - read_file, window 1 of a fresh text file, against
//     GET /api/v4/files/{id} of the whole file: one just over the 1 MiB of
//     text Mattermost extracts (its record carries that megabyte beside the
//     bytes) and one of 1 MB (its record's text is the file);
//   - read_file, window 2 of the first, against get_me;
//   - read_file of a 12 MP EXIF-6 JPEG (upright, at most 1568 px) against a
//     REST download and ImageMagick's convert -auto-orient -resize.
//
// It prints figures; it asserts nothing (speed is measured here, never in
// tests). The machine's other work shows in the spread: quote the medians.
//
//	go run ./e2e/cmd/fastbench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// legacyVersion is the last protocol version with MCP sessions, which most
// clients still speak.
const legacyVersion = "2025-11-25"

type settings struct {
	bundle               string
	clients, calls, ppl  int
	rounds, runs, photos int
	pprof, mmPprof       string
	oneNode              bool
	kinds                string
}

func main() {
	var s settings
	flag.StringVar(&s.bundle, "bundle", "", "plugin bundle to install")
	flag.IntVar(&s.clients, "clients", 200, "MCP clients at once in the load")
	flag.IntVar(&s.calls, "calls", 20, "read calls per client in the load")
	flag.IntVar(&s.ppl, "people", 20, "people the clients sign in as (clients share them)")
	flag.IntVar(&s.rounds, "rounds", 3, "rounds of the load, plugin and REST in turn")
	flag.IntVar(&s.runs, "runs", 30, "pairs of each single call")
	flag.IntVar(&s.photos, "photos", 7, "pairs of the JPEG measure")
	flag.StringVar(&s.pprof, "plugin-pprof", "", "with a bundle built with GO_TAGS=mcppprof: the address node 1's plugin serves its profiles on (e.g. 127.0.0.1:6070)")
	flag.StringVar(&s.mmPprof, "mm-pprof", "", "the address node 1's Mattermost serves its profiles on (MetricsSettings), e.g. 127.0.0.1:6072")
	flag.BoolVar(&s.oneNode, "one-node", false, "run the load against node 1 alone (for -mm-pprof: a second node would find its port taken)")
	flag.StringVar(&s.kinds, "kinds", "newest,legacy,restmcp,rest", "which loads to run, comma-separated (one alone, to profile it): newest, legacy, restmcp (the same tools from an MCP server over REST), rest")
	only := flag.String("only", "", "run only the load (load) or only the single calls (calls)")
	flag.Parse()
	if err := run(s, *only); err != nil {
		fmt.Fprintln(os.Stderr, "fastbench:", err)
		os.Exit(1)
	}
}

func run(s settings, only string) error {
	ctx := context.Background()
	opts := harness.Options{BundlePath: s.bundle, LogWriter: io.Discard, AsShipped: true}
	if s.pprof != "" {
		opts.ExtraEnv = append(opts.ExtraEnv, "MCP_PLUGIN_PPROF="+s.pprof)
	}
	if s.mmPprof != "" {
		// Mattermost serves Go's profiles beside its metrics; the second
		// node finds the port taken and serves none.
		opts.ExtraEnv = append(opts.ExtraEnv, "MM_METRICSSETTINGS_ENABLE=true", "MM_METRICSSETTINGS_LISTENADDRESS="+s.mmPprof)
	}
	mm, err := harness.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer mm.Close()
	if err := mm.LiftCallRate(); err != nil {
		return err
	}
	fmt.Println("fastbench: every figure is plugin / baseline, measured in turn in this run; min and median over the rounds")
	if only != "calls" {
		if err := benchLoad(ctx, mm, s); err != nil {
			return err
		}
	}
	if only != "load" {
		if err := benchCalls(ctx, mm, s); err != nil {
			return err
		}
	}
	return nil
}

// loadKind is one of the loads run in turn: its -kinds key, its name and
// one round of it.
type loadKind struct {
	key, name string
	run       func() (loadFigures, error)
}

// loadFigures is one round of the load.
type loadFigures struct {
	calls, errors int
	elapsed       time.Duration
	p50, p99      time.Duration
	firstError    string
}

func (f loadFigures) perSecond() float64 { return float64(f.calls) / f.elapsed.Seconds() }

// fixture is what the load reads: a channel with posts and a text file.
type fixture struct {
	people  []harness.User
	team    string
	channel string
	fileID  string
}

func benchLoad(ctx context.Context, mm *harness.Server, s settings) error {
	proxy, where := mm.URL, "one server"
	if !s.oneNode {
		var err error
		if proxy, err = mm.StartSecondNode(ctx); err != nil {
			return err
		}
		where = "two servers behind a round robin"
	}
	fx, err := loadFixture(ctx, mm, s.ppl)
	if err != nil {
		return err
	}
	restMCPURL, stopRESTMCP, err := restMCP(proxy, fx)
	if err != nil {
		return err
	}
	defer stopRESTMCP()
	fmt.Printf("\n== load: %d clients of %d people x %d read calls, %s ==\n", s.clients, s.ppl, s.calls, where)
	var kinds []loadKind
	for _, k := range []loadKind{
		{"newest", "MCP, newest protocol", func() (loadFigures, error) { return mcpLoad(ctx, proxy, fx, s, mcp.LATEST_PROTOCOL_VERSION) }},
		{"legacy", "MCP, " + legacyVersion + " (sessions)", func() (loadFigures, error) { return mcpLoad(ctx, proxy, fx, s, legacyVersion) }},
		{"restmcp", "a REST-based MCP server, " + legacyVersion, func() (loadFigures, error) { return mcpLoad(ctx, restMCPURL, fx, s, legacyVersion) }},
		{"rest", "REST, the same tools", func() (loadFigures, error) { return restLoad(ctx, proxy, fx, s) }},
	} {
		if slices.Contains(strings.Split(s.kinds, ","), k.key) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return fmt.Errorf("-kinds %q names none of newest, legacy, rest", s.kinds)
	}
	// A warm-up of each, not counted: caches, connections, the JIT of the
	// database's plans.
	for _, k := range kinds {
		if _, err := k.run(); err != nil {
			return err
		}
	}
	figures := make([][]loadFigures, len(kinds))
	for r := range s.rounds {
		for i, k := range kinds {
			f, err := k.run()
			if err != nil {
				return err
			}
			figures[i] = append(figures[i], f)
			fmt.Printf("round %d  %-36s %6.0f calls/s  p50 %6s  p99 %6s  errors %d %s\n", r+1, k.name, f.perSecond(),
				f.p50.Round(time.Millisecond), f.p99.Round(time.Millisecond), f.errors, f.firstError)
		}
	}
	// Each against the baseline (the REST calls alone), then the
	// plugin against the REST-based MCP server, like with like.
	for _, base := range []struct{ key, name, goal string }{
		{"rest", "REST", " (goal at least 0.8x; p99 at most 1.2x)"}, {"restmcp", "REST-based MCP", ""}} {
		b := slices.IndexFunc(kinds, func(k loadKind) bool { return k.key == base.key })
		if b < 0 {
			continue
		}
		for i, k := range kinds {
			if k.key == "rest" || k.key == base.key {
				continue
			}
			var thr, p50, p99 []float64
			for r := range figures[b] {
				thr = append(thr, figures[i][r].perSecond()/figures[b][r].perSecond())
				p50 = append(p50, float64(figures[i][r].p50)/float64(figures[b][r].p50))
				p99 = append(p99, float64(figures[i][r].p99)/float64(figures[b][r].p99))
			}
			fmt.Printf("%-46s throughput %s%s  p50 %s  p99 %s\n", k.name+" / "+base.name+":", ratio(thr), base.goal, ratio(p50), ratio(p99))
		}
	}
	return nil
}

func loadFixture(ctx context.Context, mm *harness.Server, people int) (fixture, error) {
	fx := fixture{team: mm.Team.Id}
	for i := range people {
		u, err := mm.CreateUser(fmt.Sprintf("fast%d", i))
		if err != nil {
			return fx, err
		}
		fx.people = append(fx.people, u)
	}
	admin := mm.Client(mm.Admin)
	ch, _, err := admin.GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return fx, err
	}
	fx.channel = ch.Id
	up, _, err := admin.UploadFile(ctx, []byte(strings.Repeat("a line of the load test's file\n", 2000)), ch.Id, "load.txt")
	if err != nil {
		return fx, err
	}
	fx.fileID = up.FileInfos[0].Id
	if _, _, err := admin.CreatePost(ctx, &model.Post{ChannelId: ch.Id, Message: "fastbench file", FileIds: []string{fx.fileID}}); err != nil {
		return fx, err
	}
	for i := range 30 {
		if _, _, err := admin.CreatePost(ctx, &model.Post{ChannelId: ch.Id, Message: fmt.Sprintf("fastbench post %d", i)}); err != nil {
			return fx, err
		}
	}
	return fx, nil
}

// mcpLoad is one round of the load through MCP: the clients initialize
// first (not timed), then all make their calls at once.
func mcpLoad(ctx context.Context, site string, fx fixture, s settings, version string) (loadFigures, error) {
	reads := []struct {
		tool string
		args map[string]any
	}{
		{"get_me", nil},
		{"list_channels", nil},
		{"read_channel", map[string]any{"channel": fx.channel, "limit": 30}},
		{"read_file", map[string]any{"file_id": fx.fileID, "limit": 200}},
		{"search_posts", map[string]any{"terms": "fastbench"}},
	}
	clients := make([]*client.Client, s.clients)
	var wg sync.WaitGroup
	var connectErr error
	var mu sync.Mutex
	sem := make(chan struct{}, 16) // initialize a few at a time: not what is measured
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := harness.ConnectMCPVersion(ctx, site, fx.people[i%len(fx.people)].Token, "fastbench", version)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && connectErr == nil {
				connectErr = err
			}
			clients[i] = c
		}()
	}
	wg.Wait()
	defer func() {
		for i, c := range clients {
			if c != nil {
				_ = harness.EndMCPSession(ctx, site, fx.people[i%len(fx.people)].Token, c)
			}
		}
	}()
	if connectErr != nil {
		return loadFigures{}, fmt.Errorf("initialize: %w", connectErr)
	}
	return measure(s, func(i, n int) error {
		r := reads[(i+n)%len(reads)]
		res, err := harness.CallTool(ctx, clients[i], r.tool, r.args)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s answered an error", r.tool)
		}
		return err
	}), nil
}

// restLoad is one round of the load as a REST-based MCP server makes it:
// for each tool the Mattermost REST calls that answer it.
func restLoad(ctx context.Context, site string, fx fixture, s settings) (loadFigures, error) {
	api := strings.TrimRight(site, "/") + "/api/v4"
	search, _ := json.Marshal(map[string]any{"terms": "fastbench", "is_or_search": false, "per_page": 20})
	tools := []func(token string) error{
		func(token string) error { // get_me
			return rest(ctx, token, http.MethodGet, api+"/users/me", nil)
		},
		func(token string) error { // list_channels
			if err := rest(ctx, token, http.MethodGet, api+"/users/me/teams", nil); err != nil {
				return err
			}
			return rest(ctx, token, http.MethodGet, api+"/users/me/teams/"+fx.team+"/channels", nil)
		},
		func(token string) error { // read_channel: the posts, then who wrote them
			if err := rest(ctx, token, http.MethodGet, api+"/channels/"+fx.channel+"/posts?per_page=30", nil); err != nil {
				return err
			}
			return rest(ctx, token, http.MethodPost, api+"/users/ids", []byte(`["`+fx.people[0].ID+`"]`))
		},
		func(token string) error { // read_file: what it is, then its bytes
			if err := rest(ctx, token, http.MethodGet, api+"/files/"+fx.fileID+"/info", nil); err != nil {
				return err
			}
			return rest(ctx, token, http.MethodGet, api+"/files/"+fx.fileID, nil)
		},
		func(token string) error { // search_posts
			return rest(ctx, token, http.MethodPost, api+"/teams/"+fx.team+"/posts/search", search)
		},
	}
	return measure(s, func(i, n int) error {
		return tools[(i+n)%len(tools)](fx.people[i%len(fx.people)].Token)
	}), nil
}

// rest makes one REST call and reads its answer whole.
func rest(ctx context.Context, token, method, url string, body []byte) error {
	_, err := restBody(ctx, token, method, url, body)
	return err
}

// restBody makes one REST call and returns its answer.
func restBody(ctx context.Context, token, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d", method, url, resp.StatusCode)
	}
	return b, nil
}

// measure has s.clients clients make s.calls calls each at once.
func measure(s settings, call func(client, n int) error) loadFigures {
	var mu sync.Mutex
	var latencies []time.Duration
	f := loadFigures{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range s.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for n := range s.calls {
				t0 := time.Now()
				err := call(i, n)
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil {
					f.errors++
					if f.firstError == "" {
						f.firstError = "(first: " + err.Error() + ")"
					}
				}
				mu.Unlock()
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	f.elapsed = time.Since(began)
	slices.Sort(latencies)
	f.calls = len(latencies)
	f.p50 = latencies[len(latencies)/2]
	f.p99 = latencies[min(len(latencies)-1, len(latencies)*99/100)]
	return f
}

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
	photo, err := twelveMegapixelPhoto()
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
	noop := func() error {
		resp, err := http.Get(mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource")
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	}
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

// twelveMegapixelPhoto is a 4000x3000 photo-like JPEG (gradients and noise)
// with EXIF orientation 6, as mmbench makes it.
func twelveMegapixelPhoto() ([]byte, error) {
	const w, h = 4000, 3000
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			img.SetRGBA(x, y, color.RGBA{uint8(x*200/w) + n, uint8(y*200/h) + n, uint8((x+y)*100/(w+h)) + n, 255})
		}
	}
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, err
	}
	tiff := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}
	payload := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(payload)+2))
	raw := enc.Bytes()
	out := append([]byte{}, raw[:2]...)
	out = append(out, app1...)
	out = append(out, payload...)
	return append(out, raw[2:]...), nil
}
