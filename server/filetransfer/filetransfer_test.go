package filetransfer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

const alice, bob = "aliceaaaaaaaaaaaaaaaaaaaaa", "bobbbbbbbbbbbbbbbbbbbbbbbb"

// helloSHA is the sha256 of "hello", and helloDigest the same as the SEP
// writes it.
const (
	helloSHA    = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	helloDigest = "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ"
)

// both and downloads are the capabilities of a client of the newest
// draft, declaring both halves or downloads only.
var (
	both      = &Capability{Upload: true, Download: true, Transports: []string{"https"}}
	downloads = &Capability{Download: true}
)

type fakeBackend struct {
	caller  string
	stored  []Inline
	refs    []Ref
	uploads []UploadRequest
}

func (f *fakeBackend) Caller(context.Context) string { return f.caller }
func (f *fakeBackend) MaxFileBytes() int64           { return 50 << 20 }
func (f *fakeBackend) Upload(_ context.Context, r UploadRequest) (Upload, error) {
	if r.Name == "bad/name" {
		return Upload{}, refusal.New("That name cannot be kept.", "Rename it.")
	}
	f.uploads = append(f.uploads, r)
	return Upload{UserID: f.caller, Name: r.Name, URL: "https://mm.example/plugins/mcp-server/files/upload/tok", ExpiresAt: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)}, nil
}
func (f *fakeBackend) Download(_ context.Context, ref Ref) (Download, error) {
	f.refs = append(f.refs, ref)
	if ref.Name == "gone.txt" {
		return Download{}, ErrNotFound
	}
	return Download{URL: "https://mm.example/d/tok", ExpiresAt: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC),
		Name: "deck.pdf", MIMEType: "application/pdf", Size: 3, SHA256: helloSHA}, nil
}
func (f *fakeBackend) Store(_ context.Context, in Inline) (string, error) {
	f.stored = append(f.stored, in)
	return "stored-" + in.FileName(), nil
}

func service(caller string) (*Service, *fakeBackend) {
	b := &fakeBackend{caller: caller}
	return &Service{Backend: b, TakesFiles: func(t string) bool { return t == "create_post" }, GivesFiles: func(t string) bool { return t == "read_file" }}, b
}

func TestAFileURINamesItsPersonAndReadsBackAsWhatItWasMadeFor(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want Ref
	}{
		{WorkspaceURI(alice, "deck (2).pdf"), Ref{alice, KindWorkspace, "deck (2).pdf"}},
		{WorkspaceURI(alice, "ü/../x.txt"), Ref{alice, KindWorkspace, "ü/../x.txt"}},
		{AttachmentURI(bob, "fileidfileidfileidfileid12"), Ref{bob, KindAttachment, "fileidfileidfileidfileid12"}},
	} {
		got, err := ParseURI(tc.uri)
		if err != nil || got != tc.want {
			t.Errorf("ParseURI(%q) = %+v, %v; want %+v", tc.uri, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "mcp-file://other/x", "mcp-file://mattermost/short/workspace/x", "mcp-file://mattermost/" + alice + "/workspace/",
		"mcp-file://mattermost/" + alice + "/attachment/not-an-id", "mcp-file://mattermost/" + alice + "/secret/x", "mcp-file://mattermost/" + alice + "/workspace/%zz",
		"mcp-file://mattermost/" + alice + "/workspace/" + strings.Repeat("a", maxURIBytes)} {
		if _, err := ParseURI(bad); !errors.Is(err, ErrNotAFileURI) {
			t.Errorf("ParseURI(%.80q) = %v, want ErrNotAFileURI", bad, err)
		}
	}
}

func TestADataURIIsReadWithItsNameAndTypeAndOneOverTheBoundIsRefusedBeforeItIsDecoded(t *testing.T) {
	for _, tc := range []struct {
		uri, name, typ, data string
	}{
		{"data:text/plain;name=tiny.txt;base64,SGVsbG8gd29ybGQh", "tiny.txt", "text/plain", "Hello world!"},
		{"data:text/plain;name=tiny.txt;base64,SGVsbG8gd29ybGQ", "tiny.txt", "text/plain", "Hello world"},
		{"data:,a%20b", "", "text/plain", "a b"},
		{"DATA:Image/PNG;name=%C3%BC.png;base64,iVBORw==", "ü.png", "image/png", "\x89PNG"},
	} {
		in, err := ParseDataURI(tc.uri)
		if err != nil || in.Name != tc.name || in.MediaType != tc.typ || string(in.Data) != tc.data {
			t.Errorf("ParseDataURI(%q) = %+v, %v", tc.uri, in, err)
		}
	}
	for _, bad := range []string{"data:text/plain;base64", "data:text/plain;base64,!!!", "data:a b c;base64,AA==", "data:," + "%zz", "http://x"} {
		if _, err := ParseDataURI(bad); err == nil {
			t.Errorf("ParseDataURI(%q) read", bad)
		}
	}
	over := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(make([]byte, MaxInlineBytes+3))
	if _, err := ParseDataURI(over); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a data: URI over %d bytes: %v", MaxInlineBytes, err)
	}
	exact := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(make([]byte, MaxInlineBytes))
	if in, err := ParseDataURI(exact); err != nil || len(in.Data) != MaxInlineBytes {
		t.Errorf("a data: URI of exactly %d bytes: %v", MaxInlineBytes, err)
	}
}

