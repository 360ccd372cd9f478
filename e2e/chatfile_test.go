package e2e

// Issue 55: ChatGPT hands a file the person attached in its chat to a tool
// through openai/fileParams: {download_url, file_id, mime_type, file_name},
// which the server fetches. Here a local stand-in plays ChatGPT's file host;
// the test's Mattermost lists 127.0.0.1 as an allowed untrusted internal
// connection, as an intranet file host would be listed.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// newChatGPTClient is a client shaped as ChatGPT's connector: its name,
// protocol 2025-06-18, no files capability of the draft.
func newChatGPTClient(t *testing.T, token string) *filesClient {
	t.Helper()
	c := &filesClient{token: token, version: "2025-06-18", caps: map[string]any{}}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":%q,"version":"1.0.0"}}}`, c.version, chatfile.ClientName)
	code, h, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), token, init, map[string]string{"Accept": "application/json, text/event-stream"})
	if c.session = h.Get("Mcp-Session-Id"); code != http.StatusOK || c.session == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	rawPost(t, http.MethodPost, mcpURL(mm.URL), token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, c.headers())
	return c
}

// fileHost is the stand-in for ChatGPT's file host: it serves the file,
// and the ways a host can fail, and counts what it was asked.
type fileHost struct {
	*httptest.Server
	file []byte
	mu   sync.Mutex
	hits map[string]int
}

