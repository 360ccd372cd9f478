package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func confirmBase() string { return confirmAt(mm.URL) }

func confirmAt(site string) string { return site + "/plugins/mcp-server/confirm" }

// browser signs u in the way the web app does, so requests carry the
// session cookie and the CSRF cookie.
func browser(t *testing.T, u harness.User) *http.Client {
	t.Helper()
	return browserAt(t, mm.URL, u)
}

func browserAt(t *testing.T, site string, u harness.User) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	body, _ := json.Marshal(map[string]string{"login_id": u.Username, "password": u.Password})
	req, err := http.NewRequest(http.MethodPost, site+"/api/v4/users/login", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	// Mattermost sets its session and CSRF cookies only for the web app's
	// requests.
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign in as %s: %s", u.Username, resp.Status)
	}
	return c
}

func get(t *testing.T, c *http.Client, target, bearer string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitPending polls alice's pending list until one titled with marker shows.
func waitPending(t *testing.T, u harness.User, marker string) string {
	t.Helper()
	return waitPendingAt(t, mm.URL, u, marker)
}

func waitPendingAt(t *testing.T, site string, u harness.User, marker string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_, body := get(t, http.DefaultClient, apiOf(site), u.Token)
		var list struct {
			Confirmations []struct{ ID, Title, State string }
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatalf("pending list %q: %v", body, err)
		}
		for _, c := range list.Confirmations {
			if strings.Contains(c.Title, marker) && c.State == "pending" {
				return c.ID
			}
		}
	}
	t.Fatalf("no pending post titled %s appeared", marker)
	return ""
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

func answer(t *testing.T, c *http.Client, id, verb, csrf string) (int, string) {
	t.Helper()
	return answerAt(t, mm.URL, c, id, verb, csrf)
}

func answerAt(t *testing.T, site string, c *http.Client, id, verb, csrf string) (int, string) {
	t.Helper()
	resp, err := c.PostForm(confirmAt(site)+"/"+id+"/"+verb, url.Values{"csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// answerOnPage opens the confirmation page as u (checking it shows want),
// answers it with the page's own CSRF token (or, for a page already
// answered, which has no form, the session's) and returns the answer's page.
func answerOnPage(t *testing.T, u harness.User, id, verb, want string) string {
	t.Helper()
	body, err := tryAnswerOnPage(t, u, id, verb, want)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// tryAnswerOnPage is answerOnPage for goroutines other than the test's
// (an MCP client's question handler), which must not stop the test.
func tryAnswerOnPage(t *testing.T, u harness.User, id, verb, want string) (string, error) {
	web := browser(t, u)
	_, page := get(t, web, confirmBase()+"/"+id, "")
	if !strings.Contains(page, want) {
		return "", fmt.Errorf("the page does not show %q: %s", want, page)
	}
	token := ""
	if m := csrfField.FindStringSubmatch(page); m != nil {
		token = m[1]
	} else if !strings.Contains(page, `id="outcome"`) {
		return "", fmt.Errorf("a pending page without a csrf token: %s", page)
	} else {
		site, _ := url.Parse(mm.URL)
		for _, c := range web.Jar.Cookies(site) {
			if c.Name == "MMCSRF" {
				token = c.Value
			}
		}
	}
	code, body := answer(t, web, id, verb, token)
	if code != http.StatusOK {
		return "", fmt.Errorf("%s on the page: %d %s", verb, code, body)
	}
	return body, nil
}

// postAsync calls a posting tool in the background: it waits for the answer.
func postAsync(t *testing.T, tool string, args map[string]any) <-chan *mcp.CallToolResult {
	return postAsyncWith(aliceClient(t), tool, args)
}

func postAsyncWith(a *client.Client, tool string, args map[string]any) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callErr(a, tool, args)
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		done <- res
	}()
	return done
}

func TestAPostAcceptedOnTheConfirmationPageIsPostedWithTheExactFiles(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	ch := townSquare(t)
	photo := sidewaysJPEG(t, 30, 20)
	_, infos := postFiles(t, alice, ch.Id, "source", map[string][]byte{"photo.jpg": photo})
	marker := uniq(t, "confirmed")
	note := "<script>alert(1)</script>\\nline two\\n"
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker + " <b>hi</b>",
		"files": []map[string]any{{"name": "notes.txt", "content": note}, {"file_id": infos[0].Id}}})
	id := waitPending(t, alice, marker)

	if code, body := get(t, http.DefaultClient, confirmBase()+"/"+id, bob.Token); code != http.StatusNotFound || strings.Contains(body, marker) {
		t.Fatalf("bob GET alice's confirmation: %d %s", code, body)
	}
	web := browser(t, alice)
	code, page := get(t, web, confirmBase()+"/"+id, "")
	if code != http.StatusOK || !strings.Contains(page, "notes.txt") || !strings.Contains(page, "photo.jpg") || !strings.Contains(page, "Town Square") {
		t.Fatalf("alice's confirmation page: %d %s", code, page)
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>hi</b>") {
		t.Fatal("the page shows the model's text unescaped")
	}
	m := csrfField.FindStringSubmatch(page)
	if m == nil || m[1] == "" {
		t.Fatalf("no csrf token on the page: %s", page)
	}
	// Without Mattermost's CSRF token the cookie session does not count.
	if code, _ := answer(t, web, id, "accept", ""); code != http.StatusNotFound {
		t.Fatalf("accept without the CSRF token: %d", code)
	}
	if code, body := answer(t, web, id, "accept", m[1]); code != http.StatusOK || !strings.Contains(body, "posted") {
		t.Fatalf("accept: %d %s", code, body)
	}
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool call did not answer after the person accepted")
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	if res.IsError || out.State != "posted" || out.PostID == "" {
		t.Fatalf("create_post answered %s", text(res))
	}
	p, files := postedFiles(t, out.PostID)
	if !strings.HasPrefix(p.Message, marker) || sum(files["notes.txt"]) != sum([]byte(note)) || sum(files["photo.jpg"]) != sum(photo) {
		t.Fatalf("the post differs from what was shown: %q, %d files", p.Message, len(files))
	}
	if code, _ := answer(t, web, id, "decline", m[1]); code != http.StatusOK {
		t.Fatalf("a second answer: %d", code)
	}
	if p2, _, err := mm.Client(alice).GetPost(context.Background(), out.PostID, ""); err != nil || p2.DeleteAt != 0 {
		t.Fatal("a second answer changed the post")
	}
	again := onePending(t, call(t, aliceClient(t), "get_pending", map[string]any{"id": id}))
	if again.State != "posted" || again.PostID != out.PostID {
		t.Fatalf("get_pending after accept: %+v", again)
	}
}

func TestADeclinedPostIsNotSent(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "declined")
	done := postAsync(t, "dm", map[string]any{"user": mm.Users[1].Username, "message": marker,
		"files": []map[string]any{{"name": "x.txt", "content": "x"}}})
	id := waitPending(t, alice, marker)
	if body := answerOnPage(t, alice, id, "decline", ""); !strings.Contains(body, "declined") {
		t.Fatalf("decline: %s", body)
	}
	res := <-done
	if !res.IsError || !strings.Contains(text(res), "declined") {
		t.Fatalf("dm answered %s", text(res))
	}
	if body := answerOnPage(t, alice, id, "accept", ""); strings.Contains(body, `data-state="posted"`) {
		t.Fatalf("accept after decline: %s", body)
	}
	for _, chID := range []string{ch.Id} {
		list, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), chID, 0, 30, "", false, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list.Posts {
			if p.Message == marker {
				t.Fatal("a declined post was created")
			}
		}
	}
	dm, _, err := mm.Client(alice).CreateDirectChannel(context.Background(), alice.ID, mm.Users[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), dm.Id, 0, 50, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Posts {
		if p.Message == marker {
			t.Fatal(fmt.Sprintf("the declined dm %s was sent", marker))
		}
	}
}

