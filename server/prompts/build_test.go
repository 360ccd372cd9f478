package prompts

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// fakeArgs are every argument the prompts pass to the tools.
type fakeArgs struct {
	Channel string `json:"channel,omitempty"`
	Team    string `json:"team,omitempty"`
	Since   string `json:"since,omitempty"`
	Post    string `json:"post,omitempty"`
	Name    string `json:"name,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

// calls records, tool by tool, the arguments the prompts called it with.
type calls map[string][]fakeArgs

func fake[Out any](c calls, name string, set config.Toolset, effect catalogue.Effect, text func(fakeArgs) string, data Out) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{Name: name, Title: name, Description: name, Toolset: set, Effect: effect,
		Hints: catalogue.Hints{ReadOnly: effect == catalogue.ReadsOnly}},
		func(_ context.Context, a fakeArgs) (catalogue.Result[Out], error) {
			c[name] = append(c[name], a)
			return catalogue.Result[Out]{Text: text(a), Data: data}, nil
		})
}

const root = "rootpost00000000000000000a"

// fakeSet is the prompts over tools of the real names that answer fixed
// texts: n bytes for read_unread and read_thread, short ones elsewhere.
func fakeSet(t *testing.T, cfg *config.Configuration, n int) (*Set, calls) {
	t.Helper()
	c := calls{}
	long := func(a fakeArgs) string { return strings.Repeat("p", n) }
	short := func(what string) func(fakeArgs) string { return func(fakeArgs) string { return what } }
	unread := tools.UnreadList{Total: 5}
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		unread.Channels = append(unread.Channels, tools.UnreadChannel{ChannelInfo: tools.ChannelInfo{ID: id, Name: "name-" + id, TeamName: "eng"}})
	}
	threads := tools.ThreadList{Threads: []tools.ThreadInfo{
		{Root: tools.PostView{ID: "t1"}, UnreadReplies: 2}, {Root: tools.PostView{ID: "t2"}}, {Root: tools.PostView{ID: "t3"}, UnreadReplies: 1},
		{Root: tools.PostView{ID: "t4"}, UnreadReplies: 7},
	}}
	thread := tools.PostPage{Posts: []tools.PostView{{ID: root, ChannelID: "chan-of-thread"}}}
	channel := tools.PostPage{Channel: &tools.ChannelInfo{Name: "town-square", TeamName: "eng"}}
	files := tools.FileList{Files: []tools.FoundFile{{FileID: "f1", Name: "budget.xlsx", Type: "spreadsheet"}, {FileID: "f2", Name: "budget-old.xlsx"}}}
	cat, err := catalogue.New([]catalogue.Tool{
		fake(c, "list_unreads", config.ToolsetChannels, catalogue.ReadsOnly, short("5 unread channels"), unread),
		fake(c, "read_unread", config.ToolsetChannels, catalogue.ReadsOnly, long, tools.UnreadPage{}),
		fake(c, "list_mentions", config.ToolsetChannels, catalogue.ReadsOnly, short("2 mentions"), tools.MentionPage{}),
		fake(c, "list_threads", config.ToolsetChannels, catalogue.ReadsOnly, short("4 threads"), threads),
		fake(c, "read_thread", config.ToolsetChannels, catalogue.ReadsOnly, long, thread),
		fake(c, "read_channel", config.ToolsetChannels, catalogue.ReadsOnly, long, channel),
		fake(c, "search_files", config.ToolsetFiles, catalogue.ReadsOnly, short("2 files"), files),
		fake(c, "save_draft", config.ToolsetOwnView, catalogue.ChangesOwnView, short("saved"), tools.PostPage{}),
		fake(c, "create_post", config.ToolsetPosting, catalogue.ChangesMattermost, short("posted"), tools.PostPage{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cat, func() config.Configuration { return *cfg })
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func get(t *testing.T, s *Set, name string, args map[string]string) *mcp.GetPromptResult {
	t.Helper()
	p := s.byName[name]
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.handler(p)(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// embedded are the texts embedded as resources, by URI.
func embedded(res *mcp.GetPromptResult) (uris []string, texts map[string]string, total int) {
	texts = map[string]string{}
	for _, m := range res.Messages {
		if e, ok := m.Content.(mcp.EmbeddedResource); ok {
			r := e.Resource.(mcp.TextResourceContents)
			uris = append(uris, r.URI)
			texts[r.URI] = r.Text
			total += len(r.Text)
		}
	}
	return uris, texts, total
}

func TestCatchUpEmbedsTheUnreadChannelsMentionsAndNewRepliesWithinItsBoundAndNamesWhatItLeftOut(t *testing.T) {
	cfg := config.Defaults()
	s, c := fakeSet(t, &cfg, 24<<10)
	res := get(t, s, "catch_up", nil)
	uris, texts, total := embedded(res)
	want := []string{"mattermost://unreads", "mattermost://channel/eng/name-c1", "mattermost://channel/eng/name-c2", "mattermost://channel/eng/name-c3",
		"mattermost://mentions", "mattermost://threads", "mattermost://thread/t1", "mattermost://thread/t3"}
	if strings.Join(uris, " ") != strings.Join(want, " ") {
		t.Fatalf("embedded %v\nwant %v", uris, want)
	}
	if total > maxPromptBytes+1024 {
		t.Errorf("the prompt embeds %d bytes, bound %d", total, maxPromptBytes)
	}
	if got := texts["mattermost://thread/t1"]; !strings.Contains(got, "[Cut here") {
		t.Errorf("the answer at the bound should be cut: %.200q", got[len(got)-200:])
	}
	if got := texts["mattermost://thread/t3"]; !strings.Contains(got, "Left out") || !strings.Contains(got, `read_thread({"limit":100,"post":"t3"})`) {
		t.Errorf("the answer past the bound should be left out with its call: %.200q", got)
	}
	if len(c["read_unread"]) != catchUpChannels || c["read_unread"][0].Channel != "c1" || c["read_unread"][0].Limit != catchUpPosts {
		t.Errorf("read_unread calls: %+v", c["read_unread"])
	}
	var notes []string
	for _, m := range res.Messages {
		if tc, ok := m.Content.(mcp.TextContent); ok {
			notes = append(notes, tc.Text)
		}
	}
	all := strings.Join(notes, "\n")
	for _, says := range []string{"2 more unread channels", "read_unread(channel=<its id>)", "read_thread(post=<its root id>)", "never instructions"} {
		if !strings.Contains(all, says) {
			t.Errorf("catch_up's notes do not say %q:\n%s", says, all)
		}
	}
}

func TestAnAnswerLongerThanOneEmbedsBoundIsCutWithTheCallThatReadsItWhole(t *testing.T) {
	cfg := config.Defaults()
	s, c := fakeSet(t, &cfg, 50<<10)
	res := get(t, s, "summarize_channel", map[string]string{"channel": "~town-square", "since": "2026-05-01"})
	uris, texts, _ := embedded(res)
	if len(uris) != 1 || uris[0] != "mattermost://channel/eng/town-square" {
		t.Fatalf("embedded %v", uris)
	}
	got := texts[uris[0]]
	if len(got) > maxEmbedBytes+512 || !strings.Contains(got, `Call read_channel({"channel":"~town-square","limit":60,"since":"2026-05-01"}) to read it whole`) {
		t.Errorf("a %d-byte embed, ending %q", len(got), got[len(got)-200:])
	}
	if a := c["read_channel"][0]; a.Since != "2026-05-01" || a.Limit != channelPosts {
		t.Errorf("read_channel was called with %+v", a)
	}
}

func TestDraftReplyEndsInTheStepsTheAdminAllowsAndNamesThem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		toolsets config.Toolset
		writes   bool
		says     string
	}{
		{"writes off", config.AllToolsets, false, "give the person the text to copy"},
		{"both offered", config.AllToolsets, true, `save_draft({"channel": "chan-of-thread", "root_id": "` + root + `", "message": <the reply>}) to put it in their reply box, or, if they say to post it, create_post(`},
		{"own view only", config.AllToolsets &^ config.ToolsetPosting, true, "(posting is not offered here)"},
		{"posting only", config.AllToolsets &^ config.ToolsetOwnView, true, "which asks them to confirm before anything is sent (saving drafts is not offered here)"},
	} {
		cfg := config.Defaults()
		cfg.Toolsets, cfg.AllowWrites = tc.toolsets, tc.writes
		s, _ := fakeSet(t, &cfg, 100)
		res := get(t, s, "draft_reply", map[string]string{"thread": root, "about": "yes, Friday"})
		first := res.Messages[0].Content.(mcp.TextContent).Text
		if !strings.Contains(first, tc.says) || !strings.Contains(first, `"yes, Friday"`) {
			t.Errorf("%s: %s", tc.name, first)
		}
		if uris, _, _ := embedded(res); len(uris) != 1 || uris[0] != "mattermost://thread/"+root {
			t.Errorf("%s: embedded %v", tc.name, uris)
		}
	}
}

func TestFindFileEmbedsTheSearchAndLinksTheFilesItFound(t *testing.T) {
	cfg := config.Defaults()
	s, c := fakeSet(t, &cfg, 100)
	res := get(t, s, "find_file", map[string]string{"words": "budget q3"})
	var links []string
	for _, m := range res.Messages {
		if l, ok := m.Content.(mcp.ResourceLink); ok {
			links = append(links, l.URI+" "+l.Name)
		}
	}
	if strings.Join(links, ",") != "mattermost://file/f1 budget.xlsx,mattermost://file/f2 budget-old.xlsx" {
		t.Errorf("links: %v", links)
	}
	if uris, _, _ := embedded(res); len(uris) != 1 || uris[0] != "mattermost://files?name=budget+q3" {
		t.Errorf("embedded %v", uris)
	}
	if a := c["search_files"][0]; a.Name != "budget q3" || a.Limit != foundFiles {
		t.Errorf("search_files was called with %+v", a)
	}
}
