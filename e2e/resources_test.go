package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// sdkAs connects the official MCP Go SDK as u with a bearer token, in
// protocol version ("" for the SDK's own, 2026-07-28, stateless).
func sdkAs(t *testing.T, u harness.User, version string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "sdk-resources", Version: "1.8.0"}, nil)
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: mcpURL(mm.URL), MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{map[string]string{"Authorization": "Bearer " + u.Token}}, Timeout: 60 * time.Second}}, opts)
	if err != nil {
		t.Fatalf("the official SDK could not connect as %s: %v", u.Username, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// tinyPNG is a small upright PNG: read_file hands it over unchanged.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 12, 8))
	for x := range 12 {
		img.Set(x, x%8, color.RGBA{R: 200, G: uint8(x * 20), B: 40, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readResource reads uri and fails the test on any error.
func readResource(t *testing.T, s *sdk.ClientSession, uri string) []*sdk.ResourceContents {
	t.Helper()
	res, err := s.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) == 0 {
		t.Fatalf("read %s: no contents", uri)
	}
	return res.Contents
}

// notFound checks that reading uri is refused as not found with code.
func notFound(t *testing.T, s *sdk.ClientSession, uri string, code int64) {
	t.Helper()
	_, err := s.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != code || !strings.Contains(rpcErr.Message, "was not found") {
		t.Fatalf("read %s: %v, want not found (%d)", uri, err, code)
	}
}

func sdkCall(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	return res
}

func links(res *sdk.CallToolResult) map[string]*sdk.ResourceLink {
	out := map[string]*sdk.ResourceLink{}
	for _, c := range res.Content {
		if l, ok := c.(*sdk.ResourceLink); ok {
			out[l.Name] = l
		}
	}
	return out
}

func TestEachResourceTemplateReadsAsAliceAndIsNotFoundForBobWhoCannotReadIt(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ctx := context.Background()
	v := privateVault(t, alice)
	vault, root, infos := v.channel, v.root, []*model.FileInfo{v.file}
	dm, _, err := mm.Client(alice).CreateDirectChannel(ctx, alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	createPost(t, alice, dm.Id, "A word between alice and the admin", "")

	as := sdkAs(t, alice, "2025-11-25")
	name := uniq(t, "notes ") + ".md"
	sdkCall(t, as, "files_write", map[string]any{"name": name, "text": "# Notes\nonly alice's workspace holds these\n"})

	uris := map[string]string{
		"file":      resources.FileURI(infos[0].Id),
		"channel":   resources.ChannelURI(mm.Team.Name, vault.Name),
		"dm":        resources.ChannelURI("", dm.Id),
		"thread":    resources.ThreadURI(root.Id),
		"workspace": resources.WorkspaceURI(name),
	}
	want := map[string][]string{
		"file":      {"report.txt", "line 1 ", "line 40 "},
		"channel":   {"The vault's opening post", "report.txt", "file_id=" + infos[0].Id},
		"dm":        {"A word between alice and the admin"},
		"thread":    {"The vault's opening post", "A reply only the vault reads"},
		"workspace": {"only alice's workspace holds these"},
	}
	for kind, uri := range uris {
		contents := readResource(t, as, uri)
		if contents[0].URI != uri || contents[0].MIMEType != "text/plain" {
			t.Fatalf("%s: first content %+v", kind, contents[0])
		}
		for _, w := range want[kind] {
			if !strings.Contains(contents[0].Text, w) {
				t.Fatalf("%s (%s) does not hold %q:\n%s", kind, uri, w, contents[0].Text)
			}
		}
	}
	// The file's window holds exactly the lines REST serves.
	rest, _, err := mm.Client(alice).GetFile(ctx, infos[0].Id)
	if err != nil {
		t.Fatal(err)
	}
	holdsLines(t, "the file's resource", readResource(t, as, uris["file"])[0].Text, rest)

	bs := sdkAs(t, bob, "2025-11-25")
	for kind, uri := range uris {
		t.Run("bob "+kind, func(t *testing.T) { notFound(t, bs, uri, -32002) })
	}
	// The same as stateless clients of 2026-07-28: alice reads, bob is told
	// so with -32602, as that revision says.
	modern := readResource(t, sdkAs(t, alice, ""), uris["thread"])
	if !strings.Contains(modern[0].Text, "A reply only the vault reads") {
		t.Fatalf("a stateless read of the thread: %s", modern[0].Text)
	}
	notFound(t, sdkAs(t, bob, ""), uris["channel"], -32602)
	notFound(t, as, "mattermost://channel/"+mm.Team.Name+"/no-such-channel-here", -32002)
	notFound(t, as, "mattermost://nothing/here", -32002)
}

func TestAResourceLinkFromReadChannelReadsBackAsTheAttachmentItself(t *testing.T) {
	alice := mm.Users[0]
	ctx := context.Background()
	ch := createChannel(t, alice, uniq(t, "gallery"), "Gallery", model.ChannelTypeOpen)
	picture, notes := tinyPNG(t), "first line of the notes\nsecond line\n"
	_, infos := postFiles(t, alice, ch.Id, "a picture and notes", map[string][]byte{"chart.png": picture, "notes.txt": []byte(notes)})

	s := sdkAs(t, alice, "2025-11-25")
	res := sdkCall(t, s, "read_channel", map[string]any{"channel": ch.Id})
	got := links(res)
	if len(got) != 2 || got["chart.png"] == nil || got["notes.txt"] == nil {
		t.Fatalf("read_channel links %v", got)
	}
	for _, info := range infos {
		l := got[info.Name]
		if l.URI != resources.FileURI(info.Id) || l.Size == nil || *l.Size != info.Size || !strings.Contains(l.Description, info.Id) {
			t.Fatalf("the link of %s: %+v", info.Name, l)
		}
		rest, _, err := mm.Client(alice).GetFile(ctx, info.Id)
		if err != nil {
			t.Fatal(err)
		}
		contents := readResource(t, s, l.URI)
		switch info.Name {
		case "chart.png":
			if len(contents) != 2 || contents[1].MIMEType != "image/png" || !bytes.Equal(contents[1].Blob, rest) {
				t.Fatalf("the picture read back as %d contents, blob of %d bytes, want the %d bytes REST serves", len(contents), len(contents[len(contents)-1].Blob), len(rest))
			}
		case "notes.txt":
			holdsLines(t, "the notes read back", contents[0].Text, rest)
		}
	}
	// The text answer still lists each file id beside it.
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			for _, info := range infos {
				if !strings.Contains(tc.Text, "file_id="+info.Id) {
					t.Fatalf("the text lost the file id of %s", info.Name)
				}
			}
		}
	}
}

func TestResourcesListIsBoundedPagedAndOnlyWhatThePersonCanRead(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	vault := createChannel(t, alice, uniq(t, "stash"), "Stash", model.ChannelTypePrivate)
	// More attachments than one page holds, the newest of them private.
	for batch := range 6 {
		files := map[string][]byte{}
		for i := range 10 {
			files[fmt.Sprintf("part-%d-%d.txt", batch, i)] = fmt.Appendf(nil, "part %d %d\n", batch, i)
		}
		postFiles(t, alice, vault.Id, fmt.Sprint("batch ", batch), files)
	}
	s := sdkAs(t, alice, "2025-11-25")
	name := uniq(t, "listed-") + ".txt"
	sdkCall(t, s, "files_write", map[string]any{"name": name, "text": "listed\n"})

	var all []*sdk.Resource
	var firstPageBytes int
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 4 {
			t.Fatal("resources/list does not end")
		}
		page, err := s.ListResources(context.Background(), &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Resources) > resources.ListPage {
			t.Fatalf("a page of %d resources", len(page.Resources))
		}
		if pages == 0 {
			raw, _ := json.Marshal(page)
			firstPageBytes = len(raw)
		}
		all = append(all, page.Resources...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, r := range all {
		if seen[r.URI] {
			t.Fatalf("%s is listed twice", r.URI)
		}
		seen[r.URI] = true
		kind, _, _ := strings.Cut(strings.TrimPrefix(r.URI, "mattermost://"), "/")
		kinds[kind]++
		if r.Name == "" || r.Title == "" {
			t.Fatalf("%s has no name or title: %+v", r.URI, r)
		}
	}
	if len(all) <= resources.ListPage || kinds["file"] != 50 || kinds["channel"] == 0 || kinds["channel"] > 10 || !seen[resources.WorkspaceURI(name)] {
		t.Fatalf("listed %d resources over the pages: %v", len(all), kinds)
	}
	if !seen[resources.ChannelURI(mm.Team.Name, vault.Name)] {
		t.Fatal("the channel with the newest post is not listed")
	}
	for _, r := range all {
		if strings.HasPrefix(r.Name, "part-") && (r.Size == 0 || r.MIMEType == "") {
			t.Fatalf("an attachment is listed without its size and type: %+v", r)
		}
	}
	t.Logf("resources/list: %d resources in %d bytes on the first page", len(all), firstPageBytes)

	// Bob sees none of alice's private attachments, nor her workspace.
	for r, err := range sdkAs(t, bob, "2025-11-25").Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(r.Name, "part-") || r.URI == resources.WorkspaceURI(name) || r.URI == resources.ChannelURI(mm.Team.Name, vault.Name) {
			t.Fatalf("bob is listed alice's %s", r.URI)
		}
	}
}

func TestAToolsetTurnedOffHidesItsTemplatesItsResourcesAndItsLinks(t *testing.T) {
	alice := mm.Users[0]
	_, infos := postFiles(t, alice, townSquare(t).Id, "a file for the toolset test", map[string][]byte{"toolset.txt": []byte("toolset\n")})
	s := sdkAs(t, alice, "2025-11-25")
	templates := func() []string {
		res, err := s.ListResourceTemplates(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tpl := range res.ResourceTemplates {
			out = append(out, tpl.URITemplate)
		}
		slices.Sort(out)
		return out
	}
	all := []string{resources.ChannelTemplate, resources.FileTemplate, resources.ThumbnailTemplate, resources.ThreadTemplate, resources.WorkspaceTemplate}
	slices.Sort(all)
	if got := templates(); !slices.Equal(got, all) {
		t.Fatalf("templates %v, want %v", got, all)
	}
	res, _ := s.ListResourceTemplates(context.Background(), nil)
	raw, _ := json.Marshal(res)
	t.Logf("resources/templates/list: %d bytes", len(raw))

	if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": false}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": true}); err != nil {
			t.Errorf("restore the files toolset: %v", err)
		}
	})
	if got := templates(); slices.Contains(got, resources.FileTemplate) || len(got) != 3 {
		t.Fatalf("with files off, templates %v", got)
	}
	notFound(t, s, resources.FileURI(infos[0].Id), -32002)
	if l := links(sdkCall(t, s, "read_channel", map[string]any{"channel": townSquare(t).Id, "limit": 5})); len(l) != 0 {
		t.Fatalf("with files off, read_channel still links %v", l)
	}
	for r, err := range s.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(r.URI, "mattermost://file/") {
			t.Fatalf("with files off, %s is listed", r.URI)
		}
	}

	if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": true}); err != nil {
		t.Fatal(err)
	}
	if got := templates(); !slices.Equal(got, all) {
		t.Fatalf("files back on, same session: templates %v", got)
	}
	if c := readResource(t, s, resources.FileURI(infos[0].Id)); !strings.Contains(c[0].Text, "toolset") {
		t.Fatalf("files back on: %s", c[0].Text)
	}
}
