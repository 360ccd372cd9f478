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
	"sync"
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

// postHandle posts a handle's file in Town Square as u through c, has u
// accept on the confirmation page, and answers the post's files as read
// back through REST, by name.
func postHandle(t *testing.T, c *client.Client, u harness.User, handle string) map[string][]byte {
	t.Helper()
	marker := uniq(t, "handle-post")
	posted := postAsyncWith(c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker, "files": []map[string]any{{"handle": handle}}})
	answerOnPage(t, u, waitPending(t, u, marker), "accept", marker)
	res, out := waitTool(t, posted)
	if out.PostID == "" {
		t.Fatalf("create_post answered %s", text(res))
	}
	files, _ := postedFilesAs(t, u, out.PostID)
	return files
}

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

// waitFileRequest is the id of the person's waiting request for purpose.
func waitFileRequest(t *testing.T, u harness.User, purpose string) string {
	t.Helper()
	id, err := mm.WaitingFileRequest(context.Background(), u.ID, purpose, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return id
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
	id := waitFileRequest(t, alice, "The slides to attach to the summary of #design")

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

	// The handle posts the file once the person accepts.
	if files := postHandle(t, c, alice, got.File.Handle); len(files) != 1 || sum(files["deck.pdf"]) != sum(deck) {
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
	id := waitFileRequest(t, alice, "anything")
	page := fileRequestPage(id)
	// A name no other test's file contains.
	refused := uniq(t, "refused-upload") + ".txt"
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
		req.Header.Set("X-File-Name", refused)
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
	if files := call(t, c, "files_list", nil); strings.Contains(text(files), refused) {
		t.Fatalf("a refused upload left a file: %s", text(files))
	}
}

// giveFile uploads data as the page's script does, from the person's own
// browser session web.
func giveFile(t *testing.T, web *http.Client, page, name string, data []byte) (int, filerequest.Outcome) {
	t.Helper()
	code, o, err := harness.GiveFile(web, page, name, data)
	if err != nil {
		t.Fatal(err)
	}
	return code, o
}

func TestAClientThatShowsPagesIsShownTheFilePageAndToldWhenTheFileArrived(t *testing.T) {
	alice := mm.Users[0]
	web := browserAt(t, mm.URL, alice)
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		t.Run("protocol "+version, func(t *testing.T) {
			// The older revision is shown the page on the call's stream.
			if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION && !streams(t) {
				return
			}
			p := &person{answer: respond(mcp.ElicitationResponseActionAccept)}
			c := connectAsking(t, mm.URL, alice.Token, version, mcp.ElicitationCapability{URL: &struct{}{}}, p)
			var mu sync.Mutex
			var closed []string
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == string(mcp.MethodNotificationElicitationComplete) {
					mu.Lock()
					defer mu.Unlock()
					id, _ := n.Params.AdditionalFields["elicitationId"].(string)
					closed = append(closed, id)
				}
			})
			done := askForFile(c, map[string]any{"purpose": "a photo of the whiteboard", "types": []string{"image/*"}})
			id := waitFileRequest(t, alice, "a photo of the whiteboard")
			for deadline := time.Now().Add(15 * time.Second); len(p.asked()) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			}
			asked := p.asked()
			if len(asked) != 1 || asked[0].Mode != mcp.ElicitationModeURL || asked[0].URL != fileRequestPage(id) || asked[0].ElicitationID != id {
				t.Fatalf("the client was shown %+v, want the page of %s", asked, id)
			}
			png := append([]byte("\x89PNG\r\n\x1a\n"), randomBytes(t, 2048)...)
			if code, o := giveFile(t, web, fileRequestPage(id), "board.png", png); code != http.StatusCreated {
				t.Fatalf("the upload: %d %+v", code, o)
			}
			res := <-done
			var got tools.FileRequestResult
			if structuredAs(t, res, &got); got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(png) {
				t.Fatalf("request_file answered %s", text(res))
			}
			if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION {
				mu.Lock()
				defer mu.Unlock()
				if len(closed) == 0 || closed[0] != id {
					t.Fatalf("the client was told %q were over, want %s", closed, id)
				}
			}
		})
	}
}

func TestAPersonWhoDeclinesToOpenThePageWithdrawsTheRequest(t *testing.T) {
	alice := mm.Users[0]
	p := &person{answer: respond(mcp.ElicitationResponseActionDecline)}
	c := connectAsking(t, mm.URL, alice.Token, "", mcp.ElicitationCapability{URL: &struct{}{}}, p)
	res := <-askForFile(c, map[string]any{"purpose": "the contract"})
	if !res.IsError || !strings.Contains(text(res), "declined to give a file") {
		t.Fatalf("request_file declined answered %s", text(res))
	}
	if open := call(t, c, "files_list", nil); strings.Contains(text(open), "contract") {
		t.Fatalf("a declined request stored something: %s", text(open))
	}
}

