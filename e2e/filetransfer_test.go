package e2e

// Issue 44: a client that declares the files capability of the draft
// SEP-2631 (File Objects and Transfer) gives the person's file by its own
// transfer: files/prepareUpload, a PUT to the descriptor, the file URI in
// file_uris of a posting tool; or a data: URI. A tool that reads a file
// gives it back as a file content block, which files/getDownload
// resolves. A client that declared nothing sees none of it.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
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

var declaresFiles = map[string]any{"files": map[string]any{"inputTransfer": true, "output": true, "transports": []string{"https"}}}

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
		t.Fatalf("%s: %d %s", method, code, body)
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
	Name        string                    `json:"name"`
	InputSchema map[string]any            `json:"inputSchema"`
	InputFiles  map[string]map[string]any `json:"inputFiles"`
}

func listedTool(t *testing.T, c *filesClient, name string) toolListed {
	t.Helper()
	r := c.call(t, "tools/list", map[string]any{})
	var res struct{ Tools []toolListed }
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("tools/list: %+v %s", r.Error, r.Result)
	}
	for _, tool := range res.Tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("tools/list has no %s", name)
	return toolListed{}
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

func TestAClientOfTheFileTransferDraftPostsThePersonsFileByFileURIAndByDataURIAndDownloadsWhatItReads(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice, bob := mm.Users[0], mm.Users[1]
	c := newFilesClient(t, alice.Token, "2025-11-25", declaresFiles)

	// create_post declares its file field, and takes file URIs in it.
	post := listedTool(t, c, "create_post")
	if post.InputFiles[filetransfer.URIsArgument] == nil || post.InputSchema["properties"].(map[string]any)[filetransfer.URIsArgument] == nil {
		t.Fatalf("create_post is listed without file_uris for a client that sends file URIs: %+v", post)
	}
	if get := listedTool(t, c, "get_me"); get.InputFiles != nil {
		t.Errorf("get_me takes no file but declares %v", get.InputFiles)
	}

	// Prepare, then upload to the descriptor as it says.
	report := append([]byte("%PDF-1.4\n% the person's report\n"), randomBytes(t, 300<<10)...)
	r := c.call(t, filetransfer.MethodPrepareUpload, map[string]any{"name": "report.pdf", "mimeType": "application/pdf", "size": len(report)})
	var prepared filetransfer.Prepared
	if r.Error != nil || json.Unmarshal(r.Result, &prepared) != nil || !strings.HasPrefix(prepared.File.URI, "mcp-file://mattermost/") {
		t.Fatalf("files/prepareUpload: %+v %s", r.Error, r.Result)
	}
	put, _ := http.NewRequest(prepared.Transfer.Method, prepared.Transfer.URL, bytes.NewReader(report))
	for k, v := range prepared.Transfer.Headers {
		put.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(put)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("the upload to the descriptor: %v %v", err, resp)
	}
	resp.Body.Close()

	// The file URI and a data: URI of the person's notes post after the
	// person accepts; the question shows both files as every file.
	notes := []byte("notes the person chose\n")
	dataURI := "data:text/plain;name=notes.txt;base64," + base64.StdEncoding.EncodeToString(notes)
	marker := uniq(t, "sep2631")
	done := make(chan callResult, 1)
	go func() {
		res, _ := toolCall(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker, "file_uris": []string{prepared.File.URI, dataURI}})
		done <- res
	}()
	id := waitPending(t, alice, marker)
	_, question := get(t, browser(t, alice), confirmBase()+"/"+id, "")
	// The page shows each sha256 by its first 12 digits.
	for _, want := range []string{prepared.File.Name, "notes", sum(report)[:12], sum(notes)[:12]} {
		if !strings.Contains(question, want) {
			t.Errorf("the question does not show %s", want)
		}
	}
	answerOnPage(t, alice, id, "accept", marker)
	res := <-done
	var out tools.WriteResult
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.PostID == "" {
		t.Fatalf("create_post with file URIs: %s", res.text())
	}
	files, infos := postedFilesAs(t, alice, out.PostID)
	// Each keeps its name, or takes a free one beside a workspace file
	// of that name: the bytes are what count.
	sums := map[string]string{}
	for name, b := range files {
		sums[sum(b)] = name
	}
	reportName := sums[sum(report)]
	if len(files) != 2 || reportName != prepared.File.Name || !strings.HasPrefix(sums[sum(notes)], "notes") {
		t.Fatalf("the post's files: %v, want %s and notes.txt", sums, prepared.File.Name)
	}

	// read_file gives the attachment as a file; getDownload resolves it
	// to its bytes, without credentials.
	read, _ := toolCall(t, c, "read_file", map[string]any{"file_id": infos[reportName].Id})
	blocks := read.fileBlocks()
	if read.IsError || len(blocks) != 1 || blocks[0].Name != reportName || blocks[0].Size != int64(len(report)) {
		t.Fatalf("read_file gave %v: %.300s", blocks, read.text())
	}
	r = c.call(t, filetransfer.MethodGetDownload, map[string]any{"uri": blocks[0].URI})
	var d filetransfer.Transfer
	if r.Error != nil || json.Unmarshal(r.Result, &d) != nil {
		t.Fatalf("files/getDownload: %+v", r.Error)
	}
	if got := download(t, d); sum(got) != sum(report) {
		t.Fatalf("the download is %d bytes, not the attachment's %d", len(got), len(report))
	}

	// Another person's file URI is not found, whichever way it is used.
	other := newFilesClient(t, bob.Token, "2025-11-25", declaresFiles)
	r = other.call(t, filetransfer.MethodGetDownload, map[string]any{"uri": prepared.File.URI})
	if r.Error == nil || r.Error.Code != -32602 || r.Error.Data["reason"] != "notFound" {
		t.Errorf("bob's getDownload of alice's file: %+v", r.Error)
	}
	_, r = toolCall(t, other, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "x", "file_uris": []string{prepared.File.URI}})
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "No such file") {
		t.Errorf("bob's post with alice's file URI: %+v", r.Error)
	}
}

