package e2e

// Issue 30, item 5: a browser client connects from a page at an origin the
// admin lists, with the official TypeScript SDK, and one at another origin
// is refused.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// browserSDK is the official TypeScript SDK's client bundled for a web page
// (e2e/node/browser-client.mjs), built with the bundler the Node packages
// carry.
func browserSDK(t *testing.T) []byte {
	t.Helper()
	node, err := harness.NodeBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := harness.NodeDir()
	out := filepath.Join(t.TempDir(), "sdk.js")
	cmd := exec.Command(node, filepath.Join(dir, "node_modules", "rolldown", "bin", "cli.mjs"), "browser-client.mjs",
		"--platform", "browser", "--format", "esm", "--file", out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bundle the SDK for the browser: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sdkPage is the page a browser MCP client is: runMCP(url, token) connects
// with the SDK's streamable HTTP transport and a bearer token, lists the
// tools, calls get_me, reads the first resource listed and ends the session
// with DELETE; it answers what it saw, or the error it stopped at.
const sdkPage = `<!doctype html><meta charset="utf-8"><title>A browser MCP client</title><link rel="icon" href="data:,">
<script type="module">
import { Client, StreamableHTTPClientTransport } from "/sdk.js";
window.runMCP = async (url, token) => {
  const seen = { step: "connect" };
  try {
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer " + token } } });
    const client = new Client({ name: "browser-page", version: "1" });
    await client.connect(transport);
    seen.session = transport.sessionId;
    seen.step = "tools/list";
    seen.tools = (await client.listTools()).tools.map((t) => t.name);
    seen.step = "tools/call";
    const me = await client.callTool({ name: "get_me", arguments: {} });
    seen.me = JSON.stringify(me.structuredContent ?? me.content);
    seen.step = "resources/read";
    const listed = await client.listResources();
    const read = await client.readResource({ uri: listed.resources[0].uri });
    seen.resource = read.contents.length;
    seen.step = "DELETE";
    await transport.terminateSession();
    seen.step = "done";
  } catch (e) {
    seen.error = String(e && e.message || e);
  }
  return JSON.stringify(seen);
};
window.ready = true;
</script>`

// pageSite serves sdkPage and the SDK at its own origin, http://127.0.0.1
// with a port of its own, which is not the Mattermost site's origin.
func pageSite(t *testing.T, sdk []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sdk.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write(sdk)
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(sdkPage))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// browserClientSaw is what the page's client saw.
type browserClientSaw struct {
	Step, Session, Me, Error string
	Tools                    []string
	Resource                 int
}

// runBrowserClient opens page in a fresh Chromium, runs its client against
// the MCP endpoint as alice and answers what it saw and every console
// message, log entry and uncaught exception of the tab.
func runBrowserClient(t *testing.T, page string) (browserClientSaw, []string) {
	t.Helper()
	tab, closeBrowser, err := mm.Browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer closeBrowser()
	var mu sync.Mutex
	var console []string
	err = chromedp.Listen(tab, func(ev any) {
		var text string
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			text = string(e.Entry.Level) + ": " + e.Entry.Text + " " + e.Entry.URL
		case *runtime.EventConsoleAPICalled:
			text = string(e.Type) + ":"
			for _, a := range e.Args {
				text += " " + string(a.Value) + a.Description
			}
		case *runtime.EventExceptionThrown:
			text = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				text += " " + e.ExceptionDetails.Exception.Description
			}
		default:
			return
		}
		mu.Lock()
		console = append(console, text)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("listen to the tab: %v", err)
	}
	step(t, tab, chromedp.Navigate(page+"/"))
	pollJS[bool](t, tab, "the page's script loaded", `window.ready === true`)
	out, err := run(tab, chromedp.Evaluate[string](fmt.Sprintf(`runMCP(%q, %q)`, mcpURL(mm.URL), mm.Users[0].Token), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run the page's client: %v", err)
	}
	var saw browserClientSaw
	if err := json.Unmarshal([]byte(out), &saw); err != nil {
		t.Fatalf("the page answered %s: %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return saw, append([]string(nil), console...)
}

func TestAPageAtAListedOriginConnectsWithTheOfficialSDKAndAPageAtAnotherOriginIsRefused(t *testing.T) {
	sdk := browserSDK(t)
	listed, other := pageSite(t, sdk), pageSite(t, sdk)
	// The plugin's setting alone: Mattermost's own CORS setting stays off.
	if err := mm.PatchPluginSettings(map[string]any{"AllowedOrigins": listed}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowedOrigins": ""}) })
	waitOriginServed(t, listed)

	saw, console := runBrowserClient(t, listed)
	if saw.Step != "done" || saw.Error != "" || !strings.Contains(saw.Me, mm.Users[0].Username) || len(saw.Tools) == 0 || saw.Resource == 0 || saw.Session == "" {
		t.Fatalf("the page at the listed origin %s: %+v\nconsole: %s", listed, saw, strings.Join(console, "\n"))
	}
	for _, line := range console {
		if theRefusedStream(line) {
			continue
		}
		if strings.Contains(line, "CORS") || strings.Contains(line, "Access-Control") || strings.HasPrefix(line, "exception") || strings.HasPrefix(line, "error") {
			t.Errorf("the page at the listed origin logged: %s", line)
		}
	}
	// Read back: the DELETE ended the session, which is no longer served.
	code, body := fromOrigin(t, http.DefaultClient, http.MethodPost, mcpURL(mm.URL), "", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`,
		map[string]string{"Authorization": "Bearer " + mm.Users[0].Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Session-Id": saw.Session, "Mcp-Protocol-Version": "2025-11-25"})
	if code != http.StatusNotFound {
		t.Errorf("the session the page ended: %d %.300s", code, body)
	}

	saw, console = runBrowserClient(t, other)
	if saw.Step != "connect" || saw.Error == "" || saw.Session != "" {
		t.Fatalf("the page at %s, not listed: %+v", other, saw)
	}
	if !strings.Contains(strings.Join(console, "\n"), "CORS") {
		t.Errorf("the page at %s, not listed, was not refused by CORS: %s", other, strings.Join(console, "\n"))
	}
}

// waitOriginServed waits until every node serves origin, which it reads
// from the setting on the next request after it arrives.
func waitOriginServed(t *testing.T, origin string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, body := fromOrigin(t, http.DefaultClient, http.MethodGet, pluginURL()+"/.well-known/oauth-protected-resource/mcp", origin, "", nil)
		if !strings.Contains(body, originRefusal) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin did not serve %s within 10s: %d %s", origin, code, body)
		}
	}
}