func newFileHost(t *testing.T, file []byte) *fileHost {
	h := &fileHost{file: file, hits: map[string]int{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		switch r.URL.Path {
		case "/files/plan.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", fmt.Sprint(len(file)))
			w.Write(file)
		case "/files/chunked":
			// No Content-Length: the body is sent in chunks.
			w.Header().Set("Content-Type", "application/pdf")
			w.(http.Flusher).Flush()
			w.Write(file)
		case "/files/expired":
			http.Error(w, "link expired", http.StatusNotFound)
		case "/files/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam/", http.StatusFound)
		case "/files/longer", "/files/shorter", "/files/stalls":
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			half := file[:len(file)/2]
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: %d\r\n\r\n", len(file))
			switch r.URL.Path {
			case "/files/longer":
				buf.Write(file)
				buf.WriteString("and bytes the header never declared")
			case "/files/shorter":
				buf.Write(half)
			case "/files/stalls":
				buf.Write(half)
				buf.Flush()
				_, _ = conn.Read(make([]byte, 1)) // until the plugin gives up and closes
				return
			}
			buf.Flush()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *fileHost) asked(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// listFileHost lists 127.0.0.1 (and only it) as an allowed untrusted
// internal connection for the test.
func listFileHost(t *testing.T) {
	patchConfig(t, func(c *model.Config) {
		c.ServiceSettings.AllowedUntrustedInternalConnections = model.NewPointer("127.0.0.1")
	}, func(c *model.Config) {
		c.ServiceSettings.AllowedUntrustedInternalConnections = model.NewPointer("")
	})
}

// chatPDF allows writes confirmed as mode, lists the stand-in and serves
// from it a PDF of about kib KiB of random bytes.
func chatPDF(t *testing.T, mode string, kib int) (*fileHost, []byte) {
	t.Helper()
	allowWrites(t, mode)
	listFileHost(t)
	plan := append([]byte("%PDF-1.4\n"), randomBytes(t, kib<<10)...)
	return newFileHost(t, plan), plan
}

func chatRef(url, name string) map[string]any {
	return map[string]any{"download_url": url, "file_id": "file-" + name, "mime_type": "application/pdf", "file_name": name}
}

func TestAFileAttachedInChatGPTIsFetchedWholeShownToThePersonAndPostedByteIdentical(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	listFileHost(t)
	plan := append([]byte("%PDF-1.4\n% the plan the person attached in ChatGPT\n"), randomBytes(t, 700<<10)...)
	host := newFileHost(t, plan)
	alice := mm.Users[0]
	c := newChatGPTClient(t, alice.Token)

	// The posting tools list the field ChatGPT fills.
	r := c.call(t, "tools/list", map[string]any{})
	var listed struct {
		Tools []struct {
			Name string         `json:"name"`
			Meta map[string]any `json:"_meta"`
		}
	}
	if r.Error != nil || json.Unmarshal(r.Result, &listed) != nil {
		t.Fatalf("tools/list: %+v", r.Error)
	}
	declared := map[string]bool{}
	for _, tool := range listed.Tools {
		if params, ok := tool.Meta[chatfile.MetaKey].([]any); ok && len(params) == 1 && params[0] == chatfile.Argument {
			declared[tool.Name] = true
		}
	}
	for _, name := range []string{"create_post", "dm", "group_message"} {
		if !declared[name] {
			t.Errorf("%s does not list %s in _meta[%q]", name, chatfile.Argument, chatfile.MetaKey)
		}
	}
	if declared["read_file"] {
		t.Error("read_file takes no file but lists a file param")
	}

	marker := uniq(t, "chatgpt-file")
	inWorkspaceBefore := len(workspaceFiles(t, c))
	done := make(chan callResult, 1)
	go func() {
		res, _ := toolCall(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
			chatfile.Argument: []any{chatRef(host.URL+"/files/plan.pdf", "plan.pdf")}})
		done <- res
	}()
	// The page as the person reads it, at a laptop's and a phone's width.
	id := waitPending(t, alice, marker)
	tab := chromeAs(t, alice)
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, tab, width, 900)
		step(t, tab, chromedp.Navigate(pageOf(id)), chromedp.WaitVisible(chromedp.ID("accept")))
		fitsWidth(t, tab, width, "the page of a post with a chat file")
		if origin := evalJS[string](t, tab, `document.querySelector(".file-origin").textContent`); origin != "Attached in the chat, fetched from 127.0.0.1" {
			t.Errorf("the file's origin reads %q", origin)
		}
		if hint := evalJS[string](t, tab, `document.querySelector("#files-hint").textContent`); !strings.Contains(hint, "already waits in Mattermost for this post, seen by nobody else, and is deleted if you decline") {
			t.Errorf("the page says of the files: %q", hint)
		}
		shoot(t, tab, width, "page-chat-file")
	}
	out := acceptShowing(t, alice, marker, done, "plan.pdf", sum(plan)[:12], "Attached in the chat, fetched from 127.0.0.1")
	// For a post in a channel it went straight into Mattermost as the
	// post's upload, not through the workspace.
	if n := len(workspaceFiles(t, c)); n != inWorkspaceBefore {
		t.Errorf("the workspace holds %d files after the post, %d before", n, inWorkspaceBefore)
	}
	files, infos := postedFilesAs(t, alice, out.PostID)
	if len(files) != 1 || sum(files["plan.pdf"]) != sum(plan) {
		t.Fatalf("the post's files are %d, plan.pdf %d bytes; want the %d bytes attached", len(files), len(files["plan.pdf"]), len(plan))
	}

	// read_file gives the file back as an object ChatGPT fetches, with no
	// credential.
	read, _ := toolCall(t, c, "read_file", map[string]any{"file_id": infos["plan.pdf"].Id})
	var fr tools.FileResult
	if read.IsError || json.Unmarshal(read.StructuredContent, &fr) != nil || fr.File == nil {
		t.Fatalf("read_file gave ChatGPT no file object: %.300s", read.StructuredContent)
	}
	if fr.File.FileName != "plan.pdf" || fr.File.MIMEType != "application/pdf" || fr.File.FileID == "" {
		t.Errorf("the file object: %+v", fr.File)
	}
	resp, err := http.Get(fr.File.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || sum(got) != sum(plan) {
		t.Fatalf("the file object's download_url answered %d with %d bytes; want the %d bytes posted", resp.StatusCode, len(got), len(plan))
	}

	// The fetch is in the audit trail by host, size and outcome, and
	// never by the link's path or query.
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	entries, body := waitAuditOf(t, adminToken, url.Values{"user": {alice.ID}, "kind": {string(audit.KindChatFile)}}, 1)
	if e := entries[0]; e.Targets["host"] != "127.0.0.1" || e.Targets["bytes"] != fmt.Sprint(len(plan)) || e.Outcome != audit.OutcomeDone || e.ClientName != chatfile.ClientName {
		t.Errorf("the audit entry of the fetch: %+v", e)
	}
	if strings.Contains(body, "/files/plan.pdf") {
		t.Error("the audit trail holds the link's path")
	}

	// Another client is given no file object.
	other := newFilesClient(t, alice.Token, "2025-11-25", map[string]any{})
	read, _ = toolCall(t, other, "read_file", map[string]any{"file_id": infos["plan.pdf"].Id})
	if strings.Contains(string(read.StructuredContent), "download_url") {
		t.Errorf("a client that is not ChatGPT was given a file object: %.300s", read.StructuredContent)
	}
}