func TestAClientThatDeclaredNoTransferIsRefusedBothMethodsWithWhatToDoInstead(t *testing.T) {
	s, _ := service(alice)
	for _, c := range []*Capability{nil, {}, {Upload: true, Download: true, Transports: []string{"ftp"}}} {
		for _, m := range []string{MethodAuthorizeUpload, MethodAuthorizeDownload} {
			_, e := s.Serve(context.Background(), c, m, json.RawMessage(`{"name":"a.txt","size":1,"uri":"x"}`))
			if e == nil || e.Code != -32601 || !strings.Contains(e.Message, "files[]") {
				t.Errorf("%s with %+v: %+v", m, c, e)
			}
		}
	}
	if _, e := s.Serve(context.Background(), downloads, MethodAuthorizeUpload, json.RawMessage(`{"size":1}`)); e == nil || !strings.Contains(e.Message, `"upload": true`) {
		t.Errorf("authorizeUpload for a client that declared only downloads: %+v", e)
	}
}

func TestTheAprilDraftsMethodsAnswerWhereTheyWent(t *testing.T) {
	s, _ := service(alice)
	for old, now := range map[string]string{"files/prepareUpload": MethodAuthorizeUpload, "files/getDownload": MethodAuthorizeDownload} {
		_, e := s.Serve(context.Background(), both, old, json.RawMessage(`{"name":"a.txt","size":1}`))
		if e == nil || e.Code != -32601 || !strings.Contains(e.Message, now) {
			t.Errorf("%s: %+v, want a -32601 naming %s", old, e, now)
		}
	}
}

func TestAuthorizeUploadAnswersAFileValueWithTheDigestAndAPutHeldToTheSizeAndSHA256(t *testing.T) {
	s, b := service(alice)
	res, e := s.Serve(context.Background(), both, MethodAuthorizeUpload,
		json.RawMessage(`{"name":"deck.pdf","mimeType":"application/pdf","size":5,"digest":{"algorithm":"sha-256","value":"`+helloDigest+`"}}`))
	if e != nil {
		t.Fatal(e.Message)
	}
	a := res.(AuthorizedUpload)
	if a.File.URI != WorkspaceURI(alice, "deck.pdf") || a.File.Size != 5 || a.File.Digest == nil || *a.File.Digest != (Digest{DigestSHA256, helloDigest}) ||
		a.Upload.Method != "PUT" || a.Upload.Transport != "https" || a.Upload.Headers["Content-Type"] != "application/pdf" || a.Upload.ExpiresAt != "2026-12-04T05:00:00Z" {
		t.Errorf("authorized %+v", a)
	}
	if r := b.uploads[0]; r.SHA256 != helloSHA || r.Size == nil || *r.Size != 5 {
		t.Errorf("the upload is held to %+v, want exactly 5 bytes of sha256 %s", r, helloSHA)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "multipart") || !strings.Contains(string(raw), `"upload":{"transport":"https","method":"PUT"`) {
		t.Errorf("the answer on the wire: %s", raw)
	}
}

