package filetransfer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

const alice, bob = "aliceaaaaaaaaaaaaaaaaaaaaa", "bobbbbbbbbbbbbbbbbbbbbbbbb"

type fakeBackend struct {
	caller string
	stored []Inline
	refs   []Ref
}

func (f *fakeBackend) Caller(context.Context) string { return f.caller }
func (f *fakeBackend) MaxFileBytes() int64           { return 50 << 20 }
func (f *fakeBackend) Upload(_ context.Context, name string, size int64) (Upload, error) {
	if name == "bad/name" {
		return Upload{}, refusal.New("That name cannot be kept.", "Rename it.")
	}
	return Upload{UserID: f.caller, Name: name, URL: "https://mm.example/plugins/mcp-server/files/upload/tok", ExpiresAt: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)}, nil
}
func (f *fakeBackend) Download(_ context.Context, ref Ref) (Download, error) {
	f.refs = append(f.refs, ref)
	if ref.Name == "gone.txt" {
		return Download{}, ErrNotFound
	}
	return Download{URL: "https://mm.example/d/tok", ExpiresAt: time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)}, nil
}
func (f *fakeBackend) Store(_ context.Context, in Inline) (string, error) {
	f.stored = append(f.stored, in)
	return "stored-" + in.Name, nil
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
	for _, c := range []*Capability{nil, {}, {InputTransfer: true, Transports: []string{"ftp"}}} {
		for _, m := range []string{MethodPrepareUpload, MethodGetDownload} {
			_, e := s.Serve(context.Background(), c, m, json.RawMessage(`{"name":"a.txt","size":1,"uri":"x"}`))
			if e == nil || e.Code != -32601 || !strings.Contains(e.Message, "files[]") {
				t.Errorf("%s with %+v: %+v", m, c, e)
			}
		}
	}
}

func TestPrepareUploadAnswersAFileValueOfTheCallersWorkspaceAndAPutDescriptor(t *testing.T) {
	s, _ := service(alice)
	c := &Capability{InputTransfer: true, Transports: []string{"https"}}
	res, e := s.Serve(context.Background(), c, MethodPrepareUpload, json.RawMessage(`{"name":"deck.pdf","mimeType":"application/pdf","size":248123}`))
	if e != nil {
		t.Fatal(e.Message)
	}
	p := res.(Prepared)
	if p.File.URI != WorkspaceURI(alice, "deck.pdf") || p.File.Size != 248123 || p.Transfer.Method != "PUT" || p.Transfer.Transport != "https" ||
		p.Transfer.Headers["Content-Type"] != "application/pdf" || p.Transfer.ExpiresAt != "2026-12-04T05:00:00Z" {
		t.Errorf("prepared %+v", p)
	}
	for params, want := range map[string]string{
		`{"name":"a.txt"}`:                    "size must be",
		`{"name":"","size":1}`:                "name must be",
		`{"name":"a.txt","size":99999999999}`: "maxFileSizeExceeded",
		`{"name":"bad/name","size":1}`:        "Rename it.",
		`[1]`:                                 "takes {name, mimeType, size}",
	} {
		_, e := s.Serve(context.Background(), c, MethodPrepareUpload, json.RawMessage(params))
		raw, _ := json.Marshal(e)
		if e == nil || e.Code != -32602 || !strings.Contains(string(raw), want) {
			t.Errorf("%s: %s, want %q", params, raw, want)
		}
	}
}

