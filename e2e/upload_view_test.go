package e2e

// Issue 44: the person gives their own file in the chat, in the upload
// view (ui://mattermost/upload) a client that shows MCP Apps renders for
// request_file: the view sends it from the host's frame, of another
// origin, to the request's drop URL; the model gets the handle.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// showsViews are the capabilities of a client that shows MCP Apps.
var showsViews = mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{resources.ViewMIMEType}}}}

// connectShowingViews is a client that declares it shows MCP Apps views.
func connectShowingViews(t *testing.T, token string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(mcpURL(mm.URL), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithClientCapabilities(showsViews))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-apps", Version: "1"}
	req.Params.Capabilities = showsViews
	if _, err := c.Initialize(context.Background(), req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// pickInView sets path into the file input of the view's frame, as the
// person choosing it would (CDP DOM.setFileInputFiles).
func pickInView(t *testing.T, tab context.Context, path string) {
	t.Helper()
	frames, err := run(tab, chromedp.Nodes(chromedp.CSS("#view")))
	if err != nil || len(frames) != 1 {
		t.Fatalf("the view's frame: %v", err)
	}
	step(t, tab, chromedp.SetUploadFiles(chromedp.CSS("input[type=file]"), []string{path}, chromedp.FromNode(frames[0])))
}

// givenInView waits for the view to say the file arrived, and answers what
// it shows of it.
func givenInView(t *testing.T, tab context.Context) map[string]any {
	t.Helper()
	pollJS[bool](t, tab, "the view says the file arrived", inView(`!!d.querySelector(".given .sha256")`))
	return evalJS[map[string]any](t, tab, inView(`({
		name: d.querySelector(".given .name").textContent,
		sha: d.querySelector(".given .sha256 code").textContent,
		drop: !!d.querySelector(".drop"),
	})`))
}

// fileRequestViewOf is the upload view's data in a request_file answer.
func fileRequestViewOf(t *testing.T, res *mcp.CallToolResult) tools.FileRequestView {
	t.Helper()
	var v tools.FileRequestView
	if res.Meta == nil || res.Meta.AdditionalFields[tools.FileRequestMetaKey] == nil {
		t.Fatalf("request_file answered no view data: %s", text(res))
	}
	raw, err := json.Marshal(res.Meta.AdditionalFields[tools.FileRequestMetaKey])
	if err != nil || json.Unmarshal(raw, &v) != nil {
		t.Fatalf("request_file's view data %s: %v", raw, err)
	}
	return v
}

func TestAFileGivenInTheUploadViewOfTheReferenceHostReachesThePostByteIdenticalOnceAccepted(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	purpose := uniq(t, "the chart for the weekly summary")
	chart := noisePNG(t, 400, 300)
	path := filepath.Join(t.TempDir(), "chart.png")
	if err := os.WriteFile(path, chart, 0o600); err != nil {
		t.Fatal(err)
	}
	// The host declares MCP Apps: request_file answers at once, and its
	// view is where the person gives the file.
	tab := refHostView(t, alice.Token, "request_file", map[string]any{"purpose": purpose, "types": []string{"image/*"}}, resources.UploadView, "dark", phoneWidth)
	pollJS[bool](t, tab, "the view shows what the assistant asked for", inView(`!!d.querySelector(".purpose") && d.querySelector(".purpose").textContent.includes("weekly summary") && !!d.querySelector("input[type=file]")`))
	if accept := evalJS[string](t, tab, inView(`d.querySelector("input[type=file]").accept`)); accept != "image/*" {
		t.Errorf("the picker accepts %q, want image/*", accept)
	}
	fitsWidth(t, tab, phoneWidth, "the upload view")
	shoot(t, tab, phoneWidth, "upload-view-refhost-dark")
	pickInView(t, tab, path)
	shown := givenInView(t, tab)
	if shown["sha"] != sum(chart) || shown["name"] != "chart.png" || shown["drop"] == true {
		t.Fatalf("the view shows %v, want chart.png with sha256 %s and no drop zone", shown, sum(chart))
	}
	shoot(t, tab, phoneWidth, "upload-view-refhost-done")

	// The model waits for the file with the request's id, from its own
	// connection, and posts it with the handle once the person accepts.
	id := requestOfPurpose(t, alice.ID, purpose)
	c := connect(t, mm.URL, alice.Token)
	res := call(t, c, "request_file", map[string]any{"id": id})
	var got tools.FileRequestResult
	structuredAs(t, res, &got)
	if got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(chart) || got.File.Type != "image/png" {
		t.Fatalf("request_file answered %s", text(res))
	}
	if v := fileRequestViewOf(t, res); v.DropURL != "" {
		t.Errorf("an answered request still offers its drop URL: %s", v.DropURL)
	}
	if files := postHandle(t, c, alice, got.File.Handle); len(files) != 1 || sum(files["chart.png"]) != sum(chart) {
		t.Fatalf("the post's files: %d, chart.png %d bytes", len(files), len(files["chart.png"]))
	}
}

// requestOfPurpose is the id of userID's request for purpose, waiting or
// answered.
func requestOfPurpose(t *testing.T, userID, purpose string) string {
	t.Helper()
	raw, err := mm.KVValue(context.Background(), "fr_"+userID)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Requests []filerequest.Request }
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("file requests of %s: %v", userID, err)
	}
	for _, r := range rec.Requests {
		if r.Purpose == purpose {
			return r.ID
		}
	}
	t.Fatalf("no file request of %s for %q", userID, purpose)
	return ""
}