func TestAuthorizeUploadWithoutNameSizeOrDigestStillAuthorizesANamedUpload(t *testing.T) {
	s, b := service(alice)
	res, e := s.Serve(context.Background(), both, MethodAuthorizeUpload, json.RawMessage(`{"mimeType":"text/plain"}`))
	if e != nil {
		t.Fatal(e.Message)
	}
	if a := res.(AuthorizedUpload); a.File.Name != "file.txt" || a.File.Digest != nil || b.uploads[0].Size != nil || b.uploads[0].SHA256 != "" {
		t.Errorf("authorized %+v held to %+v", a, b.uploads[0])
	}
}

func TestAuthorizeUploadRefusesWhatItCannotHoldWithTheReasonAndWhatToDo(t *testing.T) {
	s, b := service(alice)
	for params, want := range map[string]struct{ reason, text string }{
		`{"name":"a.txt","size":-1}`:                                                            {ReasonInvalidParams, "0 or more"},
		`{"name":"` + strings.Repeat("a", 256) + `","size":1}`:                                  {ReasonInvalidParams, "at most 255 bytes"},
		`{"name":"a.txt","size":99999999999}`:                                                   {ReasonMaxSizeExceeded, "at most 52428800 bytes"},
		`{"name":"a.txt","mimeType":"not a type"}`:                                              {ReasonInvalidMediaType, "application/pdf"},
		`{"name":"a.txt","size":1,"digest":{"algorithm":"md5","value":"x"}}`:                    {ReasonDigestAlgorithm, "sha-256"},
		`{"name":"a.txt","size":1,"digest":{"algorithm":"sha-256","value":"` + helloSHA + `"}}`: {ReasonInvalidDigest, "base64url"},
		`{"name":"a.txt","size":1,"digest":{"algorithm":"sha-256","value":"AAAA"}}`:             {ReasonInvalidDigest, "43 characters"},
		`[1]`: {ReasonInvalidParams, "takes {name, mimeType, size, digest"},
	} {
		_, e := s.Serve(context.Background(), both, MethodAuthorizeUpload, json.RawMessage(params))
		raw, _ := json.Marshal(e)
		if e == nil || e.Code != -32602 || e.Data.(map[string]any)["reason"] != want.reason || !strings.Contains(e.Message, want.text) {
			t.Errorf("%.80s: %s, want %s and %q", params, raw, want.reason, want.text)
		}
	}
	_, e := s.Serve(context.Background(), both, MethodAuthorizeUpload, json.RawMessage(`{"name":"a.txt","size":99999999999}`))
	if d := e.Data.(map[string]any); d["maxSize"] != int64(50<<20) || d["actualSize"] != int64(99999999999) {
		t.Errorf("maxSizeExceeded says %+v", d)
	}
	if _, e := s.Serve(context.Background(), both, MethodAuthorizeUpload, json.RawMessage(`{"name":"bad/name","size":1}`)); e == nil || e.Code != -32602 || !strings.Contains(e.Message, "Rename it.") {
		t.Errorf("the backend's refusal: %+v", e)
	}
	if len(b.uploads) != 0 {
		t.Errorf("a refused authorization reached the backend: %+v", b.uploads)
	}
}

