package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// browserWait bounds one step in the browser: a page load, a click and
// what follows it.
const browserWait = 30 * time.Second

// chromeAs starts headless Chromium and signs u in from inside it, the way
// the Mattermost web app does (a same-origin login request marked as the
// web app's), so the browser holds the session and CSRF cookies Mattermost
// set. The harness builds Mattermost without its web app, so there is no
// login page to fill in.
func chromeAs(t *testing.T, u harness.User) context.Context {
	t.Helper()
	return chromeAt(t, mm.URL, u)
}

// chromeAt is chromeAs on one node of the cluster (site).
func chromeAt(t *testing.T, site string, u harness.User) context.Context {
	t.Helper()
	tab, closeBrowser, err := mm.Browser(context.Background())
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(closeBrowser)
	step(t, tab, chromedp.Navigate(site+"/api/v4/system/ping"))
	body, _ := json.Marshal(map[string]string{"login_id": u.Username, "password": u.Password})
	login := fmt.Sprintf(`fetch("/api/v4/users/login", {method: "POST", credentials: "same-origin",
		headers: {"Content-Type": "application/json", "X-Requested-With": "XMLHttpRequest"}, body: %q}).then(r => r.status)`, body)
	status, err := run(tab, chromedp.Evaluate[int](login, chromedp.EvalAwaitPromise))
	if err != nil || status != http.StatusOK {
		t.Fatalf("sign in as %s in the browser: %d %v", u.Username, status, err)
	}
	return tab
}

func run[T any](tab context.Context, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(tab, browserWait)
	defer cancel()
	return chromedp.Run(ctx, a)
}

func step(t *testing.T, tab context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if _, err := run(tab, chromedp.Steps(steps...)); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// pollJS waits until expression is truthy in the page and returns its value.
func pollJS[T any](t *testing.T, tab context.Context, what, expression string) T {
	t.Helper()
	v, err := run(tab, chromedp.Poll[T](expression, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(browserWait)))
	if err != nil {
		html, _ := run(tab, chromedp.OuterHTML("html"))
		t.Fatalf("%s: %v\npage: %s", what, err, html)
	}
	return v
}

// outcomeAfterClick clicks a button that submits the form and waits for the
// page it leads to, which shows the outcome. The evaluation is retried while
// the tab navigates (the form's POST, then its redirect to the page).
func outcomeAfterClick(t *testing.T, tab context.Context, button string) string {
	t.Helper()
	step(t, tab, chromedp.Click(chromedp.ID(button)))
	expr := `document.querySelector("#outcome") ? document.querySelector("#outcome").dataset.state : ""`
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(browserWait)
	var lastErr error
	for {
		state, err := run(tab, chromedp.Evaluate[string](expr))
		if err == nil && state != "" {
			return state
		}
		lastErr = err
		select {
		case <-tick.C:
		case <-deadline:
			html, _ := run(tab, chromedp.OuterHTML("html"))
			t.Fatalf("no outcome after clicking %s (%v): %s", button, lastErr, html)
		}
	}
}

func evalJS[T any](t *testing.T, tab context.Context, expression string) T {
	t.Helper()
	v, err := run(tab, chromedp.Evaluate[T](expression))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expression, err)
	}
	return v
}

func pageOf(id string) string { return confirmBase() + "/" + id }

func apiOf(site string) string { return site + "/plugins/mcp-server" + approval.APIPath }

// waitTool takes the answer of a posting call that waited for the person.
func waitTool(t *testing.T, done <-chan *mcp.CallToolResult) (*mcp.CallToolResult, tools.WriteResult) {
	t.Helper()
	select {
	case res := <-done:
		var out tools.WriteResult
		structuredAs(t, res, &out)
		return res, out
	case <-time.After(browserWait):
		t.Fatal("the tool call did not answer after the person answered")
	}
	return nil, tools.WriteResult{}
}

// uploadedUnder lists the files Mattermost stored for a channel.
func uploadedUnder(t *testing.T, channelID string) []string {
	t.Helper()
	var found []string
	root := filepath.Join(mm.TempDir(), "files")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(filepath.ToSlash(p), "/channels/"+channelID+"/") {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the file store: %v", err)
	}
	return found
}

