package e2e

// Issues 44 and 55: a client that declares the files capability of the
// draft SEP-2631 (File Objects and Transfer), at its newest text, gives
// the person's file by its own transfer: files/authorizeUpload with the
// file's size and sha-256 digest, the upload the descriptor says, the
// file URI in file_uris (marked x-mcp-file) of a posting tool; or a data:
// URI. A tool that reads a file gives it back as a file content block with
// its digest, which files/authorizeDownload resolves. A client that
// declared nothing sees none of it.

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
	mcptransport "github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// filesClient is a raw MCP client that declares what it likes, as a
// client of the draft would: mcp-go's capabilities have no files field.
type filesClient struct {
	token, session, version string
	caps                    map[string]any
	next                    int
}

// rpcReply is one JSON-RPC answer.
type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// declaresFiles is the newest draft's declaration of both halves;
// declaresDownloads of downloads alone; declaresApril the April draft's,
// which this server no longer reads.
var (
	declaresFiles     = map[string]any{"files": map[string]any{"upload": true, "download": true, "transports": []string{"https"}}}
	declaresDownloads = map[string]any{"files": map[string]any{"download": true, "transports": []string{"https"}}}
	declaresApril     = map[string]any{"files": map[string]any{"inputTransfer": true, "output": true, "transports": []string{"https"}}}
)

// newFilesClient opens a session of 2025-11-25 declaring caps; version
// "2026-07-28" opens none and declares caps in every request instead.
func newFilesClient(t *testing.T, token, version string, caps map[string]any) *filesClient {
	t.Helper()
	c := &filesClient{token: token, version: version, caps: caps}
	if version == mcp.LATEST_PROTOCOL_VERSION {
		return c
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"e2e-files","version":"1"}}}`, version, jsonOf(t, caps))
	code, h, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), token, init, map[string]string{"Accept": "application/json, text/event-stream"})
	if c.session = h.Get("Mcp-Session-Id"); code != http.StatusOK || c.session == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	rawPost(t, http.MethodPost, mcpURL(mm.URL), token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, c.headers())
	return c
}

func (c *filesClient) headers() map[string]string {
	h := map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": c.version}
	if c.session != "" {
		h["Mcp-Session-Id"] = c.session
	}
	return h
}

// call sends one request and reads its answer, sent as JSON or as the
// events of a stream.
func (c *filesClient) call(t *testing.T, method string, params map[string]any) rpcReply {
	t.Helper()
	c.next++
	if c.session == "" {
		params["_meta"] = map[string]any{mcp.MetaKeyProtocolVersion: c.version, mcp.MetaKeyClientCapabilities: c.caps,
			mcp.MetaKeyClientInfo: map[string]string{"name": "e2e-files", "version": "1"}}
	}
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.next, method, jsonOf(t, params))
	h := c.headers()
	if c.session == "" {
		// 2026-07-28's standard headers mirror the method and its name.
		h[mcp.HeaderMethod] = method
		if name, ok := params["name"].(string); ok {
			h[mcp.HeaderName] = name
		}
	}
	code, _, body := rawPost(t, http.MethodPost, mcpURL(mm.URL), c.token, req, h)
	if code != http.StatusOK {
		// 2026-07-28 answers an error with the HTTP status its code maps
		// to (404 for -32601, 400 for -32602); the body is the error.
		var r rpcReply
		if json.Unmarshal([]byte(body), &r) != nil || r.Error == nil || code != mcptransport.ModernErrorStatus(r.Error.Code) || c.session != "" {
			t.Fatalf("%s: %d %s", method, code, body)
		}
		return r
	}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "data: ")
		var r rpcReply
		if json.Unmarshal([]byte(line), &r) == nil && (r.Result != nil || r.Error != nil) {
			return r
		}
	}
	t.Fatalf("%s: no answer in %.500s", method, body)
	return rpcReply{}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toolListed is one tool of a raw tools/list answer.
type toolListed struct {
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"inputSchema"`
	InputFiles  any            `json:"inputFiles"`
}

