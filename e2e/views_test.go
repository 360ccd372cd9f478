package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// viewHost is a small MCP Apps host, as a client that shows apps is: it puts
// the view's page (read with resources/read) into a sandboxed frame and
// answers the view's ui/initialize over postMessage with its context (theme,
// time zone), then hands it the tool's result. The frame also gets
// allow-same-origin, only so the test can read what the view drew; the
// page's own CSP still applies inside it.
const viewHost = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style>
body{margin:0;background:%[1]s}iframe{border:0;width:100%%;display:block;height:200px}</style></head>
<body><iframe id="view" sandbox="allow-scripts allow-same-origin"></iframe><script>
const data = %[2]s;
const frame = document.getElementById("view");
window.hostSeen = [];
window.addEventListener("message", (e) => {
  if (e.source !== frame.contentWindow) return;
  const m = e.data || {};
  const reply = (result) => frame.contentWindow.postMessage({jsonrpc: "2.0", id: m.id, result}, "*");
  if (m.method) window.hostSeen.push(m.method + " " + ((m.params && (m.params.uri || m.params.name)) || ""));
  if (m.method === "ui/initialize") {
    reply({protocolVersion: m.params.protocolVersion, hostInfo: {name: "e2e-host", version: "1"},
      hostCapabilities: data.serverTools ? {serverTools: {}, serverResources: {}} : {}, hostContext: {theme: data.theme, timeZone: data.timeZone, locale: "en-US", displayMode: "inline"}});
  } else if (m.method === "ui/notifications/initialized") {
    frame.contentWindow.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {arguments: data.args}}, "*");
    frame.contentWindow.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: data.result}, "*");
  } else if (m.method === "tools/call") {
    fetch("/call", {method: "POST", body: JSON.stringify(m.params)}).then((r) => r.json()).then(reply);
  } else if (m.method === "resources/read") {
    fetch("/read", {method: "POST", body: JSON.stringify(m.params)}).then(async (r) => r.ok ? reply(await r.json()) :
      frame.contentWindow.postMessage({jsonrpc: "2.0", id: m.id, error: {code: -32002, message: await r.text()}}, "*"));
  } else if (m.method === "ui/notifications/size-changed") {
    if (m.params && m.params.height) frame.style.height = Math.ceil(m.params.height) + "px";
  } else if (m.id !== undefined) {
    reply({});
  }
});
frame.srcdoc = data.page;
</script></body></html>`

// hostView serves the host page with the view's page and a tool result and
// opens it in a fresh headless Chromium at width. With a client, the host
// passes the view's read_file and get_pending calls (serverTools) and its
// resource reads (serverResources) to the server as that client's person,
// as a real host does over its own connection; window.hostSeen lists what
// the view asked the host.
func hostView(t *testing.T, page string, result *mcp.CallToolResult, args map[string]any, theme string, width int64, as ...*client.Client) context.Context {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"page": page, "result": result, "args": args, "theme": theme, "timeZone": "Asia/Tokyo", "serverTools": len(as) > 0})
	if err != nil {
		t.Fatal(err)
	}
	bg := hostBackground(theme)
	// The data is JSON inside a script: "<" is escaped so no post can end it.
	data := strings.ReplaceAll(string(raw), "<", `\u003c`)
	return openHost(t, width, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/call" {
			var req struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if len(as) == 0 || json.NewDecoder(r.Body).Decode(&req) != nil || (req.Name != "read_file" && req.Name != "get_pending") {
				http.Error(w, "this host passes only read_file and get_pending", http.StatusBadRequest)
				return
			}
			res, err := as[0].CallTool(r.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: req.Name, Arguments: req.Arguments}})
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			_ = json.NewEncoder(w).Encode(res)
			return
		}
		if r.URL.Path == "/read" {
			var req mcp.ReadResourceParams
			if len(as) == 0 || json.NewDecoder(r.Body).Decode(&req) != nil {
				http.Error(w, "this host reads resources only for a client", http.StatusBadRequest)
				return
			}
			res, err := as[0].ReadResource(r.Context(), mcp.ReadResourceRequest{Params: req})
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			_ = json.NewEncoder(w).Encode(res)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprintf(w, viewHost, bg, data)
	})
}

// hostBackground is what a host of theme paints behind the view.
func hostBackground(theme string) string {
	if theme == "dark" {
		return "#191b1f"
	}
	return "#fff"
}

// openHost serves a host page with handler and opens it in a fresh
// headless Chromium at width; the test fails on a CSP violation or a
// console error.
func openHost(t *testing.T, width int64, handler http.HandlerFunc) context.Context {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	tab, closeBrowser, err := mm.Browser(context.Background())
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(closeBrowser)
	watchCSP(t, tab)
	watchConsole(t, tab)
	atWidth(t, tab, width, 900)
	step(t, tab, chromedp.Navigate(srv.URL))
	return tab
}

// inView is expression evaluated on the view's document (d).
func inView(expression string) string {
	return `(() => { const f = document.getElementById("view"); const d = f && f.contentDocument; if (!d) return null; return (` + expression + `); })()`
}

// viewPage reads a view's page as c's client would, checking that exactly
// the tools named (in the order tools/list gives them) name it in their
// _meta.ui.resourceUri.
func viewPage(t *testing.T, c *client.Client, uri string, naming ...string) string {
	t.Helper()
	listed, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, tool := range listed.Tools {
		if tool.Meta == nil {
			continue
		}
		if ui, ok := tool.Meta.AdditionalFields["ui"].(map[string]any); ok && ui["resourceUri"] == uri {
			named = append(named, tool.Name)
		}
	}
	slices.Sort(named)
	want := slices.Sorted(slices.Values(naming))
	if !slices.Equal(named, want) {
		t.Fatalf("the tools naming %s: %v, want %v", uri, named, want)
	}
	res, err := c.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		t.Fatalf("read the view: %v", err)
	}
	page, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || page.MIMEType != resources.ViewMIMEType || !strings.Contains(page.Text, "Content-Security-Policy") {
		t.Fatalf("the view is not an MCP App page: %+v", res.Contents[0])
	}
	return page.Text
}

// threadViewPage reads the thread view's page, checking read_thread,
// read_channel and search_posts name it.
func threadViewPage(t *testing.T, c *client.Client) string {
	t.Helper()
	return viewPage(t, c, resources.ThreadView, "read_thread", "read_channel", "search_posts")
}

// threadViewOf is the thread view's page and c's answer from tool, which
// names it, to args; a refusal fails the test.
func threadViewOf(t *testing.T, c *client.Client, tool string, args map[string]any) (string, *mcp.CallToolResult) {
	t.Helper()
	page := threadViewPage(t, c)
	res := call(t, c, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, text(res))
	}
	return page, res
}

const viewXSS = `<img src=x onerror="window.pwned=1"> [click](javascript:window.pwned=1)`

func TestTheThreadViewShowsTheThreadCarolReadAtPhoneAndLaptopWidthInBothThemes(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "view-"), "Launch <img src=x onerror=pwned=1>", model.ChannelTypeOpen)
	if _, _, err := mm.Client(dave).AddChannelMember(context.Background(), ch.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	root := createPost(t, dave, ch.Id, "What did we decide about the **launch**? Plan: https://example.com/plan\n- ship friday\n- `flags` on\n"+viewXSS, "")
	createPost(t, carol, ch.Id, "> ship friday\nAgreed, I will write the _notes_.", root.Id)
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"post": root.Id}
	page, res := threadViewOf(t, c, "read_thread", args)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	day := time.UnixMilli(root.CreateAt).In(tokyo).Format("Jan 2, 2006")
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int64{phoneWidth, laptopWidth} {
			tab := hostView(t, page, res, args, theme, width)
			seesLaunchThread(t, tab, "test host", theme, width, root, dave, carol, day)
			shoot(t, tab, width, "thread-view-"+theme)
			tab = refHostView(t, carol.Token, "read_thread", args, resources.ThreadView, theme, width)
			seesLaunchThread(t, tab, "reference host", theme, width, root, dave, carol, day)
			shoot(t, tab, width, "ref-thread-view-"+theme)
		}
	}
}

// seesLaunchThread checks what the view in tab drew of the launch thread:
// both posts, their authors, the time in Tokyo, the permalink, the bold
// word, the theme, nothing live, nothing sideways.
func seesLaunchThread(t *testing.T, tab context.Context, host, theme string, width int64, root *model.Post, dave, carol harness.User, day string) {
	t.Helper()
	if n := pollJS[int](t, tab, "the view shows both posts", inView(`d.querySelectorAll(".post").length`)); n != 2 {
		t.Fatalf("%s %s %dpx: %d posts shown, want 2", host, theme, width, n)
	}
	got := evalJS[map[string]any](t, tab, inView(`({
		authors: [...d.querySelectorAll(".author")].map(e => e.textContent),
		time: d.querySelector(".time").textContent,
		permalink: d.querySelector("a.time").href,
		bold: d.querySelector("strong") && d.querySelector("strong").textContent,
		theme: d.documentElement.dataset.theme || "",
		onAttrs: [...d.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
		imgs: d.querySelectorAll("img,script:not(:first-of-type)").length,
		badLinks: [...d.querySelectorAll("a")].filter(a => !/^https?:/.test(a.href)).length,
		pwned: !!(window.pwned || f.contentWindow.pwned),
		wide: d.documentElement.scrollWidth,
	})`))
	if fmt.Sprint(got["authors"]) != fmt.Sprintf("[@%s @%s]", dave.Username, carol.Username) || !strings.Contains(got["time"].(string), day) ||
		!strings.Contains(got["permalink"].(string), "/pl/"+root.Id) || got["bold"] != "launch" || got["theme"] != theme {
		t.Errorf("%s %s %dpx: the view shows %v; want @%s then @%s, %s in Tokyo, the permalink, the bold word", host, theme, width, got, dave.Username, carol.Username, day)
	}
	if got["onAttrs"].(float64) != 0 || got["imgs"].(float64) != 0 || got["badLinks"].(float64) != 0 || got["pwned"] == true {
		t.Errorf("%s %s %dpx: something a post holds became live: %v", host, theme, width, got)
	}
	if got["wide"].(float64) > float64(width) {
		t.Errorf("%s %s %dpx: the view scrolls sideways: %v wide", host, theme, width, got["wide"])
	}
}

func TestTheThreadViewNeverShowsAThreadThePersonCannotRead(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	priv := createChannel(t, dave, uniq(t, "vpriv-"), "Dave alone", model.ChannelTypePrivate)
	root := createPost(t, dave, priv.Id, "the zebra-secret plan", "")
	c := connect(t, mm.URL, carol.Token)
	page := threadViewPage(t, c)
	if strings.Contains(page, "zebra-secret") {
		t.Fatal("the view's page holds post data")
	}
	args := map[string]any{"post": root.Id}
	res := call(t, c, "read_thread", args)
	if !res.IsError {
		t.Fatalf("carol read dave's private thread: %s", text(res))
	}
	tab := hostView(t, page, res, args, "light", laptopWidth)
	shown := pollJS[string](t, tab, "the view has drawn the result", inView(`d.querySelector(".empty") ? d.getElementById("root").textContent : ""`))
	if strings.Contains(shown, "zebra") || !strings.Contains(shown, "No posts to show") {
		t.Fatalf("the view shows %q for a thread carol cannot read", shown)
	}
}

func TestTheThreadViewShowsAChannelsPostsWithTheirAttachmentsByNameAndSize(t *testing.T) {
	carol, dave := newPerson(t, "carol"), newPerson(t, "dave")
	ch := createChannel(t, dave, uniq(t, "vfile-"), "View files", model.ChannelTypeOpen)
	if _, _, err := mm.Client(dave).AddChannelMember(context.Background(), ch.Id, carol.ID); err != nil {
		t.Fatal(err)
	}
	name := `<img src=x onerror=pwned=1>.txt`
	postFiles(t, dave, ch.Id, "the notes, attached", map[string][]byte{name: []byte(strings.Repeat("n", 3000))})
	postFiles(t, dave, ch.Id, "the chart", map[string][]byte{"chart.png": tinyPNG(t)})
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"channel": ch.Id}
	page, res := threadViewOf(t, c, "read_channel", args)
	tab := hostView(t, page, res, args, "light", laptopWidth, c)
	files := pollJS[string](t, tab, "the view shows the attachment", inView(`[...d.querySelectorAll(".files")].map(e => e.textContent).join(" | ")`))
	if !strings.Contains(files, name+"2.9 KB") || !strings.HasSuffix(files, "chart.png118 B · image/png") {
		t.Errorf("the attachments show as %q, want each name as text and its size, the older post first", files)
	}
	if live := evalJS[float64](t, tab, inView(`d.querySelectorAll("img:not(.thumb),[onerror]").length + (f.contentWindow.pwned ? 1 : 0)`)); live != 0 {
		t.Errorf("the file name became live: %v", live)
	}
	thumb := pollJS[string](t, tab, "the view draws the image's thumbnail, read as carol", inView(`(() => { const i = d.querySelector("img.thumb"); return i && i.complete && i.naturalWidth > 0 ? i.src : ""; })()`))
	if !strings.HasPrefix(thumb, "data:image/png;base64,") {
		t.Errorf("the thumbnail is drawn from %.40s, want the data of Mattermost's own thumbnail", thumb)
	}
	shoot(t, tab, laptopWidth, "channel-view-light")
}

func TestTheThreadViewShowsWhatCarolFoundInTwoChannelsEachWithItsChannel(t *testing.T) {
	carol := newPerson(t, "carol")
	word := uniq(t, "zebrafound")
	var names []string
	for _, prefix := range []string{"vfa-", "vfb-"} {
		ch := createChannel(t, carol, uniq(t, prefix), "Found "+prefix, model.ChannelTypeOpen)
		createPost(t, carol, ch.Id, "the "+word+" is here", "")
		names = append(names, ch.Name)
	}
	c := connect(t, mm.URL, carol.Token)
	args := map[string]any{"terms": word}
	page, res := threadViewOf(t, c, "search_posts", args)
	tab := hostView(t, page, res, args, "dark", phoneWidth)
	shown := pollJS[string](t, tab, "the view names each found post's channel", inView(`[...d.querySelectorAll(".post .in")].map(e => e.textContent).sort().join(" ")`))
	if want := "~" + names[0] + " ~" + names[1]; shown != want {
		t.Errorf("the found posts name %q, want %q", shown, want)
	}
	shoot(t, tab, phoneWidth, "search-view-dark")
}

// watchConsole fails the test at its end for every error the tab's console
// reported (console.error, an uncaught exception, a failed load), from the
// host page or the view's frame, but CSP violations (watchCSP's): a view
// that works shows none.
func watchConsole(t *testing.T, tab context.Context) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	err := chromedp.Listen(tab, func(ev any) {
		var text string
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				text = e.Entry.Text + " " + e.Entry.URL
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				for _, a := range e.Args {
					text += string(a.Value) + a.Description + " "
				}
			}
		case *runtime.EventExceptionThrown:
			text = e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				text += " " + e.ExceptionDetails.Exception.Description
			}
		}
		// A CSP violation is watchCSP's to report, or a test's to take.
		if text != "" && !strings.Contains(text, "Content Security Policy") && !theRefusedStream(text) {
			mu.Lock()
			seen = append(seen, text)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("listen to the tab: %v", err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(seen) > 0 {
			t.Errorf("the console reported %d errors: %s", len(seen), strings.Join(seen, "\n"))
		}
	})
}

// referenceHost is the page of the reference MCP Apps host
// (e2e/node/refhost.mjs): the official TypeScript SDK v2 client and
// ext-apps' AppBridge, bundled for the browser.
const referenceHost = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style>
body{margin:0;background:%[1]s}iframe{border:0;width:100%%;display:block;height:200px}</style></head>
<body><script src="/refhost.js"></script><script>window.startHost(%[2]s);</script></body></html>`

// refHostScript is the reference host's bundle, built once per run.
var refHostScript = sync.OnceValues(func() (string, error) {
	var out struct {
		Script string `json:"script"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := harness.RunNodeScript(ctx, "build-refhost.mjs", nil, nil, &out)
	return out.Script, err
})

// refHostView opens the reference host in a fresh headless Chromium at
// width: the SDK client, signed in as token's person through a same-origin
// proxy of the MCP endpoint, calls tool with args and reads the view uri;
// AppBridge hands the view the result and sizes its frame as the view asks
// (size-changed). The test fails on a CSP violation or a console error.
func refHostView(t *testing.T, token, tool string, args map[string]any, uri, theme string, width int64) context.Context {
	t.Helper()
	script, err := refHostScript()
	if err != nil {
		t.Fatalf("bundle the reference host: %v", err)
	}
	cfg, err := json.Marshal(map[string]any{"endpoint": "/mcp", "tool": tool, "args": args, "uri": uri, "theme": theme, "timeZone": "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	bg := hostBackground(theme)
	target, err := url.Parse(mcpURL(mm.URL))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{FlushInterval: -1, Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL = target
		r.Out.Host = target.Host
		r.Out.Header.Set("Authorization", "Bearer "+token)
		r.Out.Header.Del("Origin") // the client is the host, not a page of the proxy's origin
	}}
	tab := openHost(t, width, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			proxy.ServeHTTP(w, r)
		case "/refhost.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			_, _ = io.WriteString(w, script)
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = fmt.Fprintf(w, referenceHost, bg, strings.ReplaceAll(string(cfg), "<", `\u003c`))
		default:
			w.WriteHeader(http.StatusNoContent) // the favicon
		}
	})
	if failed := pollJS[string](t, tab, "the reference host shows the view", `window.hostError || (window.hostReady ? "ok" : "")`); failed != "ok" {
		t.Fatalf("the reference host failed: %s", failed)
	}
	return tab
}