func postsWith(t *testing.T, u harness.User, channelID, marker string) int {
	t.Helper()
	list, _, err := mm.Client(u).GetPostsForChannel(context.Background(), channelID, 0, 60, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range list.Posts {
		if strings.Contains(p.Message, marker) {
			n++
		}
	}
	return n
}

func TestAPostAcceptedInABrowserShowsTheRenderedMessageThumbnailAndPreviewAndIsPostedWithTheExactFiles(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	photo := sidewaysJPEG(t, 60, 40)
	_, infos := postFiles(t, alice, ch.Id, "source", map[string][]byte{"photo.jpg": photo})
	marker := uniq(t, "browseraccept")
	note := "first line of the notes\nsecond line\n"
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id,
		"message": marker + " **bold words** and <script>window.pwned = 1</script> [bad](javascript:window.pwned=2)",
		"files":   []map[string]any{{"name": "notes.txt", "content": note}, {"file_id": infos[0].Id}}})
	id := waitPending(t, alice, marker)

	tab := chromeAs(t, alice)
	step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("accept")))
	if got := evalJS[string](t, tab, `document.querySelector("#message strong").textContent`); got != "bold words" {
		t.Fatalf("the message is not rendered: <strong> holds %q", got)
	}
	if n := evalJS[int](t, tab, `document.querySelectorAll("#message script, #message a[href^='javascript']").length + (window.pwned ? 100 : 0)`); n != 0 {
		t.Fatalf("the model's markup reached the page as markup (%d)", n)
	}
	if !strings.Contains(evalJS[string](t, tab, `document.querySelector("#message").textContent`), "<script>") {
		t.Fatal("the model's <script> is not shown as text")
	}
	// The thumbnail is loaded through the owner-only route, as the image
	// turned upright: 40 wide and 60 high.
	size := pollJS[string](t, tab, "the thumbnail loads",
		`(() => { const i = document.querySelector("section[data-file-index='1'] img.thumbnail"); return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth + "x" + i.naturalHeight : ""; })()`)
	if size != "40x60" {
		t.Fatalf("thumbnail is %s, want the upright 40x60", size)
	}
	if got := evalJS[string](t, tab, `document.querySelector("section[data-file-index='0'] pre.preview").textContent`); !strings.Contains(got, "first line of the notes\nsecond line") {
		t.Fatalf("preview %q", got)
	}
	if got := evalJS[string](t, tab, `document.querySelector("section[data-file-index='1'] .file-sha256").textContent`); got != sum(photo)[:12]+"…" {
		t.Fatalf("sha256 shown %q, want %s", got, sum(photo)[:12])
	}

	if state := outcomeAfterClick(t, tab, "accept"); state != approval.StateDone {
		t.Fatalf("outcome %q", state)
	}
	res, out := waitTool(t, done)
	if res.IsError || out.State != approval.StateDone || out.PostID == "" {
		t.Fatalf("create_post answered %s", text(res))
	}
	p, files := postedFiles(t, out.PostID)
	if !strings.HasPrefix(p.Message, marker) || len(files) != 2 || sum(files["notes.txt"]) != sum([]byte(note)) || sum(files["photo.jpg"]) != sum(photo) {
		t.Fatalf("the post differs from what was shown: %q, %d files", p.Message, len(files))
	}
	if href := evalJS[string](t, tab, `document.querySelector("#permalink").getAttribute("href")`); !strings.HasSuffix(href, "/pl/"+out.PostID) {
		t.Fatalf("the page links to %q, not the post", href)
	}
}

func TestAPostDeclinedInABrowserIsNotSentAndUploadsNoFile(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "decline-"), "Declines", model.ChannelTypeOpen)
	marker := uniq(t, "browserdecline")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker,
		"files": []map[string]any{{"name": "kept-out.txt", "content": "never uploaded\n"}}})
	id := waitPending(t, alice, marker)

	tab := chromeAs(t, alice)
	step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("decline")))
	if got := evalJS[string](t, tab, `document.querySelector(".file-name").textContent`); got != "kept-out.txt" {
		t.Fatalf("the page names the file %q", got)
	}
	if state := outcomeAfterClick(t, tab, "decline"); state != approval.StateDeclined {
		t.Fatalf("outcome %q", state)
	}
	res, out := waitTool(t, done)
	if !res.IsError || out.State != approval.StateDeclined {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after a decline", n)
	}
	if files := uploadedUnder(t, ch.Id); len(files) != 0 {
		t.Fatalf("a declined post left files in the file store: %v", files)
	}
}

