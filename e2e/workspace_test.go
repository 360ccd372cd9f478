package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

func pluginURL() string { return strings.TrimRight(mm.URL, "/") + "/plugins/mcp-server" }

// httpDo sends one plain HTTP request; token "" sends no credential.
func httpDo(t *testing.T, method, u, token string, body []byte) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

func restURL(name string) string { return pluginURL() + workspace.APIPath + "/" + url.PathEscape(name) }

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func requestUpload(t *testing.T, c *client.Client, name string, size int, pin string) tools.UploadDescriptor {
	t.Helper()
	args := map[string]any{"name": name, "size": size}
	if pin != "" {
		args["sha256"] = pin
	}
	res := call(t, c, "request_upload", args)
	if res.IsError {
		t.Fatalf("request_upload: %s", text(res))
	}
	var d tools.UploadDescriptor
	structuredAs(t, res, &d)
	if d.Upload.Method != "PUT" || !strings.HasPrefix(d.Upload.URL, pluginURL()+workspace.UploadPath) || d.Handle == "" || d.MaxSize != int64(size) {
		t.Fatalf("descriptor %+v", d)
	}
	if strings.Contains(text(res), "no credential") == false {
		t.Errorf("the answer does not say the URL needs no credential: %s", text(res))
	}
	return d
}

func listWorkspace(t *testing.T, token string) []workspace.Entry {
	t.Helper()
	resp, body := httpDo(t, http.MethodGet, pluginURL()+workspace.APIPath, token, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	var out struct{ Files []workspace.Entry }
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Files
}

func TestAnUploadThroughTheSlotArrivesByteIdenticalAndTheURLIsSpentOnce(t *testing.T) {
	alice := mm.Users[0]
	c := aliceClient(t)
	data := randomBytes(t, 3<<20+12345) // binary, several KV chunks
	d := requestUpload(t, c, "sandbox-output.bin", len(data), hexSHA(data))

	resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", data)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	// The same URL again, with other bytes: refused, the first file intact.
	resp, body = httpDo(t, http.MethodPut, d.Upload.URL, "", []byte("overwrite"))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("second PUT: %d %s", resp.StatusCode, body)
	}

	res := call(t, c, "files_list", nil)
	if res.IsError || !strings.Contains(text(res), "sandbox-output.bin") {
		t.Fatalf("files_list: %s", text(res))
	}
	resp, got := httpDo(t, http.MethodGet, restURL("sandbox-output.bin"), alice.Token, nil)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
		t.Fatalf("stream out: %d, %d bytes, identical %v", resp.StatusCode, len(got), bytes.Equal(got, data))
	}
	for _, e := range listWorkspace(t, alice.Token) {
		if e.Name == "sandbox-output.bin" && (e.SHA256 != hexSHA(data) || e.Size != int64(len(data))) {
			t.Fatalf("record %+v", e)
		}
	}
	// The handle itself is never resolved to bytes for the model: it is
	// redeemed by the posting tools (unit-tested in server/workspace).
	if strings.Count(text(res), d.Handle) != 0 {
		t.Fatal("files_list shows the handle")
	}
}

func TestAPutLargerThanTheCapIsRefusedAndNothingIsStored(t *testing.T) {
	alice := mm.Users[0]
	d := requestUpload(t, aliceClient(t), "capped.bin", 1000, "")
	resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", randomBytes(t, 1001))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "nothing was stored") {
		t.Fatalf("PUT over the cap: %d %s", resp.StatusCode, body)
	}
	resp, _ = httpDo(t, http.MethodGet, restURL("capped.bin"), alice.Token, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("something was stored: %d", resp.StatusCode)
	}
}

func TestAPutWhoseBytesMissTheShaPinIsRefused(t *testing.T) {
	alice := mm.Users[0]
	d := requestUpload(t, aliceClient(t), "pinned.bin", 5, hexSHA([]byte("hello")))
	resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", []byte("HELLO"))
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("PUT with other bytes: %d %s", resp.StatusCode, body)
	}
	resp, _ = httpDo(t, http.MethodGet, restURL("pinned.bin"), alice.Token, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("something was stored: %d", resp.StatusCode)
	}
}

