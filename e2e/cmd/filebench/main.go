// Command filebench measures a person's own file reaching the workspace
// for a file request (request_file), through its page (as the person's
// browser sends it) and through its drop URL (as the upload view sends
// it): a file of the largest size, the plugin process's peak resident
// memory and the time, against a REST upload of the same bytes to
// Mattermost itself (POST /api/v4/files). It prints each round's figures
// with their minimum and median; it asserts nothing.
//
//	go run ./e2e/cmd/filebench -bundle $PWD/dist/mcp-server-0.1.0.tar.gz [-mib 40] [-rounds 3]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func main() {
	bundle := flag.String("bundle", "", "plugin bundle to install")
	mib := flag.Int("mib", 40, "file size in MiB")
	rounds := flag.Int("rounds", 3, "rounds of each upload")
	flag.Parse()
	if err := run(*bundle, *mib, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "filebench:", err)
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
	// Room for every round's file in the person's workspace.
	if err := mm.PatchPluginSettings(map[string]any{"MaxWorkspaceFileMiB": mib, "WorkspaceQuotaMiB": (2*rounds + 1) * mib}); err != nil {
		return err
	}
	proc, err := pluginproc.Find(mm)
	if err != nil {
		return err
	}
	alice := mm.Users[0]
	web, err := signIn(mm.URL, alice)
	if err != nil {
		return err
	}
	town, _, err := mm.Client(alice).GetChannelByName(ctx, "town-square", mm.Team.Id, "")
	if err != nil {
		return err
	}
	data := bytes.Repeat([]byte("%PDF-1.7 0123456789abcdef"), mib<<20/25+1)[:mib<<20]
	fmt.Printf("plugin process %d, resident at rest: %d MiB; file %d MiB\n", proc.PID, proc.KiB("VmRSS")>>10, mib)

	// give asks for a file and gives it by send, measuring the plugin
	// process while the bytes go.
	give := func(send func(req filerequest.Request) error) (time.Duration, int64, error) {
		called := make(chan error, 1)
		go func() {
			var out map[string]any
			called <- harness.CallToolOnce(ctx, mm.URL, alice.Token, "filebench", "request_file", map[string]any{"purpose": "the benchmark's file"}, &out)
		}()
		req, err := mm.WaitingFileRequestOf(ctx, alice.ID, "the benchmark's file", 15*time.Second)
		if err != nil {
			return 0, 0, err
		}
		base := proc.KiB("VmRSS")
		proc.ResetPeak()
		started := time.Now()
		peak, err := proc.Peak(5*time.Millisecond, func() error { return send(req) })
		took := time.Since(started)
		if err != nil {
			return 0, 0, err
		}
		return took, peak - base, <-called
	}
	var pageTimes, dropTimes, restTimes []time.Duration
	var pagePeaks, dropPeaks []int64
	for round := 1; round <= rounds; round++ {
		took, peak, err := give(func(req filerequest.Request) error {
			code, o, err := harness.GiveFile(web, mm.URL+"/plugins/mcp-server"+filerequest.Path+"/"+req.ID, fmt.Sprintf("round%d.pdf", round), data)
			if err == nil && code != http.StatusCreated {
				err = fmt.Errorf("the page's upload: %d %s", code, o.Message)
			}
			return err
		})
		if err != nil {
			return err
		}
		// The view is handed its drop URL in the answer that shows it; the
		// store keeps only the key's hash.
		dropURL, err := viewDropURL(ctx, mm.URL, alice.Token, fmt.Sprintf("the view's file %d", round))
		if err != nil {
			return err
		}
		base := proc.KiB("VmRSS")
		proc.ResetPeak()
		dropStarted := time.Now()
		dropPeak, err := proc.Peak(5*time.Millisecond, func() error { return drop(dropURL, fmt.Sprintf("view%d.pdf", round), data) })
		dropTook := time.Since(dropStarted)
		dropPeak -= base
		if err != nil {
			return err
		}
		restStarted := time.Now()
		if err := harness.RESTUpload(mm.URL, alice.Token, town.Id, fmt.Sprintf("round%d.pdf", round), data); err != nil {
			return err
		}
		rest := time.Since(restStarted)
		pageTimes, dropTimes, restTimes = append(pageTimes, took), append(dropTimes, dropTook), append(restTimes, rest)
		pagePeaks, dropPeaks = append(pagePeaks, peak), append(dropPeaks, dropPeak)
		fmt.Printf("round %d: page %v (%.1f MiB/s, peak +%d MiB); view's drop URL %v (%.1f MiB/s, peak +%d MiB); REST upload to Mattermost %v (%.1f MiB/s)\n",
			round, took.Round(time.Millisecond), float64(mib)/took.Seconds(), peak>>10,
			dropTook.Round(time.Millisecond), float64(mib)/dropTook.Seconds(), dropPeak>>10, rest.Round(time.Millisecond), float64(mib)/rest.Seconds())
	}
	fmt.Printf("page: min %v, median %v, peak above rest median %d MiB; drop URL: min %v, median %v, peak above rest median %d MiB; REST: min %v, median %v\n",
		slices.Min(pageTimes).Round(time.Millisecond), pluginproc.Median(pageTimes).Round(time.Millisecond), pluginproc.Median(pagePeaks)>>10,
		slices.Min(dropTimes).Round(time.Millisecond), pluginproc.Median(dropTimes).Round(time.Millisecond), pluginproc.Median(dropPeaks)>>10,
		slices.Min(restTimes).Round(time.Millisecond), pluginproc.Median(restTimes).Round(time.Millisecond))
	return nil
}

// viewDropURL asks for a file as a client that shows MCP Apps views does,
// and answers the drop URL its view is handed.
func viewDropURL(ctx context.Context, site, token, purpose string) (string, error) {
	tr, err := transport.NewStreamableHTTP(strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return "", err
	}
	views := mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{resources.ViewMIMEType}}}}
	c := client.NewClient(tr, client.WithClientCapabilities(views))
	if err := c.Start(ctx); err != nil {
		return "", err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "filebench-view", Version: "1"}
	init.Params.Capabilities = views
	if _, err := c.Initialize(ctx, init); err != nil {
		return "", err
	}
	res, err := harness.CallTool(ctx, c, "request_file", map[string]any{"purpose": purpose})
	if err != nil {
		return "", err
	}
	var view tools.FileRequestView
	if res.Meta != nil {
		raw, _ := json.Marshal(res.Meta.AdditionalFields[tools.FileRequestMetaKey])
		_ = json.Unmarshal(raw, &view)
	}
	if view.DropURL == "" {
		return "", fmt.Errorf("request_file handed the view no drop URL")
	}
	return view.DropURL, nil
}

// drop sends data to a drop URL as the upload view does: a PUT of the raw
// file from another origin, without credentials.
func drop(u, name string, data []byte) error {
	req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	req.Header.Set("Origin", "https://sandbox.example")
	req.Header.Set("X-File-Name", url.PathEscape(name))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("the drop URL's upload: %d %s", resp.StatusCode, b)
	}
	return nil
}

// signIn is the person's browser session: the cookies Mattermost sets for
// its web app, the CSRF token among them.
func signIn(site string, u harness.User) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	body, _ := json.Marshal(map[string]string{"login_id": u.Username, "password": u.Password})
	req, _ := http.NewRequest(http.MethodPost, site+"/api/v4/users/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	su, _ := url.Parse(site)
	for _, ck := range jar.Cookies(su) {
		if ck.Name == "MMCSRF" {
			return c, nil
		}
	}
	return nil, fmt.Errorf("signing in gave no CSRF cookie (%s)", resp.Status)
}
