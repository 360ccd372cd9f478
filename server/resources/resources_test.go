package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

type noArgs struct{}
type noOut struct {
	OK bool `json:"ok"`
}

// testCatalogue has the four reading tools the templates read through.
func testCatalogue(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	var tools []catalogue.Tool
	for name, set := range map[string]config.Toolset{"read_file": config.ToolsetFiles, "read_channel": config.ToolsetChannels,
		"read_thread": config.ToolsetChannels, "files_read": config.ToolsetWorkspace} {
		tools = append(tools, catalogue.Define(catalogue.Tool{Name: name, Title: name, Description: name,
			Hints: catalogue.Hints{ReadOnly: true, Idempotent: true}, Effect: catalogue.ReadsOnly, Toolset: set},
			func(context.Context, noArgs) (catalogue.Result[noOut], error) { return catalogue.Result[noOut]{}, nil }))
	}
	cat, err := catalogue.New(tools)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// read is what a template's Read was asked, and answers with.
type read struct {
	template string
	vars     map[string]string
}

func testSet(t *testing.T, answer func(tpl string, vars map[string]string) (Answer, error), list Lister) (*Set, *[]read) {
	t.Helper()
	var reads []read
	var templates []Template
	for _, tpl := range []struct{ uri, name, tool string }{
		{FileTemplate, "attachment", "read_file"}, {ThumbnailTemplate, "thumbnail", "read_file"}, {ChannelTemplate, "channel", "read_channel"},
		{ThreadTemplate, "thread", "read_thread"}, {WorkspaceTemplate, "workspace_file", "files_read"},
	} {
		templates = append(templates, Template{URITemplate: tpl.uri, Name: tpl.name, Title: tpl.name, Description: tpl.name, Tool: tpl.tool,
			Read: func(_ context.Context, vars map[string]string) (Answer, error) {
				reads = append(reads, read{tpl.uri, vars})
				return answer(tpl.uri, vars)
			}})
	}
	s, err := New(testCatalogue(t), templates, list)
	if err != nil {
		t.Fatal(err)
	}
	return s, &reads
}

func textAnswer(string, map[string]string) (Answer, error) { return Answer{Text: "read"}, nil }

func TestAURINamesItsTemplateAndVariablesOrIsNotFound(t *testing.T) {
	for _, tc := range []struct {
		uri      string
		template string
		vars     string
	}{
		{"mattermost://file/abc123", FileTemplate, "file_id=abc123"},
		{"mattermost://file/abc123/thumbnail", ThumbnailTemplate, "file_id=abc123"},
		{"mattermost://channel/engineering/town-square", ChannelTemplate, "channel=town-square team=engineering"},
		{"mattermost://channel/-/%40alice", ChannelTemplate, "channel=@alice team=-"},
		{"mattermost://channel/-/dmchannelid0000000000000000", ChannelTemplate, "channel=dmchannelid0000000000000000 team=-"},
		{"mattermost://thread/post1", ThreadTemplate, "post_id=post1"},
		{"mattermost://workspace/notes%20v2.md", WorkspaceTemplate, "name=notes v2.md"},
		{"mattermost://workspace/r%C3%A9sum%C3%A9.pdf", WorkspaceTemplate, "name=résumé.pdf"},
		// Not found: no template, an empty variable, a segment too many.
		{"mattermost://file/", "", ""},
		{"mattermost://file/%20", "", ""},
		{"mattermost://file//thumbnail", "", ""},
		{"mattermost://file/abc123/preview", "", ""},
		{"mattermost://channel/engineering/", "", ""},
		{"mattermost://channel/engineering/town-square/extra", "", ""},
		{"mattermost://channel/-/@alice", "", ""},
		{"mattermost://post/abc", "", ""},
		{"https://chat.example.com/engineering/pl/abc", "", ""},
		{"", "", ""},
		{"mattermost://workspace/" + strings.Repeat("a", maxURIBytes), "", ""},
	} {
		t.Run(tc.uri[:min(len(tc.uri), 60)], func(t *testing.T) {
			s, reads := testSet(t, textAnswer, nil)
			contents, err := s.Read(context.Background(), tc.uri, config.Defaults(), config.Choice{})
			if err != nil && len(err.Error()) > 1024 {
				t.Fatalf("the refusal quotes %d bytes", len(err.Error()))
			}
			if tc.template == "" {
				if !errors.Is(err, transport.ErrResourceNotFound) || len(*reads) != 0 {
					t.Fatalf("got %v after %d reads, want not found without a read", err, len(*reads))
				}
				if !strings.Contains(err.Error(), "resources/list") {
					t.Errorf("the refusal names no next step: %v", err)
				}
				return
			}
			if err != nil || len(*reads) != 1 || len(contents) != 1 {
				t.Fatalf("got %v, %v, %d reads", contents, err, len(*reads))
			}
			r := (*reads)[0]
			var got []string
			for _, name := range []string{"channel", "file_id", "name", "post_id", "team"} {
				if v, ok := r.vars[name]; ok {
					got = append(got, name+"="+v)
				}
			}
			if r.template != tc.template || strings.Join(got, " ") != tc.vars {
				t.Fatalf("read %s with %v, want %s with %s", r.template, got, tc.template, tc.vars)
			}
		})
	}
}

func TestTheURIsBuiltForListsAndLinksReadBackTheSameValues(t *testing.T) {
	s, reads := testSet(t, textAnswer, nil)
	for _, tc := range []struct{ uri, name, want string }{
		{FileURI("file1id00000000000000000000"), "file_id", "file1id00000000000000000000"},
		{ThreadURI("post1id00000000000000000000"), "post_id", "post1id00000000000000000000"},
		{WorkspaceURI("a b/c@d?e#f%g.txt"), "name", "a b/c@d?e#f%g.txt"},
		{WorkspaceURI("Ünïcode 文件.md"), "name", "Ünïcode 文件.md"},
		{ChannelURI("", "@bob"), "channel", "@bob"},
		{ChannelURI("engineering", "town-square"), "team", "engineering"},
	} {
		*reads = nil
		if _, err := s.Read(context.Background(), tc.uri, config.Defaults(), config.Choice{}); err != nil || len(*reads) != 1 {
			t.Fatalf("%s: %v", tc.uri, err)
		}
		if got := (*reads)[0].vars[tc.name]; got != tc.want {
			t.Errorf("%s gives %s=%q, want %q", tc.uri, tc.name, got, tc.want)
		}
	}
	if got := ChannelURI("", "id"); got != "mattermost://channel/-/id" {
		t.Errorf("a direct message's URI is %s", got)
	}
}

func TestWhatTheReadingToolRefusesIsResourceNotFoundWithItsNextStep(t *testing.T) {
	s, _ := testSet(t, func(string, map[string]string) (Answer, error) {
		return Answer{}, refusal.New(`File "x" was not found.`, "Take file_id from the attachments listed beside posts.")
	}, nil)
	_, err := s.Read(context.Background(), FileURI("x"), config.Defaults(), config.Choice{})
	var nf *transport.ResourceNotFound
	if !errors.As(err, &nf) || !errors.Is(err, transport.ErrResourceNotFound) {
		t.Fatalf("got %v", err)
	}
	if want := `mattermost://file/x was not found: File "x" was not found. Take file_id from the attachments listed beside posts.`; nf.Message != want {
		t.Fatalf("message %q, want %q", nf.Message, want)
	}
	s, _ = testSet(t, func(string, map[string]string) (Answer, error) { return Answer{}, ErrNotFound }, nil)
	if _, err := s.Read(context.Background(), ThreadURI("p"), config.Defaults(), config.Choice{}); !errors.Is(err, transport.ErrResourceNotFound) {
		t.Fatalf("ErrNotFound read as %v", err)
	}
}

func TestAFailureInsideMattermostIsNotPassedOffAsNotFound(t *testing.T) {
	broken := errors.New("database is down")
	s, _ := testSet(t, func(string, map[string]string) (Answer, error) { return Answer{}, broken }, nil)
	_, err := s.Read(context.Background(), FileURI("x"), config.Defaults(), config.Choice{})
	if !errors.Is(err, broken) || errors.Is(err, transport.ErrResourceNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestAResourceOfAToolsetTurnedOffIsNotFoundAndNotRead(t *testing.T) {
	s, reads := testSet(t, textAnswer, nil)
	cfg := config.Defaults()
	cfg.Toolsets = config.AllToolsets &^ config.ToolsetChannels
	for _, uri := range []string{ChannelURI("engineering", "town-square"), ThreadURI("p")} {
		if _, err := s.Read(context.Background(), uri, cfg, config.Choice{}); !errors.Is(err, transport.ErrResourceNotFound) || !strings.Contains(err.Error(), "turned off") {
			t.Errorf("%s: %v", uri, err)
		}
	}
	if _, err := s.Read(context.Background(), FileURI("f"), cfg, config.Choice{}); err != nil {
		t.Errorf("a file is still offered: %v", err)
	}
	if len(*reads) != 1 {
		t.Fatalf("%d reads, want only the file's", len(*reads))
	}
}

func TestContentsAreTheTextThenBlobsOfTheImagesAudioAndMediaTheToolReturned(t *testing.T) {
	got := Contents("mattermost://file/f", Answer{Text: "header", More: []mcp.Content{
		mcp.NewImageContent("aW1n", "image/png"),
		mcp.NewAudioContent("YXVk", "audio/wav"),
		mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "other://x", MIMEType: "video/mp4", Blob: "dmlk"}),
		mcp.NewResourceLink("mattermost://file/g", "g", "", ""),
	}})
	want := []mcp.ResourceContents{
		mcp.TextResourceContents{URI: "mattermost://file/f", MIMEType: "text/plain", Text: "header"},
		mcp.BlobResourceContents{URI: "mattermost://file/f", MIMEType: "image/png", Blob: "aW1n"},
		mcp.BlobResourceContents{URI: "mattermost://file/f", MIMEType: "audio/wav", Blob: "YXVk"},
		mcp.BlobResourceContents{URI: "mattermost://file/f", MIMEType: "video/mp4", Blob: "dmlk"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestResourcesListPagesTheListedEntriesOfOfferedTemplatesOnly(t *testing.T) {
	var asked []string
	list := func(_ context.Context, offered func(string) bool) ([]mcp.Resource, error) {
		var out []mcp.Resource
		for _, tpl := range []string{WorkspaceTemplate, ChannelTemplate, FileTemplate} {
			if !offered(tpl) {
				continue
			}
			asked = append(asked, tpl)
			for i := range 40 {
				uri := map[string]string{WorkspaceTemplate: WorkspaceURI(fmt.Sprint("w", i)), ChannelTemplate: ChannelURI("t", fmt.Sprint("c", i)),
					FileTemplate: FileURI(fmt.Sprint("f", i))}[tpl]
				out = append(out, mcp.NewResource(uri, uri))
			}
		}
		return out, nil
	}
	s, _ := testSet(t, textAnswer, list)
	cfg := config.Defaults()
	cfg.Toolsets = config.AllToolsets &^ config.ToolsetChannels
	var all []mcp.Resource
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("the pages do not end")
		}
		page, next, err := s.List(context.Background(), cursor, cfg, config.Choice{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > ListPage {
			t.Fatalf("a page of %d", len(page))
		}
		all = append(all, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(all) != 80 || all[0].URI != WorkspaceURI("w0") || all[79].URI != FileURI("f39") {
		t.Fatalf("listed %d, from %s to %s", len(all), all[0].URI, all[len(all)-1].URI)
	}
	for _, r := range all {
		if strings.HasPrefix(r.URI, "mattermost://channel/") {
			t.Fatalf("a channel is listed with its toolset off: %s", r.URI)
		}
	}
	if strings.Join(asked, ",") != WorkspaceTemplate+","+FileTemplate+","+WorkspaceTemplate+","+FileTemplate {
		t.Fatalf("the lister was asked for %v", asked)
	}
	for _, bad := range []string{"not base64!", "bm90IGEgY3Vyc29y", "eyJ0IjoicmVhZF9jaGFubmVsIiwiYSI6IiIsInAiOiI1MCJ9"} {
		if _, _, err := s.List(context.Background(), bad, cfg, config.Choice{}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}

func TestTheLinksOfAToolAnswerWhoseTemplateIsOffNoLongerReachTheClient(t *testing.T) {
	s, _ := testSet(t, textAnswer, nil)
	cfg := config.Defaults()
	cfg.Toolsets = config.AllToolsets &^ config.ToolsetFiles
	handler := s.Links(func() config.Configuration { return cfg })(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("posts"), mcp.NewResourceLink(FileURI("f"), "f", "", ""),
			mcp.NewResourceLink(ThreadURI("p"), "p", "", "")}}, nil
	})
	res, err := handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || len(res.Content) != 2 || res.Content[1].(mcp.ResourceLink).URI != ThreadURI("p") {
		t.Fatalf("got %+v, %v", res, err)
	}
	cfg = config.Defaults()
	if res, _ := handler(context.Background(), mcp.CallToolRequest{}); len(res.Content) != 3 {
		t.Fatalf("with files on, %d contents", len(res.Content))
	}
}

func TestAMalformedSetIsRefused(t *testing.T) {
	cat := testCatalogue(t)
	ok := Template{URITemplate: FileTemplate, Name: "a", Title: "a", Description: "a", Tool: "read_file",
		Read: func(context.Context, map[string]string) (Answer, error) { return Answer{}, nil }}
	noTool, noRead, twice := ok, ok, ok
	noTool.Tool = "create_post"
	noRead.Read = nil
	for name, tpls := range map[string][]Template{"unknown tool": {noTool}, "no Read": {noRead}, "twice": {ok, twice}} {
		if _, err := New(cat, tpls, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAnAnswerOfAnImageAloneIsItsBlobWithoutAnEmptyText(t *testing.T) {
	got := Contents(ThumbnailURI("abc"), Answer{More: []mcp.Content{mcp.NewImageContent("AAAA", "image/jpeg")}})
	if len(got) != 1 {
		t.Fatalf("%d contents, want the blob alone", len(got))
	}
	if b, ok := got[0].(mcp.BlobResourceContents); !ok || b.MIMEType != "image/jpeg" || b.URI != "mattermost://file/abc/thumbnail" {
		t.Fatalf("contents %+v, want the JPEG blob of the thumbnail's URI", got[0])
	}
	if text := Contents(FileURI("abc"), Answer{}); len(text) != 1 {
		t.Fatalf("an empty answer is %d contents, want its (empty) text", len(text))
	}
}