func TestAWorkspaceFileChangedBeforeTheAnswerIsRefusedAndNothingIsPosted(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	a := aliceClient(t)
	name := uniq(t, "report") + ".txt"
	if res := call(t, a, "files_write", map[string]any{"name": name, "text": "as shown\n"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	marker := uniq(t, "changed")
	done := postAsync(t, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
		"files": []map[string]any{{"workspace_file": name}}})
	id := waitPending(t, alice, marker)
	if res := call(t, a, "files_write", map[string]any{"name": name, "text": "swapped after the question\n"}); res.IsError {
		t.Fatalf("files_write again: %s", text(res))
	}
	if body := answerOnPage(t, alice, id, "accept", "your workspace file"); !strings.Contains(body, "changed") {
		t.Fatalf("accept: %s", body)
	}
	res := <-done
	if !res.IsError || !strings.Contains(text(res), "changed") {
		t.Fatalf("create_post answered %s", text(res))
	}
	list, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), townSquare(t).Id, 0, 30, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Posts {
		if p.Message == marker {
			t.Fatal("a post with a changed file was created")
		}
	}
}

func TestAPostAskedOnOneServerIsAcceptedThroughTheOtherAndPostedOnce(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	marker := uniq(t, "cluster")
	done := postAsyncWith(connect(t, proxyURL, alice.Token), "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
		"files": []map[string]any{{"name": "c.txt", "content": "clustered\n"}}})
	id := waitPendingAt(t, proxyURL, alice, marker)
	web := browserAt(t, proxyURL, alice)
	_, page := get(t, web, confirmAt(proxyURL)+"/"+id, "")
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page through the proxy: %s", page)
	}
	for range 2 { // two answers reach both servers; one post
		if code, _ := answerAt(t, proxyURL, web, id, "accept", m[1]); code != http.StatusOK {
			t.Fatalf("accept through the proxy: %d", code)
		}
	}
	var out tools.WriteResult
	res := <-done
	structuredAs(t, res, &out)
	if res.IsError || out.State != "posted" {
		t.Fatalf("create_post answered %s", text(res))
	}
	list, _, err := mm.Client(alice).GetPostsForChannel(context.Background(), townSquare(t).Id, 0, 30, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range list.Posts {
		if p.Message == marker {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d posts for one accepted question", n)
	}
}

func TestAWaitingPostSendsProgressNamingTheConfirmationPage(t *testing.T) {
	if !streams(t) {
		return
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	a := aliceClient(t)
	notes := make(chan mcp.JSONRPCNotification, 16)
	a.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			select {
			case notes <- n:
			default:
			}
		}
	})
	marker := uniq(t, "progress")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "create_post"
		req.Params.Arguments = map[string]any{"channel": townSquare(t).Id, "message": marker}
		req.Params.Meta = &mcp.Meta{ProgressToken: "wait-1"}
		res, err := a.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError(err.Error())
		}
		done <- res
	}()
	id := waitPending(t, alice, marker)
	select {
	case n := <-notes:
		if msg, _ := n.Params.AdditionalFields["message"].(string); !strings.Contains(msg, "/confirm/"+id) {
			t.Fatalf("progress %+v does not name the page", n.Params.AdditionalFields)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification while the post waits")
	}
	answerOnPage(t, alice, id, "decline", "")
	if res := <-done; !strings.Contains(text(res), "declined") {
		t.Fatalf("create_post answered %s", text(res))
	}
}