func TestTheUploadViewInOurHostShowsTheRequestInBothThemesAndWidthsAndTakesTheFileFromAnotherOrigin(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	c := connectShowingViews(t, alice.Token)
	page := viewPage(t, c, resources.UploadView, "request_file")
	csp, _, _ := strings.Cut(page[strings.Index(page, "Content-Security-Policy"):], ">")
	if !strings.HasSuffix(csp, "; connect-src "+siteOrigin()+`"`) || strings.Count(csp, "connect-src") != 1 {
		t.Fatalf("the upload view's CSP does not allow exactly this Mattermost's origin (%s): %s", siteOrigin(), csp)
	}
	purpose := uniq(t, "notes") + " " + viewXSS
	args := map[string]any{"purpose": purpose, "types": []string{".txt", "text/plain"}, "max_size_mib": 1}
	res := call(t, c, "request_file", args)
	var asked tools.FileRequestResult
	structuredAs(t, res, &asked)
	view := fileRequestViewOf(t, res)
	if asked.State != filerequest.StateWaiting || !strings.HasPrefix(view.DropURL, mm.URL+"/plugins/mcp-server"+filerequest.DropPath+"/") || view.MaxSize != 1<<20 {
		t.Fatalf("a client that shows views was answered %s with %+v", text(res), view)
	}
	notes := []byte("the person's own notes\n")
	path := filepath.Join(t.TempDir(), "minutes.txt")
	if err := os.WriteFile(path, notes, 0o600); err != nil {
		t.Fatal(err)
	}
	looks := []struct {
		theme string
		width int64
	}{{"dark", phoneWidth}, {"dark", laptopWidth}, {"light", phoneWidth}, {"light", laptopWidth}}
	for i, look := range looks {
		tab := hostView(t, page, res, args, look.theme, look.width)
		pollJS[bool](t, tab, "the view shows the drop zone", inView(`!!d.querySelector(".drop input[type=file]")`))
		got := evalJS[map[string]any](t, tab, inView(`({
			purpose: d.querySelector(".ai .purpose").textContent,
			types: d.querySelector(".types").textContent,
			max: d.querySelector(".max-size").textContent,
			onAttrs: [...d.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
			imgs: d.querySelectorAll("img").length,
			pwned: !!(window.pwned || f.contentWindow.pwned),
		})`))
		if got["purpose"] != purpose || !strings.Contains(fmt.Sprint(got["types"]), ".txt") || got["max"] != "1.0 MB" {
			t.Errorf("%s %dpx: the view shows %v", look.theme, look.width, got)
		}
		if got["onAttrs"].(float64) != 0 || got["imgs"].(float64) != 0 || got["pwned"] == true {
			t.Errorf("%s %dpx: what the model wrote became live: %v", look.theme, look.width, got)
		}
		fitsWidth(t, tab, look.width, "the upload view")
		shoot(t, tab, look.width, "upload-view-"+look.theme)
		if i < len(looks)-1 {
			continue
		}
		// The last look gives the file: from this host's origin, which no
		// admin listed, with no Mattermost session in the frame.
		pickInView(t, tab, path)
		shown := givenInView(t, tab)
		if shown["sha"] != sum(notes) || shown["name"] != "minutes.txt" {
			t.Fatalf("the view shows %v, want minutes.txt with sha256 %s", shown, sum(notes))
		}
		shoot(t, tab, look.width, "upload-view-done")
	}
	res = call(t, c, "request_file", map[string]any{"id": asked.ID})
	var got tools.FileRequestResult
	structuredAs(t, res, &got)
	if got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(notes) {
		t.Fatalf("after the view took the file, request_file answered %s", text(res))
	}
	// The drop URL took one file: another PUT to it is refused; one that
	// carries the person's own token is refused before anything is read.
	if status, body := putTo(t, view.DropURL, "", "again.txt", []byte("again")); status != http.StatusConflict || !strings.Contains(body, "already") {
		t.Errorf("a second PUT to the drop URL: %d %s", status, body)
	}
	if status, body := putTo(t, view.DropURL, alice.Token, "again.txt", []byte("again")); status != http.StatusBadRequest || !strings.Contains(body, "without cookies") {
		t.Errorf("a PUT with the person's token: %d %s", status, body)
	}
}

// siteOrigin is the test Mattermost's origin.
func siteOrigin() string {
	u, err := url.Parse(mm.URL)
	if err != nil {
		return mm.URL
	}
	return u.Scheme + "://" + u.Host
}

// putTo sends data to a drop URL as the view does (its name in
// X-File-Name), from another origin, with token when not empty.
func putTo(t *testing.T, u, token, name string, data []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://sandbox.example")
	req.Header.Set("X-File-Name", url.PathEscape(name))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("the drop URL answered Access-Control-Allow-Origin %q, want *", got)
	}
	return resp.StatusCode, string(body)
}

// noisePNG is a real PNG of random pixels, w by h: Mattermost reads an
// image's header when it stores it.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	copy(img.Pix, randomBytes(t, len(img.Pix)))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
