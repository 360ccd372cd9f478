// Command livebench measures resource subscriptions (issue 32) on one real
// Mattermost node: 100 people, each with one MCP session of protocol
// 2025-11-25 whose GET stream is open, each session subscribed
// (resources/subscribe) to the channel resources of 10 channels they are all
// members of: 1,000 subscriptions. One poster then posts through REST at
// 50 posts a second for 20 seconds, spread over the channels in turn, and
// every stream records when each notifications/resources/updated arrives.
//
// It prints the delay from just before each post's REST call to each of its
// notices' arrival (p50, p90, p99, max), the notices expected (posts x the
// subscribers of their channel) against those received, the REST post
// latency, and the plugin process's resident memory at rest, with the
// sessions, streams and subscriptions open, at its peak during the posts
// and after them. It asserts nothing.
//
// A notice names only its channel's URI, and notices still waiting for a
// stream are told once, so a post is taken as learned by a subscriber at
// the first notice for its channel after the post's REST call answered
// (a read then shows it): an upper bound of the delay.
// It also prints the processor time of the plugin and of Mattermost over
// the posts, whether any subscription left the KV store's index, and the
// plugin's warnings.
//
//	go run ./e2e/cmd/livebench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

const (
	// protocolVersion is the last protocol version with sessions and their
	// GET streams.
	protocolVersion = "2025-11-25"
	// setupWorkers bounds the people signed up and sessions opened at once:
	// each sign-up hashes a password, which takes a core for a while.
	setupWorkers = 8
	// quietEnd is how long the bench waits, once posting ends, for a notice
	// more before it counts the rest as lost.
	quietEnd = 5 * time.Second
	// sampleEvery is how often the plugin's resident memory is read.
	sampleEvery = 100 * time.Millisecond
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	people := flag.Int("people", 100, "people, each with one MCP session and its GET stream")
	channels := flag.Int("channels", 10, "channels, every person a member, every session subscribed to each")
	rate := flag.Int("rate", 50, "posts a second, spread over the channels in turn")
	over := flag.Duration("for", 20*time.Second, "how long to post")
	flag.Parse()
	if err := run(*bundle, *people, *channels, *rate, *over); err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

// arrival is one notice heard on a stream: its channel and when.
type arrival struct {
	channel int
	at      time.Time
}

// listener is one person's session and its GET stream's notices.
type listener struct {
	person   harness.User
	mcp      *client.Client
	arrivals []arrival // written by the stream's reader alone until it ends
	heard    atomic.Int64
	ended    error // why the stream ended before the bench closed it
	done     chan struct{}
}

func run(bundle string, people, channels, rate int, over time.Duration) error {
	ctx := context.Background()
	mm, err := harness.StartForBench(ctx, harness.Options{BundlePath: bundle})
	if err != nil {
		return err
	}
	defer mm.Close()
	proc, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	admin := mm.Client(mm.Admin)
	// Keep connections for the poster's requests, which come 50 a second.
	admin.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	persons := make([]harness.User, people)
	if err := inParallel(people, func(i int) error {
		p, err := mm.CreateUser(fmt.Sprintf("live%d", i))
		persons[i] = p
		return err
	}); err != nil {
		return err
	}
	ids := make([]string, people)
	for i, p := range persons {
		ids[i] = p.ID
	}
	chans := make([]*model.Channel, channels)
	uris := make([]string, channels)
	byURI := map[string]int{}
	for i := range chans {
		ch, resp, err := admin.CreateChannel(ctx, &model.Channel{TeamId: mm.Team.Id, Name: fmt.Sprintf("live-%d", i), DisplayName: fmt.Sprintf("Live %d", i), Type: model.ChannelTypeOpen})
		if err != nil {
			return fmt.Errorf("create channel %d: %w (%v)", i, err, resp)
		}
		// A request adds at most 1,000 members (Mattermost's bound).
		for from := 0; from < len(ids); from += 1000 {
			if _, _, err := admin.AddChannelMembers(ctx, ch.Id, "", ids[from:min(from+1000, len(ids))]); err != nil {
				return fmt.Errorf("add members to %s: %w", ch.Name, err)
			}
		}
		chans[i] = ch
		uris[i] = resources.ChannelURI(mm.Team.Name, ch.Name)
		byURI[uris[i]] = i
	}
	atRest := proc.KiB("VmRSS")

	streamCtx, closeStreams := context.WithCancel(ctx)
	defer closeStreams()
	listeners := make([]*listener, people)
	if err := inParallel(people, func(i int) error {
		l, err := listen(streamCtx, mm.URL, persons[i], uris, byURI)
		listeners[i] = l
		return err
	}); err != nil {
		return err
	}
	defer func() {
		for _, l := range listeners {
			_ = harness.EndMCPSession(ctx, mm.URL, l.person.Token, l.mcp)
		}
	}()
	time.Sleep(2 * time.Second) // let the setup's garbage go before reading the resident set
	idle := proc.KiB("VmRSS")
	indexRows, indexBytes, err := mm.KVRows(ctx, "lvc_", "")
	if err != nil {
		return err
	}

	// Post: each tick makes the next post in the next channel, each on its
	// own goroutine so that a slow answer does not hold back the rate.
	total := rate * int(over/time.Second)
	sent := make([][]time.Time, channels)
	answered := make([][]time.Time, channels) // when each post's REST call answered
	var postMu sync.Mutex
	var postLatencies []time.Duration
	var postErrors atomic.Int64
	var firstPostError atomic.Value
	var posts sync.WaitGroup
	var postedAt time.Time
	cpuPlugin, cpuMM := pluginproc.CPUSeconds(proc.PID), pluginproc.CPUSeconds(mm.PIDs()[0])
	peak, _ := proc.Peak(sampleEvery, func() error {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for n := range total {
			<-tick.C
			c := n % channels
			t0 := time.Now()
			k := len(sent[c])
			sent[c] = append(sent[c], t0)
			postMu.Lock()
			answered[c] = append(answered[c], time.Time{})
			postMu.Unlock()
			posts.Add(1)
			go func() {
				defer posts.Done()
				msg := fmt.Sprintf("livebench post %d sent %s", n, t0.Format(time.RFC3339Nano))
				if _, _, err := admin.CreatePost(ctx, &model.Post{ChannelId: chans[c].Id, Message: msg}); err != nil {
					postErrors.Add(1)
					firstPostError.CompareAndSwap(nil, err.Error())
					return
				}
				d := time.Since(t0)
				postMu.Lock()
				postLatencies = append(postLatencies, d)
				answered[c][k] = t0.Add(d)
				postMu.Unlock()
			}()
		}
		posts.Wait()
		postedAt = time.Now()
		waitQuiet(listeners, people*total)
		return nil
	})
	after := proc.KiB("VmRSS")
	cpuPlugin, cpuMM = pluginproc.CPUSeconds(proc.PID)-cpuPlugin, pluginproc.CPUSeconds(mm.PIDs()[0])-cpuMM
	closeStreams()
	for _, l := range listeners {
		<-l.done
	}

	leftRows, leftBytes, err := mm.KVRows(ctx, "lvc_", "")
	if err != nil {
		return err
	}
	// A notice names its channel only, and notices still waiting for one
	// stream are told once (a client reads the channel once for several
	// posts): a post is learned by a subscriber at its first notice for
	// the channel that came after the post's REST call answered (a read
	// then shows it), and its delay counts from before that call. A post
	// after which no notice came is missed.
	var delays []time.Duration
	received, missed, early, whole := 0, 0, 0, 0
	var lastHeard time.Time
	for _, l := range listeners {
		if n := len(l.arrivals); n > 0 && l.arrivals[n-1].at.After(lastHeard) {
			lastHeard = l.arrivals[n-1].at
		}
		byChannel := make([][]time.Time, channels)
		for _, a := range l.arrivals {
			byChannel[a.channel] = append(byChannel[a.channel], a.at)
			received++
		}
		for c := range channels {
			all := true
			for k, t0 := range sent[c] {
				i := sort.Search(len(byChannel[c]), func(i int) bool { return !byChannel[c][i].Before(answered[c][k]) })
				if answered[c][k].IsZero() || i == len(byChannel[c]) {
					missed++
					all = false
					continue
				}
				delays = append(delays, byChannel[c][i].Sub(t0))
			}
			if all {
				whole++
			}
		}
		if l.ended != nil {
			early++
		}
	}
	extra := 0
	at := quantiles(delays)
	pat := quantiles(postLatencies)
	fmt.Printf("== %d people x 1 session of %s with its GET stream x %d channels = %d subscriptions, one node ==\n",
		people, protocolVersion, channels, people*channels)
	fmt.Printf("%d posts at %d a second over %s by one poster through REST: %d failed; post call p50 %s, p99 %s\n",
		total, rate, over, postErrors.Load(), pat(0.5), pat(0.99))
	if e := firstPostError.Load(); e != nil {
		fmt.Println("  first post error:", e)
	}
	expected := people * total
	fmt.Printf("notices: %d received for %d post-subscriber pairs (those still waiting for a stream are told once); pairs learned: %d (%.2f%%), missed %d; streams that ended early: %d\n",
		received, expected, expected-missed, 100*float64(expected-missed)/float64(max(expected, 1)), missed+extra, early)
	fmt.Printf("the last notice came %s after the last post's answer; processor time from the first post to the last notice: plugin %.1f s, Mattermost %.1f s\n",
		lastHeard.Sub(postedAt).Round(time.Millisecond), cpuPlugin, cpuMM)
	fmt.Printf("subscriptions that heard of every post in their channel: %d of %d; the channels' subscription index in the KV store: %d rows, %d KiB before posting, %d rows, %d KiB after\n",
		whole, people*channels, indexRows, indexBytes>>10, leftRows, leftBytes>>10)
	fmt.Printf("delay from before a post's REST call to the first notice of its channel after it answered: p50 %s, p90 %s, p99 %s, max %s\n",
		at(0.5), at(0.9), at(0.99), at(1))
	fmt.Printf("plugin process %d resident: at rest %d MiB; with %d sessions, streams and %d subscriptions %d MiB; peak while posting %d MiB; after %d MiB\n",
		proc.PID, atRest>>10, people, people*channels, idle>>10, peak>>10, after>>10)
	for _, l := range listeners {
		if l.ended != nil {
			fmt.Printf("  %s's stream ended early: %v\n", l.person.Username, l.ended)
			break // the first says enough
		}
	}
	return pluginWarnings(mm.ServerLog())
}

// pluginWarnings prints how many warnings and errors the plugin logged on
// the node, and the first few distinct ones: where notices went missing.
func pluginWarnings(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	count := 0
	var first []string
	for _, line := range strings.Split(string(raw), "\n") {
		var entry struct {
			Level  string `json:"level"`
			Msg    string `json:"msg"`
			Plugin string `json:"plugin_id"`
			Error  string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Plugin != harness.PluginID || (entry.Level != "warn" && entry.Level != "error") {
			continue
		}
		count++
		text := entry.Msg + ": " + entry.Error
		if len(first) < 3 && !slices.Contains(first, text) {
			first = append(first, text)
		}
	}
	fmt.Printf("the plugin logged %d warnings and errors\n", count)
	for _, f := range first {
		fmt.Println("  ", f)
	}
	return nil
}

// listen opens person's MCP session, subscribes it to every channel's URI
// and opens its GET stream, whose reader records each resource notice until
// ctx ends. It returns once the server has taken the stream.
func listen(ctx context.Context, site string, person harness.User, uris []string, byURI map[string]int) (*listener, error) {
	c, err := harness.ConnectMCPVersion(ctx, site, person.Token, "livebench", protocolVersion)
	if err != nil {
		return nil, fmt.Errorf("initialize as %s: %w", person.Username, err)
	}
	for i, uri := range uris {
		resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1000 + i)),
			Method: string(mcp.MethodResourcesSubscribe), Params: map[string]any{"uri": uri}})
		if err == nil && resp.Error != nil {
			err = fmt.Errorf("%d %s", resp.Error.Code, resp.Error.Message)
		}
		if err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("subscribe %s to %s: %w", person.Username, uri, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+person.Token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.GetSessionId())
	req.Header.Set("Mcp-Protocol-Version", protocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = c.Close()
		return nil, fmt.Errorf("GET stream of %s: %d %s", person.Username, resp.StatusCode, body)
	}
	l := &listener{person: person, mcp: c, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			if !ok {
				continue
			}
			at := time.Now()
			var n struct {
				Method string `json:"method"`
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(data), &n) != nil || n.Method != string(mcp.MethodNotificationResourceUpdated) {
				continue
			}
			if ch, ok := byURI[n.Params.URI]; ok {
				l.arrivals = append(l.arrivals, arrival{channel: ch, at: at})
				l.heard.Add(1)
			}
		}
		if ctx.Err() == nil {
			l.ended = fmt.Errorf("the stream ended: %v", lines.Err())
		}
	}()
	return l, nil
}

// waitQuiet returns once every notice expected has been heard, or when no
// stream has heard one for quietEnd.
func waitQuiet(listeners []*listener, expected int) {
	last, lastChange := -1, time.Now()
	for time.Since(lastChange) < quietEnd {
		heard := 0
		for _, l := range listeners {
			heard += int(l.heard.Load())
		}
		if heard >= expected {
			return
		}
		if heard != last {
			last, lastChange = heard, time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// inParallel runs f(0..n-1) on setupWorkers goroutines and returns the
// first error by index.
func inParallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(n, setupWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// quantiles sorts durations and answers each quantile of them, rounded to
// the tenth of a millisecond (0 for none).
func quantiles(d []time.Duration) func(q float64) time.Duration {
	slices.Sort(d)
	return func(q float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		return d[min(len(d)-1, int(q*float64(len(d))))].Round(100 * time.Microsecond)
	}
}
