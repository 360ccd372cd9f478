package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// toolsetOfResource is the toolset that reads what each template names,
// written out here rather than read from the templates.
var toolsetOfResource = map[string]config.Toolset{
	resources.FileTemplate:      config.ToolsetFiles,
	resources.ThumbnailTemplate: config.ToolsetFiles,
	resources.ChannelTemplate:   config.ToolsetChannels,
	resources.ThreadTemplate:    config.ToolsetChannels,
	resources.WorkspaceTemplate: config.ToolsetWorkspace,
}

func realResources(t *testing.T) *resources.Set {
	t.Helper()
	d := Deps{Config: config.Defaults}
	set, err := resources.New(realCatalogue(t), Resources(d), ResourceList(d))
	if err != nil {
		t.Fatalf("the real resource templates are malformed: %v", err)
	}
	return set
}

func TestEachResourceTemplateIsOfferedExactlyWhileTheToolsetThatReadsTheSameThingIsOn(t *testing.T) {
	set := realResources(t)
	if got := len(set.Templates()); got != len(toolsetOfResource) {
		t.Fatalf("%d templates, want %d", got, len(toolsetOfResource))
	}
	for mask := range config.Toolset(config.AllToolsets + 1) {
		for _, writes := range []bool{false, true} {
			cfg := config.Defaults()
			cfg.Toolsets, cfg.AllowWrites = mask, writes
			for _, tpl := range set.Templates() {
				want := mask&toolsetOfResource[tpl.URITemplate] != 0
				if got := set.Offered(tpl, cfg, config.Choice{}); got != want {
					t.Fatalf("toolsets %08b, writes %v: %s offered %v, want %v", mask, writes, tpl.URITemplate, got, want)
				}
			}
		}
	}
}

func TestAResourceTemplateIsHiddenWhenTheAdminLeavesOutTheToolThatReadsIt(t *testing.T) {
	set := realResources(t)
	cfg := config.Defaults()
	cfg.ExcludedTools = "read_file"
	for _, tpl := range set.Templates() {
		if got := set.Offered(tpl, cfg, config.Choice{}); got == (tpl.Tool == "read_file") {
			t.Errorf("with read_file left out, %s offered %v", tpl.URITemplate, got)
		}
	}
}

func TestTheTemplatesKeepTheVariableNamesCompletionAndPromptsUse(t *testing.T) {
	want := map[string]string{
		resources.FileTemplate: "file_id", resources.ThumbnailTemplate: "file_id", resources.ChannelTemplate: "team,channel",
		resources.ThreadTemplate: "post_id", resources.WorkspaceTemplate: "name",
	}
	for _, tpl := range realResources(t).Templates() {
		if got := strings.Join(tpl.Vars(), ","); got != want[tpl.URITemplate] {
			t.Errorf("%s has variables %s, want %s", tpl.URITemplate, got, want[tpl.URITemplate])
		}
	}
}

func TestAResourceOfAToolsetTurnedOffIsNotFoundWithoutBeingRead(t *testing.T) {
	set := realResources(t)
	cfg := config.Defaults()
	cfg.Toolsets = config.AllToolsets &^ config.ToolsetFiles
	// No caller is signed in: reading would fail otherwise than not found.
	_, err := set.Read(context.Background(), resources.FileURI("file1id00000000000000000000"), cfg, config.Choice{})
	if err == nil || !strings.Contains(err.Error(), "read_file") || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("got %v", err)
	}
}

func TestListedAttachmentsCarryResourceLinksBesideTheirFileIDs(t *testing.T) {
	post := readingPost("post1id00000000000000000000", "~town-square", "@bob", "logs", 5)
	post.Attachments = []present.FileRef{{ID: "file1id00000000000000000000", Name: "deploy.log", Type: "text/plain", Size: 2048},
		{ID: "file2id00000000000000000000", Name: "blob", Type: "unknown type", Size: 3}}
	links := postLinks(post)
	if len(links) != 2 {
		t.Fatalf("%d links", len(links))
	}
	first, ok := links[0].(mcp.ResourceLink)
	if !ok || first.URI != "mattermost://file/file1id00000000000000000000" || first.Name != "deploy.log" || first.MIMEType != "text/plain" ||
		first.Size == nil || *first.Size != 2048 || !strings.Contains(first.Description, "file1id00000000000000000000") {
		t.Fatalf("first link %+v", links[0])
	}
	if second := links[1].(mcp.ResourceLink); second.MIMEType != "" {
		t.Errorf("a file of unknown type is linked with type %q", second.MIMEType)
	}
}

func TestAnAnswerLinksAtMostMaxLinksAttachments(t *testing.T) {
	var posts []PostView
	for i := range 12 {
		p := readingPost("post1id00000000000000000000", "~town-square", "@bob", "files", int64(i))
		for range 10 {
			p.Attachments = append(p.Attachments, present.FileRef{ID: "file1id00000000000000000000", Name: "a.txt", Type: "text/plain", Size: 1})
		}
		posts = append(posts, p)
	}
	if got := len(postLinks(posts...)); got != maxLinks {
		t.Fatalf("%d links for 120 attachments, want %d", got, maxLinks)
	}
}