func TestGetDownloadResolvesTheCallersOwnURIAndAnotherPersonsIsNotFound(t *testing.T) {
	s, b := service(alice)
	c := &Capability{Output: true}
	res, e := s.Serve(context.Background(), c, MethodGetDownload, json.RawMessage(`{"uri":"`+AttachmentURI(alice, "fileidfileidfileidfileid12")+`"}`))
	if e != nil || res.(Transfer).Method != "GET" || len(b.refs) != 1 || b.refs[0].Kind != KindAttachment {
		t.Fatalf("%+v %+v %+v", res, e, b.refs)
	}
	for uri, reason := range map[string]string{
		WorkspaceURI(bob, "deck.pdf"):   "notFound",
		WorkspaceURI(alice, "gone.txt"): "notFound",
		"https://evil.example/x":        "invalidUri",
	} {
		_, e := s.Serve(context.Background(), c, MethodGetDownload, json.RawMessage(`{"uri":"`+uri+`"}`))
		if e == nil || e.Code != -32602 || e.Data.(map[string]any)["reason"] != reason {
			t.Errorf("%s: %+v, want %s", uri, e, reason)
		}
	}
	if len(b.refs) != 2 {
		t.Errorf("another person's URI reached the backend: %+v", b.refs)
	}
}

func TestTheToolsThatTakeFilesAreListedWithFileURIsAndTheirInputFilesDeclaration(t *testing.T) {
	s, _ := service(alice)
	out := s.DecorateTools(json.RawMessage(`{"tools":[{"name":"create_post","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},{"name":"get_me","inputSchema":{"type":"object"}}],"nextCursor":"x"}`))
	var res struct {
		Tools []struct {
			Name        string
			InputSchema struct{ Properties map[string]map[string]any }
			InputFiles  map[string]map[string]any `json:"inputFiles"`
		}
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	post, me := res.Tools[0], res.Tools[1]
	if post.InputSchema.Properties[URIsArgument]["type"] != "array" || post.InputSchema.Properties["message"] == nil ||
		post.InputFiles[URIsArgument]["maxFileSize"] != float64(50<<20) || res.NextCursor != "x" {
		t.Errorf("create_post is listed as %s", out)
	}
	if me.InputFiles != nil || me.InputSchema.Properties[URIsArgument] != nil {
		t.Errorf("get_me takes no files but is listed with them: %s", out)
	}
}

func TestFileURIsOfACallJoinItsFilesAndADataURIIsStoredFirst(t *testing.T) {
	s, b := service(alice)
	args := `{"message":"hi","files":[{"name":"a.md","content":"x"}],"file_uris":["` + WorkspaceURI(alice, "deck.pdf") + `","` +
		AttachmentURI(alice, "fileidfileidfileidfileid12") + `","data:text/plain;name=n.txt;base64,aGk="]}`
	out, e := s.Arguments(context.Background(), json.RawMessage(args))
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
	if out, e := s.Arguments(context.Background(), json.RawMessage(`{"message":"hi"}`)); e != nil || string(out) != `{"message":"hi"}` {
		t.Errorf("arguments without file URIs changed: %s %+v", out, e)
	}
	for args, want := range map[string]string{
		`{"file_uris":["` + WorkspaceURI(bob, "deck.pdf") + `"]}`: "file_uris[0]: No such file",
		`{"file_uris":"x"}`:                                     "array of URI strings",
		`{"file_uris":["https://x"]}`:                           "not a file URI",
		`{"file_uris":[` + strings.Repeat(`"x",`, 10) + `"x"]}`: "at most 10",
	} {
		_, e := s.Arguments(context.Background(), json.RawMessage(args))
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

func TestACapabilityIsReadFromTheClientsCapabilitiesAndBounded(t *testing.T) {
	c := ParseCapability(json.RawMessage(`{"files":{"inputTransfer":true,"output":true,"transports":["https","a","b","c","d","e","f","g","h","i"]},"elicitation":{}}`))
	if !c.Inputs() || !c.Outputs() || len(c.Transports) != maxTransports {
		t.Errorf("%+v", c)
	}
	if ParseCapability(json.RawMessage(`{"elicitation":{}}`)) != nil || ParseCapability(json.RawMessage(`nonsense`)) != nil {
		t.Error("a client that declared no files capability has one")
	}
	if c := ParseCapability(json.RawMessage(`{"files":{"output":true}}`)); c.Inputs() || !c.Outputs() {
		t.Errorf("output only: %+v", c)
	}
}