func checkInert(t *testing.T, what string, h http.Header, name string) {
	t.Helper()
	want := map[string]string{
		"Content-Type": "application/octet-stream", "X-Content-Type-Options": "nosniff",
		"Content-Security-Policy": "sandbox", "Cache-Control": "no-store",
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s: %s is %q, want %q", what, k, h.Get(k), v)
		}
	}
	if cd := h.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, url.PathEscape(name)) {
		t.Errorf("%s: Content-Disposition %q", what, cd)
	}
}

func TestAPresignedDownloadServesGetAndHeadRepeatedlyAndAnHTMLPageInert(t *testing.T) {
	alice := mm.Users[0]
	c := aliceClient(t)
	page := "<html><script>document.title='ran'</script></html>"
	if res := call(t, c, "files_write", map[string]any{"name": "page.html", "text": page}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	res := call(t, c, "files_presign", map[string]any{"name": "page.html", "direction": "download"})
	if res.IsError {
		t.Fatalf("files_presign: %s", text(res))
	}
	var p struct{ URL string }
	structuredAs(t, res, &p)
	for i := range 2 {
		resp, _ := httpDo(t, http.MethodHead, p.URL, "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("HEAD %d: %d", i, resp.StatusCode)
		}
		checkInert(t, "presigned HEAD", resp.Header, "page.html")
		resp, body := httpDo(t, http.MethodGet, p.URL, "", nil)
		if resp.StatusCode != http.StatusOK || string(body) != page {
			t.Fatalf("GET %d: %d %q", i, resp.StatusCode, body)
		}
		checkInert(t, "presigned GET", resp.Header, "page.html")
	}
	resp, _ := httpDo(t, http.MethodGet, restURL("page.html"), alice.Token, nil)
	checkInert(t, "REST GET", resp.Header, "page.html")
	// A made-up token and an upload URL used for download answer not found.
	resp, _ = httpDo(t, http.MethodGet, pluginURL()+workspace.DownloadPath+"madeUpToken", "", nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("made-up token: %d", resp.StatusCode)
	}
}

func TestTheRESTAPIStreamsInListsStreamsOutAndDeletesWithTheMCPCredential(t *testing.T) {
	alice := mm.Users[0]
	data := randomBytes(t, 1<<20+1)
	resp, body := httpDo(t, http.MethodPut, restURL("Résumé 2026.bin"), alice.Token, data)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	found := false
	for _, e := range listWorkspace(t, alice.Token) {
		found = found || e.Name == "Résumé 2026.bin" && e.SHA256 == hexSHA(data)
	}
	if !found {
		t.Fatal("the REST upload is not listed")
	}
	resp, got := httpDo(t, http.MethodGet, restURL("Résumé 2026.bin"), alice.Token, nil)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
		t.Fatalf("GET: %d identical=%v", resp.StatusCode, bytes.Equal(got, data))
	}
	if resp, _ := httpDo(t, http.MethodDelete, restURL("Résumé 2026.bin"), alice.Token, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if resp, _ := httpDo(t, http.MethodGet, restURL("Résumé 2026.bin"), alice.Token, nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET after DELETE: %d", resp.StatusCode)
	}
	// No credential: the same challenge as /mcp.
	resp, _ = httpDo(t, http.MethodGet, pluginURL()+workspace.APIPath, "", nil)
	if mcpChallenge, _ := unsignedChallenge(t); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != mcpChallenge {
		t.Fatalf("unsigned list: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// A bad name names the next step.
	resp, body = httpDo(t, http.MethodPut, restURL(".hidden"), alice.Token, []byte("x"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "such as report.pdf") {
		t.Fatalf("bad name: %d %s", resp.StatusCode, body)
	}
}

func TestBobNeverSeesAlicesWorkspaceFiles(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	name := "alice-private.txt"
	if resp, body := httpDo(t, http.MethodPut, restURL(name), alice.Token, []byte("for alice only")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	b := connect(t, mm.URL, bob.Token)
	if res := call(t, b, "files_list", nil); strings.Contains(text(res), name) {
		t.Fatalf("bob lists alice's file: %s", text(res))
	}
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"files_read", map[string]any{"name": name}},
		{"files_delete", map[string]any{"name": name}},
		{"files_presign", map[string]any{"name": name, "direction": "download"}},
	} {
		res := call(t, b, tool.name, tool.args)
		if !res.IsError || !strings.Contains(text(res), "no file") {
			t.Errorf("%s as bob: %s", tool.name, text(res))
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodDelete} {
		if resp, _ := httpDo(t, method, restURL(name), bob.Token, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("REST %s as bob: %d", method, resp.StatusCode)
		}
	}
	for _, e := range listWorkspace(t, bob.Token) {
		if e.Name == name {
			t.Fatal("bob's REST list shows alice's file")
		}
	}
	// Alice still has it, unchanged.
	if resp, body := httpDo(t, http.MethodGet, restURL(name), alice.Token, nil); resp.StatusCode != http.StatusOK || string(body) != "for alice only" {
		t.Fatalf("alice's file after bob: %d %q", resp.StatusCode, body)
	}
}

func TestSaveAttachmentCopiesAReadableAttachmentAndFilesReadReadsIt(t *testing.T) {
	original := numberedText(40)
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "the notes", map[string][]byte{"notes.txt": []byte(original)})
	c := aliceClient(t)
	if res := call(t, c, "save_attachment", map[string]any{"file_id": infos[0].Id, "name": "saved-notes.txt"}); res.IsError {
		t.Fatalf("save_attachment: %s", text(res))
	}
	res := call(t, c, "files_read", map[string]any{"name": "saved-notes.txt", "offset": 39, "limit": 2})
	if res.IsError || !strings.Contains(text(res), "line 40 of the report") {
		t.Fatalf("files_read: %s", text(res))
	}
	var out tools.FileResult
	structuredAs(t, res, &out)
	if out.TotalLines != 40 || out.Start != 39 || out.Kind != "text" {
		t.Fatalf("files_read window %+v", out)
	}
}

func TestTheSweepIsOneClusterJobNotATimerInEveryProcess(t *testing.T) {
	// The cluster job runs at once when it has never run anywhere, then every
	// 15 minutes from its last run, which is kept in the KV store: a
	// restarted plugin process does not sweep again early. (Its age-based
	// selection is TestTheSweepRemovesFilesOlderThanTheRetentionAndKeepsNewerOnes
	// in server/workspace, with an injected clock.)
	sweeps := func() int {
		raw, err := os.ReadFile(mm.ServerLog())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(raw), `"msg":"Workspace sweep"`)
	}
	// The first sweep runs in the background as the suite starts, and
	// Mattermost writes its log there too: wait for it before counting.
	eventually(t, "the first sweep is logged", func() bool { return sweeps() >= 1 })
	before, counted := sweeps(), time.Now()
	if err := mm.DisablePlugin(); err != nil {
		t.Fatal(err)
	}
	if err := mm.EnablePlugin(); err != nil {
		t.Fatal(err)
	}
	getMe(t, aliceClient(t), mm.Users[0]) // the new process is serving
	// A sweep the new process started at once would be logged by now; one
	// more is only due when the suite has run longer than the interval
	// since the first (a loaded machine takes 20 minutes).
	due := time.Since(mm.Started()) >= 15*time.Minute
	if n := sweeps(); n != before && !due {
		t.Fatalf("%d sweeps logged by node 1 across a plugin restart %s after the last count, want still %d (log %s)", n, time.Since(counted).Round(time.Second), before, mm.ServerLog())
	}
}

func TestPresignedTokensNeverAppearInTheServerLog(t *testing.T) {
	c := aliceClient(t)
	d := requestUpload(t, c, "logged.bin", 4, "")
	if resp, _ := httpDo(t, http.MethodPut, d.Upload.URL, "", []byte("four")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
	httpDo(t, http.MethodPut, d.Upload.URL, "", []byte("four")) // refused: logged as a refusal
	res := call(t, c, "files_presign", map[string]any{"name": "logged.bin", "direction": "download"})
	var p struct{ URL string }
	structuredAs(t, res, &p)
	httpDo(t, http.MethodGet, p.URL, "", nil)
	raw, err := os.ReadFile(mm.ServerLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{d.Upload.URL, p.URL} {
		token := u[strings.LastIndex(u, "/")+1:]
		if strings.Contains(string(raw), token) {
			t.Errorf("the server log carries a token of %s", u)
		}
	}
	if strings.Contains(string(raw), d.Handle) {
		t.Error("the server log carries a handle")
	}
	if !strings.Contains(string(raw), `"route":"presigned_put"`) {
		t.Error("presigned uploads are not logged at all")
	}
}

// nodeURLs starts the second node once, for whichever test needs it first.
func nodeURLs(t *testing.T) []string {
	t.Helper()
	if urls := mm.NodeURLs(); len(urls) >= 2 {
		return urls
	}
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v (log %s)", err, mm.ServerLog())
	}
	return mm.NodeURLs()
}

func onNode(u, node string) string {
	return strings.Replace(u, strings.TrimRight(mm.URL, "/"), node, 1)
}

func TestAnUploadSlotIssuedOnOneNodeIsFilledOnAnotherAndServedByBoth(t *testing.T) {
	nodes := nodeURLs(t)
	alice := mm.Users[0]
	data := randomBytes(t, 2<<20+3)
	d := requestUpload(t, connect(t, nodes[0], alice.Token), "cluster.bin", len(data), hexSHA(data))
	if resp, body := httpDo(t, http.MethodPut, onNode(d.Upload.URL, nodes[1]), "", data); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT on node 2: %d %s", resp.StatusCode, body)
	}
	if resp, _ := httpDo(t, http.MethodPut, onNode(d.Upload.URL, nodes[0]), "", data); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the spent URL was taken again on node 1: %d", resp.StatusCode)
	}
	res := call(t, connect(t, nodes[1], alice.Token), "files_presign", map[string]any{"name": "cluster.bin", "direction": "download"})
	var p struct{ URL string }
	structuredAs(t, res, &p)
	for _, node := range nodes {
		if resp, got := httpDo(t, http.MethodGet, onNode(p.URL, node), "", nil); resp.StatusCode != http.StatusOK || !bytes.Equal(got, data) {
			t.Fatalf("download on %s: %d identical=%v", node, resp.StatusCode, bytes.Equal(got, data))
		}
	}
}

func TestTheWorkspaceQuotaSettingRefusesAWriteThatWouldExceedIt(t *testing.T) {
	if err := mm.PatchPluginSettings(map[string]any{"WorkspaceQuotaMiB": 1, "MaxWorkspaceFileMiB": 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mm.PatchPluginSettings(map[string]any{"WorkspaceQuotaMiB": 200, "MaxWorkspaceFileMiB": 50})
	})
	u, err := mm.CreateUser(uniq(t, "quota"))
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, mm.URL, u.Token)
	half := strings.Repeat("q", 600<<10)
	if res := call(t, c, "files_write", map[string]any{"name": "first.txt", "text": half}); res.IsError {
		t.Fatalf("first write: %s", text(res))
	}
	res := call(t, c, "files_write", map[string]any{"name": "second.txt", "text": half})
	if !res.IsError || !strings.Contains(text(res), "quota") || !strings.Contains(text(res), "files_delete") {
		t.Fatalf("over the quota: %s", text(res))
	}
	resp, body := httpDo(t, http.MethodPut, restURL("big.bin"), u.Token, make([]byte, 1<<20+1))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("REST PUT over the largest file: %d %s", resp.StatusCode, body)
	}
	if files := listWorkspace(t, u.Token); len(files) != 1 || files[0].Name != "first.txt" {
		t.Fatalf("workspace after refusals: %+v", files)
	}
}