func TestAChatFileThatIsNotWholeOrNotAllowedIsRefusedWithWhatToDoAndNothingIsKept(t *testing.T) {
	host, _ := chatPDF(t, config.ConfirmMattermost, 300)
	// The same stand-in at an address nobody listed.
	unlisted, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	var unlistedCount int
	var mu sync.Mutex
	go func() {
		for {
			conn, err := unlisted.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			unlistedCount++
			mu.Unlock()
			go func() {
				defer conn.Close()
				_, _ = http.ReadRequest(bufio.NewReader(conn))
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
			}()
		}
	}()
	t.Cleanup(func() { unlisted.Close() })

	u := freshUser(t, "chatfail")
	c := newChatGPTClient(t, u.Token)
	workspace := func() int { return len(workspaceFiles(t, c)) }
	before := workspace()
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"an address nobody listed", fmt.Sprintf("http://%s/files/plan.pdf", unlisted.Addr()), []string{"does not fetch", "request_file"}},
		{"a redirect to cloud metadata", host.URL + "/files/metadata", []string{"169.254.169.254", "request_file"}},
		{"a body longer than declared", host.URL + "/files/longer", []string{"another length", "not the whole file"}},
		{"a body shorter than declared", host.URL + "/files/shorter", []string{"another length", "not the whole file"}},
		{"a host that stalls", host.URL + "/files/stalls", []string{"stopped arriving"}},
		{"an expired link", host.URL + "/files/expired", []string{"no longer works", "attach the file again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := uniq(t, "chatfail")
			res, r := toolCall(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
				chatfile.Argument: []any{chatRef(tc.url, marker+".pdf")}})
			if r.Error != nil || !res.IsError {
				t.Fatalf("create_post was not refused: %+v %.300s", r.Error, res.text())
			}
			for _, want := range tc.want {
				if !strings.Contains(res.text(), want) {
					t.Errorf("the refusal does not say %q: %s", want, res.text())
				}
			}
			if !strings.Contains(res.text(), "Nothing was kept") {
				t.Errorf("the refusal does not say nothing was kept: %s", res.text())
			}
			if n := workspace(); n != before {
				t.Errorf("the workspace holds %d files after the refusal, %d before", n, before)
			}
			// Nor does Mattermost: a body that came whole but ran on was
			// uploaded, then discarded.
			if live, _, err := mm.FileInfoStates(t.Context(), marker); err != nil || live != 0 {
				t.Errorf("Mattermost keeps %d live files of the refused fetch (%v)", live, err)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if unlistedCount != 0 {
		t.Errorf("the unlisted address was asked %d times; the plugin must refuse before connecting", unlistedCount)
	}
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := waitAuditOf(t, adminToken, url.Values{"user": {u.ID}, "kind": {string(audit.KindChatFile)}}, 6)
	reasons := map[string]bool{}
	for _, e := range entries {
		if e.Outcome != audit.OutcomeRefused {
			t.Errorf("a refused fetch was recorded as %s", e.Outcome)
		}
		reasons[e.Reason] = true
	}
	for _, want := range []string{"host_not_allowed", "too_long", "cut_short", "stalled", "status_404"} {
		if !reasons[want] {
			t.Errorf("no refused fetch was recorded as %s: %v", want, reasons)
		}
	}
	if host.asked("/files/metadata") != 1 {
		t.Errorf("the redirecting link was asked %d times", host.asked("/files/metadata"))
	}
}

// A file handed over for a post in a channel goes straight into Mattermost
// as the person's upload for that post, which no post holds until they say
// yes; every other end of the write discards it.
func TestAChatFileReceivedForAPostIsDiscardedWhenThePostIsDeclinedWithdrawnOrExpiresAndSeenByNobodyElseMeanwhile(t *testing.T) {
	host, _ := chatPDF(t, config.ConfirmMattermost, 200)
	u, onlooker := freshUser(t, "chatends"), freshUser(t, "chatlooker")
	c := newChatGPTClient(t, u.Token)
	ch := townSquare(t)
	ask := func(marker string) (string, <-chan callResult) {
		done := make(chan callResult, 1)
		go func() {
			res, _ := toolCall(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
				chatfile.Argument: []any{chatRef(host.URL+"/files/plan.pdf", marker+".pdf")}})
			done <- res
		}()
		// The call ends within its window (20 s) whatever happens here.
		t.Cleanup(func() {
			select {
			case res := <-done:
				done <- res
			case <-time.After(time.Minute):
			}
		})
		id := waitPending(t, u, marker)
		// Asked, the file is the person's upload: live, in no post.
		if live, deleted, err := mm.FileInfoStates(t.Context(), marker); err != nil || live != 1 || deleted != 0 {
			t.Fatalf("while %s waits Mattermost holds %d live and %d deleted files of it (%v)", marker, live, deleted, err)
		}
		return id, done
	}
	discarded := func(marker string) bool {
		live, deleted, err := mm.FileInfoStates(t.Context(), marker)
		if err != nil {
			t.Fatal(err)
		}
		return live == 0 && deleted == 1
	}

	// Left to expire first: the minute job finds it while the rest runs.
	expired := uniq(t, "chat-expired")
	id, _ := ask(expired)
	if err := mm.ExpireKV(t.Context(), "pc_"+u.ID+"_"+id); err != nil {
		t.Fatal(err)
	}

	// Meanwhile nobody else finds it.
	declined := uniq(t, "chat-declined")
	id, done := ask(declined)
	if res, _ := toolCall(t, newChatGPTClient(t, onlooker.Token), "search_files", map[string]any{"name": declined}); res.IsError || strings.Contains(res.text(), declined) {
		t.Fatalf("another member's search_files: %s", res.text())
	}
	answerOnPage(t, u, id, "decline", "")
	if res := <-done; !res.IsError {
		t.Fatalf("the declined call: %s", res.text())
	}
	eventually(t, "the declined post's file to be discarded", func() bool { return discarded(declined) })

	// Withdrawn: the client cancels the call while the person is asked.
	withdrawn := uniq(t, "chat-withdrawn")
	session := openSession(t, mm.URL, u.Token, fmt.Sprintf(`{"name":%q,"version":"1"}`, chatfile.ClientName), `{}`)
	args, _ := json.Marshal(map[string]any{"channel": ch.Id, "message": withdrawn,
		chatfile.Argument: []any{chatRef(host.URL+"/files/plan.pdf", withdrawn+".pdf")}})
	waiting := rawPostAsync(mm.URL, u.Token, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":71,"method":"tools/call","params":{"name":"create_post","arguments":%s}}`, args))
	waitPending(t, u, withdrawn)
	if code, _, body := mcpPost(t, mm.URL, u.Token, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":71,"reason":"the person pressed Esc"}}`); code != http.StatusAccepted {
		t.Fatalf("the cancellation: %d %s", code, body)
	}
	<-waiting
	eventually(t, "the withdrawn post's file to be discarded", func() bool { return discarded(withdrawn) })

	eventuallyWithin(t, 2*time.Minute, "the expired post's file to be discarded", func() bool { return discarded(expired) })
}

// Where the post's channel does not exist yet (a direct message never
// opened) or the host declares no length, a chat file is fetched into the
// person's workspace first and posted from there.
func TestAChatFileForADirectMessageNotYetOpenedOrOfNoDeclaredLengthIsPostedByteIdenticalThroughTheWorkspace(t *testing.T) {
	host, plan := chatPDF(t, config.ConfirmClientApproval, 300)
	u, other := freshUser(t, "chatdm"), freshUser(t, "chatdmto")
	c := newChatGPTClient(t, u.Token)
	for _, tc := range []struct {
		name, tool, path string
		args             map[string]any
	}{
		{"a direct message never opened", "dm", "/files/plan.pdf", map[string]any{"user": other.Username}},
		{"a host that declares no length", "create_post", "/files/chunked", map[string]any{"channel": townSquare(t).Id}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := uniq(t, "chatws")
			args := map[string]any{"message": marker, chatfile.Argument: []any{chatRef(host.URL+tc.path, marker+".pdf")}}
			for k, v := range tc.args {
				args[k] = v
			}
			res, _ := toolCall(t, c, tc.tool, args)
			var out tools.WriteResult
			if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.PostID == "" {
				t.Fatalf("%s: %s", tc.tool, res.text())
			}
			files, _ := postedFilesAs(t, u, out.PostID)
			if len(files) != 1 || sum(files[marker+".pdf"]) != sum(plan) {
				t.Fatalf("the post holds %d files, %s.pdf %d bytes; want the %d bytes attached", len(files), marker, len(files[marker+".pdf"]), len(plan))
			}
			if live, deleted, err := mm.FileInfoStates(t.Context(), marker); err != nil || live != 1 || deleted != 0 {
				t.Errorf("Mattermost holds %d live and %d deleted files of it (%v); want only the post's", live, deleted, err)
			}
			if !slices.Contains(workspaceFiles(t, c), marker+".pdf") {
				t.Errorf("%s.pdf did not go through the workspace", marker)
			}
		})
	}
}

// workspaceFiles are the names in the person's workspace.
func workspaceFiles(t *testing.T, c *filesClient) []string {
	t.Helper()
	res, _ := toolCall(t, c, "files_list", map[string]any{})
	var l tools.WorkspaceList
	if res.IsError || json.Unmarshal(res.StructuredContent, &l) != nil {
		t.Fatalf("files_list: %s", res.text())
	}
	var names []string
	for _, f := range l.Files {
		names = append(names, f.Name)
	}
	return names
}