func TestFileTransferIsOfferedExactlyToAClientThatDeclaresItOnEitherRevision(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	photo := noisePNG(t, 64, 48)
	for _, version := range []string{"2025-11-25", mcp.LATEST_PROTOCOL_VERSION} {
		plain := newFilesClient(t, alice.Token, version, map[string]any{})
		if post := listedTool(t, plain, "create_post"); post.InputFiles != nil || post.InputSchema["properties"].(map[string]any)[filetransfer.URIsArgument] != nil {
			t.Errorf("%s: a client that declared nothing is listed file_uris: %+v", version, post)
		}
		for _, m := range []string{filetransfer.MethodPrepareUpload, filetransfer.MethodGetDownload} {
			if r := plain.call(t, m, map[string]any{"name": "a.txt", "size": 1, "uri": "x"}); r.Error == nil || r.Error.Code != -32601 {
				t.Errorf("%s: %s for a client that declared nothing: %+v", version, m, r.Error)
			}
		}
		res, _ := toolCall(t, plain, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "x", "file_uris": []string{"data:,x"}})
		if !res.IsError || !strings.Contains(res.text(), `no argument "file_uris"`) {
			t.Errorf("%s: file_uris from a client that declared nothing: %s", version, res.text())
		}
		ws, _ := toolCall(t, plain, "files_write", map[string]any{"name": "offered.txt", "text": "x"})
		read, _ := toolCall(t, plain, "files_read", map[string]any{"name": "offered.txt"})
		if ws.IsError || read.IsError || len(read.fileBlocks()) != 0 {
			t.Errorf("%s: files_read gave a file block to a client that takes none: %s", version, read.text())
		}

		// The same revision, declaring files: offered.
		declaring := newFilesClient(t, alice.Token, version, declaresFiles)
		r := declaring.call(t, filetransfer.MethodPrepareUpload, map[string]any{"name": "photo.png", "mimeType": "image/png", "size": len(photo)})
		var prepared filetransfer.Prepared
		if r.Error != nil || json.Unmarshal(r.Result, &prepared) != nil || prepared.Transfer.Method != "PUT" {
			t.Fatalf("%s: prepareUpload for a client that declares files: %+v", version, r.Error)
		}
		read, _ = toolCall(t, declaring, "files_read", map[string]any{"name": "offered.txt"})
		if blocks := read.fileBlocks(); len(blocks) != 1 || blocks[0].Name != "offered.txt" {
			t.Errorf("%s: files_read gave %v to a client that takes files", version, blocks)
		}
	}
}