// fileInput is the x-mcp-file of a tool's file_uris items; nil when it
// has none.
func (tl toolListed) fileInput() map[string]any {
	props, _ := tl.InputSchema["properties"].(map[string]any)
	uris, _ := props[filetransfer.URIsArgument].(map[string]any)
	items, _ := uris["items"].(map[string]any)
	in, _ := items[filetransfer.SchemaKeyword].(map[string]any)
	return in
}

// listedTools reads a raw tools/list answer, and its text.
func listedTools(t *testing.T, c *filesClient) ([]toolListed, string) {
	t.Helper()
	r := c.call(t, "tools/list", map[string]any{})
	var res struct{ Tools []toolListed }
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("tools/list: %+v %s", r.Error, r.Result)
	}
	return res.Tools, string(r.Result)
}

func listedTool(t *testing.T, c *filesClient, name string) toolListed {
	t.Helper()
	listed, _ := listedTools(t, c)
	for _, tool := range listed {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("tools/list has no %s", name)
	return toolListed{}
}

// digestOf is b's digest as the SEP writes it.
func digestOf(b []byte) map[string]string {
	s := sha256.Sum256(b)
	return map[string]string{"algorithm": "sha-256", "value": base64.RawURLEncoding.EncodeToString(s[:])}
}

// authorized is an authorizeUpload answer as a client of the draft reads
// it, with the multipart part of a descriptor this server never sends.
type authorized struct {
	File   filetransfer.FileValue `json:"file"`
	Upload struct {
		filetransfer.Transfer
		Multipart *struct {
			FileField string            `json:"fileField"`
			Fields    map[string]string `json:"fields"`
		} `json:"multipart"`
	} `json:"upload"`
}

// authorizeUpload calls files/authorizeUpload for b, declaring digest.
func authorizeUpload(t *testing.T, c *filesClient, name, mimeType string, b []byte, digest map[string]string) authorized {
	t.Helper()
	r := c.call(t, filetransfer.MethodAuthorizeUpload, map[string]any{"name": name, "mimeType": mimeType, "size": len(b), "digest": digest})
	var a authorized
	if r.Error != nil || json.Unmarshal(r.Result, &a) != nil || !strings.HasPrefix(a.File.URI, "mcp-file://mattermost/") {
		t.Fatalf("files/authorizeUpload: %+v %s", r.Error, r.Result)
	}
	return a
}

// upload sends b as the descriptor says, a form when it is multipart, as
// a client of the draft does; it answers the status.
func upload(t *testing.T, a authorized, b []byte) int {
	t.Helper()
	d := a.Upload
	if d.Transport != "https" || (d.Method != http.MethodPut && d.Method != http.MethodPost) {
		t.Fatalf("an upload descriptor of %s %s", d.Transport, d.Method)
	}
	body, contentType := io.Reader(bytes.NewReader(b)), d.Headers["Content-Type"]
	if d.Multipart != nil {
		var form bytes.Buffer
		w := multipart.NewWriter(&form)
		for k, v := range d.Multipart.Fields {
			_ = w.WriteField(k, v)
		}
		part, _ := w.CreateFormFile(d.Multipart.FileField, a.File.Name)
		_, _ = part.Write(b)
		_ = w.Close()
		body, contentType = &form, w.FormDataContentType()
	}
	req, _ := http.NewRequest(d.Method, d.URL, body)
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// callResult is a raw tools/call result.
type callResult struct {
	IsError           bool              `json:"isError"`
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
}

func (r callResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		var tc struct{ Text string }
		_ = json.Unmarshal(c, &tc)
		b.WriteString(tc.Text)
	}
	return b.String()
}

// fileBlocks are the file content blocks of a result.
func (r callResult) fileBlocks() []filetransfer.FileValue {
	var out []filetransfer.FileValue
	for _, c := range r.Content {
		var fc filetransfer.FileContent
		if json.Unmarshal(c, &fc) == nil && fc.Type == "file" {
			out = append(out, fc.File)
		}
	}
	return out
}

func toolCall(t *testing.T, c *filesClient, tool string, args map[string]any) (callResult, rpcReply) {
	t.Helper()
	r := c.call(t, "tools/call", map[string]any{"name": tool, "arguments": args})
	var res callResult
	if r.Result != nil {
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatalf("%s: %v %s", tool, err, r.Result)
		}
	}
	return res, r
}

