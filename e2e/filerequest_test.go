package e2e

// Issue 44: the model asks the person for one of their own files; the
// person gives it on a page in Mattermost, signed in in their own browser;
// the model gets a handle and posts the file once the person says yes.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filerequest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// askForFile calls request_file in the background; its answer comes on the
// channel.
func askForFile(c *client.Client, args map[string]any) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "request_file"
		req.Params.Arguments = args
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		done <- res
	}()
	return done
}

// waitFileRequest polls the person's file requests in the KV store until
// one waits, as their page would be opened from the link the call gives.
func waitFileRequest(t *testing.T, u harness.User) string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		raw, err := mm.KVValue(context.Background(), "fr_"+u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct{ Requests []filerequest.Request }
		if raw != nil && json.Unmarshal(raw, &rec) == nil {
			for _, r := range rec.Requests {
				if r.State == filerequest.StateWaiting {
					return r.ID
				}
			}
		}
	}
	t.Fatalf("no file request of %s waits", u.Username)
	return ""
}

// colorScheme has the tab's pages see the person's system theme as scheme.
func colorScheme(t *testing.T, tab context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatalf("emulate a %s theme: %v", scheme, err)
	}
}

func fileRequestPage(id string) string {
	return mm.URL + "/plugins/mcp-server" + filerequest.Path + "/" + id
}

func TestAFileThePersonGivesOnThePageReachesTheModelAsAHandleAndPostsByteIdenticalOnceAccepted(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	c := connect(t, mm.URL, alice.Token)
	deck := append([]byte("%PDF-1.4\n% the person's own slides\n"), randomBytes(t, 3<<20)...)
	path := filepath.Join(t.TempDir(), "deck.pdf")
	if err := os.WriteFile(path, deck, 0o600); err != nil {
		t.Fatal(err)
	}
	done := askForFile(c, map[string]any{"purpose": "The slides to attach to the summary of #design", "types": []string{".pdf"}, "max_size_mib": 8})
	id := waitFileRequest(t, alice)

	// The person opens the page in their own browser and picks the file.
	tab := chromeAs(t, alice)
	for _, width := range []int64{phoneWidth, laptopWidth} {
		atWidth(t, tab, width, 900)
		step(t, tab, chromedp.Navigate(fileRequestPage(id)))
		pollJS[bool](t, tab, "the page shows what the model asked for", `document.querySelector("#purpose") && document.querySelector("#purpose").textContent.includes("summary of #design")`)
		fitsWidth(t, tab, width, "the file request page")
		shoot(t, tab, width, "file-request")
		// The person's system theme: the page follows a dark one.
		colorScheme(t, tab, "dark")
		if bg := evalJS[string](t, tab, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(27, 29, 34)" {
			t.Errorf("the page in a dark theme has the background %s", bg)
		}
		shoot(t, tab, width, "file-request-dark")
		colorScheme(t, tab, "light")
	}
	step(t, tab, chromedp.SetUploadFiles(chromedp.ID("file"), []string{path}))
	shown := pollJS[string](t, tab, "the page says the file arrived", `document.querySelector("#result[data-state=received]") ? document.querySelector("#result").textContent : ""`)
	if !strings.Contains(shown, sum(deck)) {
		t.Fatalf("the page shows %q, not the sha256 %s", shown, sum(deck))
	}
	shoot(t, tab, laptopWidth, "file-request-done")

	res := <-done
	var got tools.FileRequestResult
	if structuredAs(t, res, &got); got.State == filerequest.StateWaiting {
		// The browser took longer than the call's 20 seconds: the call
		// answered where to go, and the next call takes the file.
		res = call(t, c, "request_file", map[string]any{"id": id})
		structuredAs(t, res, &got)
	}
	if res.IsError || got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(deck) || got.File.Size != int64(len(deck)) ||
		got.File.Type != "application/pdf" || got.File.Name != "deck.pdf" || !strings.Contains(text(res), got.File.Handle) {
		t.Fatalf("request_file answered %s", text(res))
	}

	// The handle posts the file once the person accepts; the question names it.
	marker := uniq(t, "deck-post")
	posted := postAsyncWith(c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
		"files": []map[string]any{{"handle": got.File.Handle}}})
	pending := waitPending(t, alice, marker)
	if page := answerOnPage(t, alice, pending, "accept", marker); !strings.Contains(page, "Posted") && !strings.Contains(page, "posted") {
		t.Logf("the page after accepting: %.200s", page)
	}
	_, out := waitTool(t, posted)
	files, _ := postedFilesAs(t, alice, out.PostID)
	if len(files) != 1 || sum(files["deck.pdf"]) != sum(deck) {
		t.Fatalf("the post's files: %d, deck.pdf %d bytes", len(files), len(files["deck.pdf"]))
	}

	// The trail tells the request and its outcome, never the file's name.
	entries, body := waitAuditOf(t, mm.Admin.Token, url.Values{"user": {alice.ID}, "kind": {string(audit.KindFileRequest)}}, 2)
	outcomes := map[string]bool{}
	for _, e := range entries {
		if e.Targets["file_request_id"] == id {
			outcomes[e.Outcome] = true
		}
	}
	if !outcomes[audit.OutcomeAsked] || !outcomes[audit.OutcomeDone] || strings.Contains(body, "deck.pdf") || strings.Contains(body, "#design") {
		t.Fatalf("the audit trail of the request: %s", body)
	}
}

func TestTheFilePageRefusesATokenTheMCPClientsSessionAndAnotherPersonAndAWaitingCallSaysWhereToGo(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	c := connect(t, mm.URL, alice.Token)
	done := askForFile(c, map[string]any{"purpose": "anything"})
	id := waitFileRequest(t, alice)
	page := fileRequestPage(id)
	pat, err := mm.PersonalAccessToken(alice)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who, token string
		want       int
	}{
		{"alice's personal access token", pat, http.StatusForbidden},
		{"the session alice's MCP client signed in with", alice.Token, http.StatusForbidden},
		{"bob", bob.Token, http.StatusNotFound},
		{"nobody", "", http.StatusNotFound},
	} {
		if code, body := get(t, http.DefaultClient, page, tc.token); code != tc.want {
			t.Errorf("the page for %s: %d %.200s", tc.who, code, body)
		}
		req, _ := http.NewRequest(http.MethodPost, page, strings.NewReader("bytes"))
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		req.Header.Set("X-File-Name", "x.txt")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("an upload by %s: %d", tc.who, resp.StatusCode)
		}
	}
	// The person's own browser session is served.
	web := browserAt(t, mm.URL, alice)
	if code, body := get(t, web, page, ""); code != http.StatusOK || !strings.Contains(body, "anything") {
		t.Fatalf("alice's browser: %d %.300s", code, body)
	}
	res := <-done
	var got tools.FileRequestResult
	structuredAs(t, res, &got)
	if got.State != filerequest.StateWaiting || got.PageURL != page || !strings.Contains(text(res), page) || !strings.Contains(text(res), `{"id": "`+id+`"}`) {
		t.Fatalf("request_file unanswered answered %s", text(res))
	}
	if files := call(t, c, "files_list", nil); strings.Contains(text(files), "x.txt") {
		t.Fatalf("a refused upload left a file: %s", text(files))
	}
}