func TestAnotherUserOpeningTheConfirmationPageInABrowserGetsNotFound(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	marker := uniq(t, "notbobs")
	done := postAsync(t, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker + " for alice only"})
	id := waitPending(t, alice, marker)

	tab := chromeAs(t, bob)
	ctx, cancel := context.WithTimeout(tab, browserWait)
	resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(pageOf(id)))
	cancel()
	if err != nil {
		t.Fatalf("bob opens alice's page: %v", err)
	}
	body := evalJS[string](t, tab, `document.body.innerText`)
	if resp.Status != http.StatusNotFound || !strings.Contains(strings.ToLower(body), "not found") || strings.Contains(body, marker) {
		t.Fatalf("bob got %d %q", resp.Status, body)
	}
	// The page is still pending for alice; she declines to end the call.
	web := browser(t, alice)
	if code, page := get(t, web, pageOf(id), ""); code != http.StatusOK || !strings.Contains(page, marker) {
		t.Fatalf("alice's own page: %d", code)
	}
	m := csrfField.FindStringSubmatch(mustGet(t, web, pageOf(id)))
	if code, _ := answer(t, web, id, "decline", m[1]); code != http.StatusOK {
		t.Fatalf("alice declines: %d", code)
	}
	waitTool(t, done)
}

func mustGet(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	code, body := get(t, c, u, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, code, body)
	}
	return body
}

// cookieSession is a plain HTTP client signed in as u with Mattermost's
// cookies, and the CSRF token Mattermost expects back.
func cookieSession(t *testing.T, u harness.User) (*http.Client, string) {
	t.Helper()
	c := browser(t, u)
	site, _ := url.Parse(mm.URL)
	for _, ck := range c.Jar.Cookies(site) {
		if ck.Name == "MMCSRF" {
			return c, ck.Value
		}
	}
	t.Fatal("no MMCSRF cookie after signing in")
	return nil, ""
}

// sessionToken is the Mattermost session token of a signed-in browser,
// which the web app sends as its cookie.
func sessionToken(t *testing.T, web *http.Client) string {
	t.Helper()
	site, _ := url.Parse(mm.URL)
	for _, ck := range web.Jar.Cookies(site) {
		if ck.Name == model.SessionCookieToken {
			return ck.Value
		}
	}
	t.Fatal("no session cookie after signing in")
	return ""
}

func send(t *testing.T, c *http.Client, method, u string, header map[string]string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

func detailOf(t *testing.T, body []byte) approval.Detail {
	t.Helper()
	var d approval.Detail
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("detail %s: %v", body, err)
	}
	return d
}

func TestAnAnswerWithoutTheCSRFTokenIsRefusedAndThePostStaysPending(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "nocsrf")
	done := postAsync(t, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker})
	id := waitPending(t, alice, marker)
	web, csrf := cookieSession(t, alice)

	// The page's form without its csrf field, and the API without the
	// X-CSRF-Token header: Mattermost passes neither on as alice.
	resp, err := web.PostForm(pageOf(id)+"/accept", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("form accept without the token: %d", resp.StatusCode)
	}
	if code, body, _ := send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+id+"/accept", nil); code != http.StatusNotFound && code != http.StatusUnauthorized {
		t.Fatalf("API accept without the token: %d %s", code, body)
	}
	if code, body, _ := send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+id+"/accept", map[string]string{"X-CSRF-Token": "not-" + csrf}); code != http.StatusNotFound && code != http.StatusUnauthorized {
		t.Fatalf("API accept with a wrong token: %d %s", code, body)
	}
	code, body, _ := send(t, web, http.MethodGet, apiOf(mm.URL)+"/"+id, nil)
	if d := detailOf(t, body); code != http.StatusOK || d.State != approval.StatePending {
		t.Fatalf("after refused answers: %d %s", code, body)
	}
	if n := postsWith(t, alice, townSquare(t).Id, marker); n != 0 {
		t.Fatalf("%d posts after answers without the token", n)
	}
	if code, _, _ := send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+id+"/decline", map[string]string{"X-CSRF-Token": csrf}); code != http.StatusOK {
		t.Fatalf("decline with the token: %d", code)
	}
	waitTool(t, done)
}