// download GETs a descriptor's URL as the client would: no credentials.
func download(t *testing.T, d filetransfer.Transfer) []byte {
	t.Helper()
	resp, err := http.Get(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || d.Method != "GET" || d.Transport != "https" {
		t.Fatalf("GET %s (%s): %d %.200s", d.URL, d.Method, resp.StatusCode, b)
	}
	return b
}

func TestAClientOfTheNewestFileTransferDraftPostsAnAuthorizedUploadAndADataURIAndDownloadsWhatItReads(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	c := newFilesClient(t, alice.Token, "2025-11-25", declaresFiles)

	// create_post marks file_uris with x-mcp-file, both modes, the
	// largest workspace file; nothing else takes files, and the April
	// draft's sidecar is gone.
	listed, _ := listedTools(t, c)
	for _, tool := range listed {
		in := tool.fileInput()
		switch {
		case tool.Name == "create_post" && (in == nil || in["maxSize"] != float64(50<<20) || !reflect.DeepEqual(in["transferModes"], []any{"inline", "upload"})):
			t.Errorf("create_post's file_uris is marked %v", in)
		case tool.Name != "create_post" && tool.Name != "dm" && tool.Name != "group_message" && in != nil:
			t.Errorf("%s takes no file but is marked %v", tool.Name, in)
		case tool.InputFiles != nil:
			t.Errorf("%s keeps the April draft's inputFiles", tool.Name)
		}
	}

	// Authorize with the digest, then upload as the descriptor says.
	report := append([]byte("%PDF-1.4\n% the person's report\n"), randomBytes(t, 300<<10)...)
	a := authorizeUpload(t, c, "report.pdf", "application/pdf", report, digestOf(report))
	if a.File.Digest == nil || a.File.Digest.Value != digestOf(report)["value"] || a.File.Size != int64(len(report)) || a.Upload.Multipart != nil {
		t.Fatalf("authorized %+v", a)
	}
	if code := upload(t, a, report); code != http.StatusCreated {
		t.Fatalf("the upload to the descriptor: %d", code)
	}

	// Bytes other than the digest declared are refused, and nothing is
	// kept: the file URI names no file.
	wrong := authorizeUpload(t, c, "forged.pdf", "application/pdf", report, digestOf([]byte("other bytes")))
	if code := upload(t, wrong, report); code != http.StatusUnprocessableEntity {
		t.Errorf("an upload whose bytes are not its digest's: %d, want 422", code)
	}
	if r := c.call(t, filetransfer.MethodAuthorizeDownload, map[string]any{"uri": wrong.File.URI}); r.Error == nil || r.Error.Data["reason"] != filetransfer.ReasonNotFound {
		t.Errorf("the refused upload's URI: %+v", r.Error)
	}
	// A body longer than the size authorized is refused too.
	long := authorizeUpload(t, c, "long.pdf", "application/pdf", report, nil)
	if code := upload(t, long, append(report, 'x')); code != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload longer than authorized: %d, want 413", code)
	}
	// Over the largest file, the SEP's reason.
	r := c.call(t, filetransfer.MethodAuthorizeUpload, map[string]any{"name": "huge.bin", "size": 51 << 20})
	if r.Error == nil || r.Error.Code != -32602 || r.Error.Data["reason"] != "maxSizeExceeded" || r.Error.Data["maxSize"] != float64(50<<20) {
		t.Errorf("an upload over the largest file: %+v", r.Error)
	}

	// The file URI and an unnamed data: URI post after the person
	// accepts; the question shows both files as every file.
	notes := []byte("notes the person chose\n")
	dataURI := "data:text/plain;base64," + base64.StdEncoding.EncodeToString(notes)
	marker := uniq(t, "sep2631")
	done := make(chan callResult, 1)
	go func() {
		res, _ := toolCall(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker, "file_uris": []string{a.File.URI, dataURI}})
		done <- res
	}()
	// The page shows each sha256 by its first 12 digits.
	out := acceptShowing(t, alice, marker, done, a.File.Name, sum(report)[:12], sum(notes)[:12])
	files, infos := postedFilesAs(t, alice, out.PostID)
	names := map[string]string{}
	for name, b := range files {
		names[sum(b)] = name
	}
	// The unnamed text is named after its type ("file.txt", or "file (n).txt"
	// beside one of that name), never ".asc".
	reportName, notesName := names[sum(report)], names[sum(notes)]
	if len(files) != 2 || reportName != a.File.Name || !strings.HasPrefix(notesName, "file") || !strings.HasSuffix(notesName, ".txt") {
		t.Fatalf("the post's files: %v, want %s and file.txt, byte for byte", names, a.File.Name)
	}

	// read_file gives the attachment as a file with its digest;
	// authorizeDownload answers the same file and a GET of its bytes.
	read, _ := toolCall(t, c, "read_file", map[string]any{"file_id": infos[reportName].Id})
	blocks := read.fileBlocks()
	if read.IsError || len(blocks) != 1 || blocks[0].Name != reportName || blocks[0].Size != int64(len(report)) {
		t.Fatalf("read_file gave %v: %.300s", blocks, read.text())
	}
	r = c.call(t, filetransfer.MethodAuthorizeDownload, map[string]any{"uri": blocks[0].URI})
	var d filetransfer.AuthorizedDownload
	if r.Error != nil || json.Unmarshal(r.Result, &d) != nil {
		t.Fatalf("files/authorizeDownload: %+v", r.Error)
	}
	if d.File.URI != blocks[0].URI || d.File.MIMEType != "application/pdf" || d.File.Digest == nil || d.File.Digest.Value != digestOf(report)["value"] || d.File.Size != int64(len(report)) {
		t.Errorf("authorizeDownload's file: %+v", d.File)
	}
	if got := download(t, d.Download); sum(got) != sum(report) {
		t.Fatalf("the download is %d bytes, not the attachment's %d", len(got), len(report))
	}

	// Another person's file URI is not found, whichever way it is used.
	other := newFilesClient(t, bob.Token, "2025-11-25", declaresFiles)
	r = other.call(t, filetransfer.MethodAuthorizeDownload, map[string]any{"uri": a.File.URI})
	if r.Error == nil || r.Error.Code != -32602 || r.Error.Data["reason"] != filetransfer.ReasonNotFound {
		t.Errorf("bob's authorizeDownload of alice's file: %+v", r.Error)
	}
	_, r = toolCall(t, other, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "x", "file_uris": []string{a.File.URI}})
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "No such file") {
		t.Errorf("bob's post with alice's file URI: %+v", r.Error)
	}
}