func TestAuthorizeDownloadResolvesTheCallersOwnURIAndAnotherPersonsIsNotFound(t *testing.T) {
	s, b := service(alice)
	uri := AttachmentURI(alice, "fileidfileidfileidfileid12")
	res, e := s.Serve(context.Background(), downloads, MethodAuthorizeDownload, json.RawMessage(`{"uri":"`+uri+`"}`))
	if e != nil || len(b.refs) != 1 || b.refs[0].Kind != KindAttachment {
		t.Fatalf("%+v %+v %+v", res, e, b.refs)
	}
	a := res.(AuthorizedDownload)
	if a.File.URI != uri || a.File.Size != 3 || a.File.Name != "deck.pdf" || a.File.Digest == nil || a.File.Digest.Value != helloDigest || a.Download.Method != "GET" {
		t.Errorf("authorized %+v", a)
	}
	for uri, reason := range map[string]string{
		WorkspaceURI(bob, "deck.pdf"):   ReasonNotFound,
		WorkspaceURI(alice, "gone.txt"): ReasonNotFound,
		"https://evil.example/x":        ReasonInvalidURI,
	} {
		_, e := s.Serve(context.Background(), downloads, MethodAuthorizeDownload, json.RawMessage(`{"uri":"`+uri+`"}`))
		if e == nil || e.Code != -32602 || e.Data.(map[string]any)["reason"] != reason {
			t.Errorf("%s: %+v, want %s", uri, e, reason)
		}
	}
	if len(b.refs) != 2 {
		t.Errorf("another person's URI reached the backend: %+v", b.refs)
	}
}

// listed is a tools/list result as a client reads it.
type listed struct {
	Tools []struct {
		Name        string
		InputSchema struct{ Properties map[string]map[string]any }
		InputFiles  any `json:"inputFiles"`
	}
	NextCursor string `json:"nextCursor"`
}

func TestTheToolsThatTakeFilesAreListedWithFileURIsMarkedByXMCPFile(t *testing.T) {
	s, _ := service(alice)
	list := json.RawMessage(`{"tools":[{"name":"create_post","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},{"name":"get_me","inputSchema":{"type":"object"}}],"nextCursor":"x"}`)
	for _, tc := range []struct {
		cap     *Capability
		modes   []any
		maxSize float64
	}{
		{both, []any{"inline", "upload"}, 50 << 20},
		{downloads, []any{"inline"}, MaxInlineBytes},
	} {
		out := s.DecorateTools(tc.cap, list)
		var res listed
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		post, me := res.Tools[0], res.Tools[1]
		prop := post.InputSchema.Properties[URIsArgument]
		items, _ := prop["items"].(map[string]any)
		file, _ := items[SchemaKeyword].(map[string]any)
		if prop["type"] != "array" || items["type"] != "string" || items["format"] != "uri" || post.InputSchema.Properties["message"] == nil || res.NextCursor != "x" ||
			file["maxSize"] != tc.maxSize || !reflect.DeepEqual(file["transferModes"], tc.modes) || file["accept"] != nil || post.InputFiles != nil {
			t.Errorf("create_post for %+v is listed as %s", tc.cap, out)
		}
		if me.InputSchema.Properties[URIsArgument] != nil || strings.Count(string(out), SchemaKeyword) != 1 {
			t.Errorf("get_me takes no files but is listed with them: %s", out)
		}
	}
}

func TestFileURIsOfACallJoinItsFilesAndADataURIIsStoredFirst(t *testing.T) {
	s, b := service(alice)
	args := `{"message":"hi","files":[{"name":"a.md","content":"x"}],"file_uris":["` + WorkspaceURI(alice, "deck.pdf") + `","` +
		AttachmentURI(alice, "fileidfileidfileidfileid12") + `","data:text/plain;name=n.txt;base64,aGk="]}`
	out, e := s.Arguments(context.Background(), both, json.RawMessage(args))
	if e != nil {
		t.Fatal(e.Message)
	}
	want := `{"files":[{"content":"x","name":"a.md"},{"workspace_file":"deck.pdf"},{"file_id":"fileidfileidfileidfileid12"},{"workspace_file":"stored-n.txt"}],"message":"hi"}`
	if string(out) != want {
		t.Errorf("arguments became\n%s\nwant\n%s", out, want)
	}
	if len(b.stored) != 1 || string(b.stored[0].Data) != "hi" {
		t.Errorf("stored %+v", b.stored)
	}
	if out, e := s.Arguments(context.Background(), both, json.RawMessage(`{"message":"hi"}`)); e != nil || string(out) != `{"message":"hi"}` {
		t.Errorf("arguments without file URIs changed: %s %+v", out, e)
	}
	for args, want := range map[string]string{
		`{"file_uris":["` + WorkspaceURI(bob, "deck.pdf") + `"]}`: "file_uris[0]: No such file",
		`{"file_uris":"x"}`:                                     "array of URI strings",
		`{"file_uris":["https://x"]}`:                           "not a file URI",
		`{"file_uris":[` + strings.Repeat(`"x",`, 10) + `"x"]}`: "at most 10",
	} {
		_, e := s.Arguments(context.Background(), both, json.RawMessage(args))
		if e == nil || e.Code != -32602 || !strings.Contains(e.Message, want) {
			t.Errorf("%.60s: %+v, want %q", args, e, want)
		}
	}
}