func TestACancelledFileRequestIsWithdrawnAndItsPageSaysSoAndTakesNothing(t *testing.T) {
	alice := mm.Users[0]
	session := openSession(t, mm.URL, alice.Token, `{"name":"cancelling-client","version":"1"}`, `{}`)
	waiting := rawPostAsync(mm.URL, alice.Token, session,
		`{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":"request_file","arguments":{"purpose":"the budget sheet"}}}`)
	id := waitFileRequest(t, alice, "the budget sheet")
	if code, _, body := mcpPost(t, mm.URL, alice.Token, session,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":61,"reason":"the person pressed Esc"}}`); code != http.StatusAccepted {
		t.Fatalf("the cancellation: %d %s", code, body)
	}
	if got := <-waiting; strings.Contains(got.body, `"result"`) {
		t.Fatalf("the cancelled call was answered: %s\n%s", got.body, mm.ServerLogTail(30))
	}
	web := browserAt(t, mm.URL, alice)
	if code, body := get(t, web, fileRequestPage(id), ""); code != http.StatusOK || !strings.Contains(body, "Withdrawn") {
		t.Fatalf("the page of the withdrawn request: %d %.300s", code, body)
	}
	if code, o := giveFile(t, web, fileRequestPage(id), "budget.csv", []byte("a,b\n1,2\n")); code != http.StatusConflict {
		t.Fatalf("an upload to the withdrawn request: %d %+v", code, o)
	}
	c := connect(t, mm.URL, alice.Token)
	if res := call(t, c, "request_file", map[string]any{"id": id}); !res.IsError || !strings.Contains(text(res), "withdrawn") {
		t.Fatalf("request_file of the withdrawn request: %s", text(res))
	}
}

func TestAFileRequestCalledAsATaskWaitsForThePersonAndItsResultIsTheHandleOfTheFileTheyGave(t *testing.T) {
	alice := mm.Users[0]
	sheet := []byte("quarter,total\nq1,12\nq2,15\n")
	run := runTasksPlan(t, mm.URL, alice.Token, func(results []json.RawMessage) {
		task := pausedTask(t, results, 1)
		if !strings.Contains(task.StatusMessage, "/plugins/mcp-server"+filerequest.Path+"/") || (task.Status != "input_required" && task.Status != "working") {
			t.Errorf("tasks/get before the file = %+v, want waiting on the page", task)
		}
		id := waitFileRequest(t, alice, "the quarter's numbers")
		if code, o := giveFile(t, browserAt(t, mm.URL, alice), fileRequestPage(id), "numbers.csv", sheet); code != http.StatusCreated {
			t.Errorf("the upload: %d %+v", code, o)
		}
	},
		sdkStep{Method: "tools/call-task", Params: map[string]any{"name": "request_file", "arguments": map[string]any{"purpose": "the quarter's numbers", "types": []string{".csv"}}}},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "pause"},
		sdkStep{Method: "tasks/result", Params: map[string]any{"taskId": "$task"}},
		sdkStep{Method: "tasks/get", Params: map[string]any{"taskId": "$task"}},
	)
	var created struct{ Task sdkTask }
	if sdkDecode(t, run, 0, &created); created.Task.TaskID == "" {
		t.Fatalf("the call made no task: %s", run.Results[0].Result)
	}
	var res sdkToolResult
	sdkDecode(t, run, 3, &res)
	var got tools.FileRequestResult
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil || res.IsError || got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(sheet) {
		t.Fatalf("tasks/result = %s", run.Results[3].Result)
	}
	var after sdkTask
	if sdkDecode(t, run, 4, &after); after.Status != "completed" {
		t.Fatalf("the task after the file is %s", after.Status)
	}
}

func TestTheOfficialSDKOnNodeOneGetsTheHandleOfAFileThePersonGaveInChromiumOnNodeTwo(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	nodes := mm.NodeURLs()
	alice := mm.Users[0]
	purpose := uniq(t, "the budget sheet")
	plan, err := json.Marshal([]sdkStep{{Method: "tools/call", Params: map[string]any{"name": "request_file",
		"arguments": map[string]any{"purpose": purpose, "types": []string{".csv"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	done := runSDKShownPages(nodes[0], alice.Token, plan, filepath.Join(t.TempDir(), "steps"))
	id := waitFileRequest(t, alice, purpose)

	// The person, signed in on node 2, gives the file on the page there.
	sheet := []byte("month,amount\njanuary,1200\nfebruary,1350\n")
	path := filepath.Join(t.TempDir(), "budget.csv")
	if err := os.WriteFile(path, sheet, 0o600); err != nil {
		t.Fatal(err)
	}
	tab := chromeAt(t, nodes[1], alice)
	step(t, tab, chromedp.Navigate(nodes[1]+"/plugins/mcp-server"+filerequest.Path+"/"+id))
	step(t, tab, chromedp.SetUploadFiles(chromedp.ID("file"), []string{path}))
	if shown := pollJS[string](t, tab, "the page on node 2 says the file arrived", `document.querySelector("#result[data-state=received]") ? document.querySelector("#result").textContent : ""`); !strings.Contains(shown, sum(sheet)) {
		t.Fatalf("the page on node 2 shows %q", shown)
	}

	// The SDK's call on node 1 answers the handle.
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if streams(t) && (len(o.run.Elicitations) != 1 || o.run.Elicitations[0].Mode != "url" || o.run.Elicitations[0].ElicitationID != id) {
		t.Errorf("the SDK was shown %+v, want the page of %s", o.run.Elicitations, id)
	}
	var call sdkToolResult
	var got tools.FileRequestResult
	sdkDecode(t, o.run.sdkRun, 0, &call)
	if err := json.Unmarshal(call.StructuredContent, &got); err != nil || got.State != filerequest.StateReceived || got.File == nil || got.File.SHA256 != sum(sheet) {
		t.Fatalf("request_file on node 1 answered %s", call.StructuredContent)
	}

	// The handle posts the bytes once the person accepts.
	if files := postHandle(t, connect(t, nodes[0], alice.Token), alice, got.File.Handle); len(files) != 1 || sum(files["budget.csv"]) != sum(sheet) {
		t.Fatalf("the post's files: %d", len(files))
	}
}