func TestFileTransferIsOfferedExactlyToAClientThatDeclaresItOnEitherRevision(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	photo := noisePNG(t, 64, 48)
	for _, version := range []string{"2025-11-25", mcp.LATEST_PROTOCOL_VERSION} {
		// Declaring nothing, or only the April draft's fields: nothing.
		for what, caps := range map[string]map[string]any{"nothing": {}, "the April draft": declaresApril} {
			plain := newFilesClient(t, alice.Token, version, caps)
			if _, text := listedTools(t, plain); strings.Contains(text, filetransfer.SchemaKeyword) || strings.Contains(text, filetransfer.URIsArgument) {
				t.Errorf("%s: a client that declared %s is listed file_uris", version, what)
			}
			for _, m := range []string{filetransfer.MethodAuthorizeUpload, filetransfer.MethodAuthorizeDownload} {
				if r := plain.call(t, m, map[string]any{"name": "a.txt", "size": 1, "uri": "x"}); r.Error == nil || r.Error.Code != -32601 {
					t.Errorf("%s: %s for a client that declared %s: %+v", version, m, what, r.Error)
				}
			}
			if r := plain.call(t, "files/prepareUpload", map[string]any{"name": "a.txt", "size": 1}); r.Error == nil || r.Error.Code != -32601 || !strings.Contains(r.Error.Message, filetransfer.MethodAuthorizeUpload) {
				t.Errorf("%s: the April draft's method: %+v", version, r.Error)
			}
			res, _ := toolCall(t, plain, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "x", "file_uris": []string{"data:,x"}})
			if !res.IsError || !strings.Contains(res.text(), `no argument "file_uris"`) {
				t.Errorf("%s: file_uris from a client that declared %s: %s", version, what, res.text())
			}
			ws, _ := toolCall(t, plain, "files_write", map[string]any{"name": "offered.txt", "text": "offered"})
			read, _ := toolCall(t, plain, "files_read", map[string]any{"name": "offered.txt"})
			if ws.IsError || read.IsError || len(read.fileBlocks()) != 0 {
				t.Errorf("%s: files_read gave a file block to a client that declared %s: %s", version, what, read.text())
			}
		}

		// Downloads alone: file blocks, data: URIs only, no upload.
		dl := newFilesClient(t, alice.Token, version, declaresDownloads)
		if in := listedTool(t, dl, "create_post").fileInput(); in == nil || !reflect.DeepEqual(in["transferModes"], []any{"inline"}) || in["maxSize"] != float64(filetransfer.MaxInlineBytes) {
			t.Errorf("%s: create_post for a client that only downloads is marked %v", version, in)
		}
		if r := dl.call(t, filetransfer.MethodAuthorizeUpload, map[string]any{"name": "a.txt", "size": 1}); r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("%s: authorizeUpload for a client that only downloads: %+v", version, r.Error)
		}
		read, _ := toolCall(t, dl, "files_read", map[string]any{"name": "offered.txt"})
		blocks := read.fileBlocks()
		if len(blocks) != 1 || blocks[0].Name != "offered.txt" || blocks[0].MIMEType != "text/plain" || blocks[0].Digest == nil || blocks[0].Digest.Value != digestOf([]byte("offered"))["value"] {
			t.Fatalf("%s: files_read gave %+v to a client that takes files", version, blocks)
		}
		_, r := toolCall(t, dl, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "x", "file_uris": []string{blocks[0].URI}})
		if r.Error == nil || r.Error.Code != -32602 || r.Error.Data["reason"] != filetransfer.ReasonTransferMode {
			t.Errorf("%s: a file URI from a client that declared no upload: %+v", version, r.Error)
		}

		// Both: an upload is authorized.
		declaring := newFilesClient(t, alice.Token, version, declaresFiles)
		if a := authorizeUpload(t, declaring, "photo.png", "image/png", photo, digestOf(photo)); a.Upload.Method != "PUT" {
			t.Fatalf("%s: authorizeUpload for a client that declares files: %+v", version, a)
		}
	}
}

// acceptShowing waits for the post titled marker to be asked of u, checks
// that its page shows each of wants, accepts it, and answers what the
// waiting call (done) then said.
func acceptShowing(t *testing.T, u harness.User, marker string, done <-chan callResult, wants ...string) tools.WriteResult {
	t.Helper()
	id := waitPending(t, u, marker)
	_, question := get(t, browser(t, u), confirmBase()+"/"+id, "")
	for _, want := range wants {
		if !strings.Contains(question, want) {
			t.Errorf("the question does not show %q", want)
		}
	}
	answerOnPage(t, u, id, "accept", marker)
	res := <-done
	var out tools.WriteResult
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.PostID == "" {
		t.Fatalf("the post was accepted but the call answered: %s", res.text())
	}
	return out
}