func TestAGivenFileBecomesAFileContentBlockOnlyForAClientThatTakesThem(t *testing.T) {
	res := json.RawMessage(`{"content":[{"type":"text","text":"read"}],"_meta":{"mattermost/file_value":{"uri":"mcp-file://mattermost/x","name":"a.pdf","size":3},"ui":1}}`)
	if got := string(Result(res, true)); got != `{"_meta":{"ui":1},"content":[{"type":"text","text":"read"},{"type":"file","file":{"uri":"mcp-file://mattermost/x","name":"a.pdf","size":3}}]}` {
		t.Errorf("for a client that takes files: %s", got)
	}
	if got := string(Result(res, false)); got != `{"_meta":{"ui":1},"content":[{"type":"text","text":"read"}]}` {
		t.Errorf("for a client that does not: %s", got)
	}
	plain := json.RawMessage(`{"content":[]}`)
	if got := string(Result(plain, true)); got != `{"content":[]}` {
		t.Errorf("a result giving no file changed: %s", got)
	}
}

func TestAClientThatDeclaredNoUploadIsRefusedAFileURIAndGivesDataURIs(t *testing.T) {
	s, b := service(alice)
	_, e := s.Arguments(context.Background(), downloads, json.RawMessage(`{"file_uris":["`+WorkspaceURI(alice, "deck.pdf")+`"]}`))
	if e == nil || e.Code != -32602 || e.Data.(map[string]any)["reason"] != ReasonTransferMode || !strings.Contains(e.Message, "data: URI") {
		t.Errorf("a file URI from a client that declared no upload: %+v", e)
	}
	out, e := s.Arguments(context.Background(), downloads, json.RawMessage(`{"file_uris":["data:text/plain;base64,aGk="]}`))
	if e != nil || string(out) != `{"files":[{"workspace_file":"stored-file.txt"}]}` || len(b.stored) != 1 {
		t.Errorf("a data: URI from that client: %s %+v", out, e)
	}
	over := `{"file_uris":["data:;base64,` + base64.StdEncoding.EncodeToString(make([]byte, MaxInlineBytes+1)) + `"]}`
	if _, e := s.Arguments(context.Background(), both, json.RawMessage(over)); e == nil || e.Data.(map[string]any)["reason"] != ReasonMaxSizeExceeded || !strings.Contains(e.Message, MethodAuthorizeUpload) {
		t.Errorf("a data: URI over the bound: %+v", e)
	}
}

