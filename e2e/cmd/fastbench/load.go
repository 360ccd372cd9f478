package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

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
	// cpu is the processor time the calls took from each process.
	cpu pluginproc.Processor
	// trips is node 1's round trips during the calls (-count-calls).
	trips *mattermost.Trips
}

// cpuPerCall is each process's processor time per call, in milliseconds.
func (f loadFigures) cpuPerCall() string {
	ms := func(sec float64) float64 { return sec * 1000 / float64(max(f.calls, 1)) }
	return fmt.Sprintf("processor per call: plugin %.2f ms, Mattermost %.2f ms, PostgreSQL %.2f ms, this process %.2f ms",
		ms(f.cpu.Plugins), ms(f.cpu.Mattermost), ms(f.cpu.PostgreSQL), ms(f.cpu.Self))
}

func (f loadFigures) perSecond() float64 { return float64(f.calls) / f.elapsed.Seconds() }

// fixture is what the load reads: a channel with posts and a text file.
type fixture struct {
	people  []harness.User
	team    string
	channel string
	fileID  string
}

func benchLoad(ctx context.Context, mm *harness.Server, s settings, fx fixture) error {
	proxy, where := mm.URL, "one server"
	if !s.oneNode {
		var err error
		if proxy, err = mm.StartSecondNode(ctx); err != nil {
			return err
		}
		where = "two servers behind a round robin"
	}
	restMCPURL, stopRESTMCP, err := restMCP(proxy, fx)
	if err != nil {
		return err
	}
	defer stopRESTMCP()
	fmt.Printf("\n== load: %d clients of %d people x %d read calls, %s ==\n", s.clients, s.ppl, s.calls, where)
	var kinds []loadKind
	for _, k := range []loadKind{
		{"newest", "MCP, newest protocol", func() (loadFigures, error) {
			return mcpLoad(ctx, proxy, fx, s, mcp.LATEST_PROTOCOL_VERSION, mixedReads(fx))
		}},
		{"legacy", "MCP, " + legacyVersion + " (sessions)", func() (loadFigures, error) { return mcpLoad(ctx, proxy, fx, s, legacyVersion, mixedReads(fx)) }},
		{"restmcp", "a REST-based MCP server, " + legacyVersion, func() (loadFigures, error) { return mcpLoad(ctx, restMCPURL, fx, s, legacyVersion, mixedReads(fx)) }},
		{"rest", "REST, the same tools", func() (loadFigures, error) { return restLoad(ctx, proxy, fx, s) }},
	} {
		if slices.Contains(strings.Split(s.kinds, ","), k.key) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return fmt.Errorf("-kinds %q names none of newest, legacy, rest", s.kinds)
	}
	figures, err := rounds(s, kinds)
	if err != nil {
		return err
	}
	printProcessor(kinds, figures)
	// Each against the baseline (the REST calls alone), then the
	// plugin against the REST-based MCP server, like with like.
	for _, base := range []struct{ key, name, goal string }{
		{"rest", "REST", " (goal at least 0.85x; p99 at most 1.2x)"}, {"restmcp", "REST-based MCP", ""}} {
		b := indexOf(kinds, base.key)
		if b < 0 {
			continue
		}
		for i, k := range kinds {
			if k.key == "rest" || k.key == base.key {
				continue
			}
			fmt.Printf("%-46s %s\n", k.name+" / "+base.name+":", compare(figures[i], figures[b], base.goal))
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

// toolCall is one call of a tool the load makes.
type toolCall struct {
	tool string
	args map[string]any
}

// mixedReads are the load's read calls, which its clients make in turn.
func mixedReads(fx fixture) []toolCall {
	return []toolCall{
		{"get_me", nil},
		{"list_channels", nil},
		{"read_channel", map[string]any{"channel": fx.channel, "limit": 30}},
		{"read_file", map[string]any{"file_id": fx.fileID, "limit": 200}},
		{"search_posts", map[string]any{"terms": "fastbench"}},
	}
}

// mcpLoad is one round of a load of reads through MCP: the clients
// initialize first (not timed), then all make their calls at once.
func mcpLoad(ctx context.Context, site string, fx fixture, s settings, version string, reads []toolCall) (loadFigures, error) {
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
	wire := make([]*wireClient, len(clients))
	for i, c := range clients {
		wire[i] = &wireClient{url: strings.TrimRight(site, "/") + "/plugins/mcp-server/mcp", token: fx.people[i%len(fx.people)].Token,
			version: version, session: c.GetSessionId()}
	}
	return measure(s, func(i, n int) error {
		r := reads[(i+n)%len(reads)]
		if s.client == clientWire {
			return wire[i].call(ctx, r.tool, r.args)
		}
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
	tools := restReads(ctx, site, fx)
	return measure(s, func(i, n int) error {
		return tools[(i+n)%len(tools)](fx.people[i%len(fx.people)].Token)
	}), nil
}

// restReads are the REST calls that answer each of mixedReads, in its order,
// as a REST-based MCP server makes them.
func restReads(ctx context.Context, site string, fx fixture) []func(token string) error {
	api := strings.TrimRight(site, "/") + "/api/v4"
	search, _ := json.Marshal(map[string]any{"terms": "fastbench", "is_or_search": false, "per_page": 20})
	return []func(token string) error{
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
}

// rest makes one REST call and reads its answer whole.
func rest(ctx context.Context, token, method, url string, body []byte) error {
	_, err := restBody(ctx, token, method, url, body)
	return err
}

// restBody makes one REST call and returns its answer; token "" sends
// none.
func restBody(ctx context.Context, token, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
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
	var before pluginproc.Processor
	if s.processor != nil {
		before = s.processor()
	}
	var counted map[string]int64
	if s.counts != nil {
		counted = s.counts()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	f.elapsed = time.Since(began)
	if s.processor != nil {
		f.cpu = s.processor().Since(before)
	}
	if s.counts != nil {
		t := mattermost.TripsBetween(counted, s.counts())
		f.trips = &t
	}
	slices.Sort(latencies)
	f.calls = len(latencies)
	f.p50 = latencies[len(latencies)/2]
	f.p99 = latencies[min(len(latencies)-1, len(latencies)*99/100)]
	return f
}