func TestTheConfirmationAPIListsShowsAndAcceptsTheCallersOwnPostsAndTellsTheirOtherTabs(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	ch := townSquare(t)
	photo := sidewaysJPEG(t, 30, 20)
	_, infos := postFiles(t, alice, ch.Id, "api source", map[string][]byte{"api.jpg": photo})
	marker := uniq(t, "apiaccept")
	note := "api notes\n"
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker + " _api_",
		"files": []map[string]any{{"name": "n.txt", "content": note}, {"file_id": infos[0].Id}}})
	id := waitPending(t, alice, marker)
	web, csrf := cookieSession(t, alice)
	bobWeb, bobCSRF := cookieSession(t, bob)

	code, body, _ := send(t, web, http.MethodGet, apiOf(mm.URL), nil)
	var list struct {
		Confirmations []approval.Detail `json:"confirmations"`
	}
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var d approval.Detail
	for i, c := range list.Confirmations {
		if c.ID == id {
			d = c
		}
		if i > 0 && c.State == approval.StatePending && list.Confirmations[i-1].State != approval.StatePending {
			t.Fatal("a pending post is listed after an answered one")
		}
	}
	if d.ID != id || d.State != approval.StatePending || d.PageURL != "/plugins/mcp-server/confirm/"+id || len(d.Files) != 2 ||
		!strings.Contains(string(d.MessageHTML), "<em>api</em>") || d.Files[0].Preview != "api notes" || d.Files[1].SHA256 != sum(photo)[:12] ||
		d.Files[1].ThumbnailURL == "" || d.Destination == "" || !d.ExpiresAt.After(d.CreatedAt) {
		t.Fatalf("listed detail: %+v", d)
	}
	if _, bobList, _ := send(t, bobWeb, http.MethodGet, apiOf(mm.URL), nil); strings.Contains(string(bobList), id) {
		t.Fatal("bob lists alice's confirmation")
	}
	code, body, _ = send(t, bobWeb, http.MethodGet, apiOf(mm.URL)+"/"+id, nil)
	var e struct{ Error string }
	if json.Unmarshal(body, &e); code != http.StatusNotFound || e.Error == "" || strings.Contains(string(body), marker) {
		t.Fatalf("bob reads alice's detail: %d %s", code, body)
	}
	thumb := mm.URL + d.Files[1].ThumbnailURL
	code, img, h := send(t, web, http.MethodGet, thumb, nil)
	if code != http.StatusOK || h.Get("Content-Type") != "image/jpeg" || h.Get("Cache-Control") != "no-store" || len(img) == 0 {
		t.Fatalf("thumbnail for alice: %d %v", code, h)
	}
	if code, _, _ := send(t, bobWeb, http.MethodGet, thumb, nil); code != http.StatusNotFound {
		t.Fatalf("thumbnail for bob: %d", code)
	}
	if code, _, _ := send(t, bobWeb, http.MethodPost, apiOf(mm.URL)+"/"+id+"/accept", map[string]string{"X-CSRF-Token": bobCSRF}); code != http.StatusNotFound {
		t.Fatalf("bob accepts alice's post: %d", code)
	}

	// Alice's other tab listens on Mattermost's websocket.
	ws, err := model.NewWebSocketClient4(strings.Replace(mm.URL, "http", "ws", 1), alice.Token)
	if err != nil {
		t.Fatalf("websocket: %v", err)
	}
	ws.Listen()
	t.Cleanup(ws.Close)

	code, body, _ = send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+id+"/accept", map[string]string{"X-CSRF-Token": csrf})
	if d = detailOf(t, body); code != http.StatusOK || d.State != approval.StateDone || d.Permalink == "" {
		t.Fatalf("accept: %d %s", code, body)
	}
	code, body, _ = send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+id+"/decline", map[string]string{"X-CSRF-Token": csrf})
	if d = detailOf(t, body); code != http.StatusOK || d.State != approval.StateDone {
		t.Fatalf("a second answer: %d %s", code, body)
	}
	res, out := waitTool(t, done)
	if res.IsError || out.State != approval.StateDone {
		t.Fatalf("create_post answered %s", text(res))
	}
	_, files := postedFiles(t, out.PostID)
	if sum(files["n.txt"]) != sum([]byte(note)) || sum(files["api.jpg"]) != sum(photo) {
		t.Fatalf("posted files differ: %d files", len(files))
	}
	deadline := time.After(browserWait)
	for {
		select {
		case ev := <-ws.EventChannel:
			if ev.EventType() == "custom_mcp-server_confirmation_answered" && ev.GetData()["id"] == id {
				if ev.GetData()["state"] != approval.StateDone {
					t.Fatalf("the event says %v", ev.GetData())
				}
				return
			}
		case <-deadline:
			t.Fatal("alice's other tabs were not told of the answer")
		}
	}
}