func TestAGivenFileKeepsItsDigestInTheFileContentBlock(t *testing.T) {
	res := json.RawMessage(`{"content":[],"_meta":{"mattermost/file_value":{"uri":"mcp-file://mattermost/x","size":5,"digest":{"algorithm":"sha-256","value":"` + helloDigest + `"}}}}`)
	want := `{"content":[{"type":"file","file":{"uri":"mcp-file://mattermost/x","size":5,"digest":{"algorithm":"sha-256","value":"` + helloDigest + `"}}}]}`
	if got := string(Result(res, true)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestADigestIsReadAsTheHexSHA256AndWrittenBackAsBase64URL(t *testing.T) {
	for _, d := range []Digest{{"sha-256", helloDigest}, {"SHA-256", helloDigest + "="}, {" sha-256 ", " " + helloDigest}} {
		if got, err := d.SHA256Hex(); err != nil || got != helloSHA {
			t.Errorf("%+v read as %q, %v", d, got, err)
		}
	}
	for _, d := range []Digest{{"sha256", helloDigest}, {"sha-512", helloDigest}, {"", helloDigest}} {
		if _, err := d.SHA256Hex(); !errors.Is(err, errDigestAlgorithm) {
			t.Errorf("%+v: %v, want an unsupported algorithm", d, err)
		}
	}
	std := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\xff", 32)))
	for _, v := range []string{"", helloSHA, helloDigest[:42], helloDigest + "A", std, strings.Repeat("A", 200), "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCR"} {
		if _, err := (Digest{"sha-256", v}).SHA256Hex(); !errors.Is(err, errDigestValue) {
			t.Errorf("value %.50q: %v, want an invalid digest", v, err)
		}
	}
	if d := DigestOfHex(helloSHA); d == nil || *d != (Digest{DigestSHA256, helloDigest}) {
		t.Errorf("DigestOfHex = %+v", d)
	}
	if DigestOfHex("") != nil || DigestOfHex("zz") != nil {
		t.Error("a file without a sha256 has a digest")
	}
}

func TestAFileGivenWithoutANameIsNamedAfterItsTypeWithTheExtensionPeopleExpect(t *testing.T) {
	for typ, want := range map[string]string{
		"text/plain":                "file.txt",
		"text/plain; charset=utf-8": "file.txt",
		"image/jpeg":                "file.jpg",
		"application/pdf":           "file.pdf",
		"application/octet-stream":  "file.bin",
		"application/x-unknown-1":   "file",
		"":                          "file",
		"not a type":                "file",
	} {
		if got := NameFor(typ); got != want {
			t.Errorf("NameFor(%q) = %q, want %q", typ, got, want)
		}
	}
	if got := (Inline{Name: "notes.md", MediaType: "text/plain"}).FileName(); got != "notes.md" {
		t.Errorf("a named inline file is kept as %q", got)
	}
	in, err := ParseDataURI("data:text/plain;base64,aGk=")
	if err != nil || in.FileName() != "file.txt" {
		t.Errorf("an unnamed text data: URI is kept as %q (%v)", in.FileName(), err)
	}
}

func TestAFilesMediaTypeIsReadFromItsNameAndNeverFromAWordedDescription(t *testing.T) {
	for name, want := range map[string]string{"notes.txt": "text/plain", "Photo.JPG": "image/jpeg", "deck.pdf": "application/pdf", "x.docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "README": "", "a.zzzunknown": ""} {
		if got := TypeOf(name); got != want {
			t.Errorf("TypeOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestACapabilityIsReadFromTheClientsCapabilitiesAndBounded(t *testing.T) {
	c := ParseCapability(json.RawMessage(`{"files":{"upload":true,"download":true,"transports":["https","a","b","c","d","e","f","g","h","i"]},"elicitation":{}}`))
	if !c.Uploads() || !c.Outputs() || !c.Inputs() || len(c.Transports) != maxTransports {
		t.Errorf("%+v", c)
	}
	if ParseCapability(json.RawMessage(`{"elicitation":{}}`)) != nil || ParseCapability(json.RawMessage(`nonsense`)) != nil {
		t.Error("a client that declared no files capability has one")
	}
	if c := ParseCapability(json.RawMessage(`{"files":{"download":true}}`)); c.Uploads() || !c.Outputs() || !c.Inputs() {
		t.Errorf("download only: %+v", c)
	}
	if c := ParseCapability(json.RawMessage(`{"files":{"inputTransfer":true,"output":true,"transports":["https"]}}`)); c.Inputs() {
		t.Errorf("the April draft's declaration is read as the newest: %+v", c)
	}
}
