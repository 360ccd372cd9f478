package e2e

// Issue 46: search and fetch as ChatGPT's research uses them, through the
// official TypeScript SDK: a client that reads each answer as ChatGPT
// does, the one text item parsed as JSON and nothing else.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// asChatGPTReads reads a tools/call result the way a research host does:
// exactly one content item, of type text, whose text is JSON. It checks
// the structured content says the same.
func asChatGPTReads(t *testing.T, what string, raw json.RawMessage, into any) {
	t.Helper()
	var res sdkToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("%s answered %d content items (error %v), want exactly one text item: %s", what, len(res.Content), res.IsError, raw)
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), into); err != nil {
		t.Fatalf("%s: the text item is not JSON: %v\n%s", what, err, res.Content[0].Text)
	}
	var fromText, structured any
	_ = json.Unmarshal([]byte(res.Content[0].Text), &fromText)
	if err := json.Unmarshal(res.StructuredContent, &structured); err != nil || !jsonEqual(fromText, structured) {
		t.Fatalf("%s: structuredContent differs from the text's JSON: %s", what, raw)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func searchStep(query string) sdkStep {
	return sdkStep{Method: "tools/call", Params: map[string]any{"name": "search", "arguments": map[string]any{"query": query}}}
}

func fetchStep(id string) sdkStep {
	return sdkStep{Method: "tools/call", Params: map[string]any{"name": "fetch", "arguments": map[string]any{"id": id}}}
}

func TestChatGPTsResearchFindsAndFetchesWhatBobCanReadAndNeverAlicesDirectMessage(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ctx := context.Background()
	stem := strings.ToLower(model.NewId()[:8])
	word := func(w string) string { return w + stem }

	open := createChannel(t, alice, uniq(t, "research-"), "Research "+stem, model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(ctx, open.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	public := createPost(t, alice, open.Id, "The release is on the 14th, "+word("harbour")+" agreed.", "")
	root := createPost(t, alice, open.Id, "Which database for the release?", "")
	createPost(t, bob, open.Id, "PostgreSQL 16, "+word("lantern")+" says so.", root.Id)
	_, files := postFiles(t, alice, open.Id, "the plan", map[string][]byte{"plan.txt": []byte("Ship it.\nThe " + word("meadow") + " step comes last.\n")})
	private := createChannel(t, bob, uniq(t, "bobs-"), "Bob's notes", model.ChannelTypePrivate)
	secret := createPost(t, bob, private.Id, "Budget "+word("quarry")+" is fine.", "")
	dm, _, err := mm.Client(alice).CreateDirectChannel(ctx, alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	hidden := createPost(t, alice, dm.Id, "Only for the admin: "+word("harbour")+" "+word("orchid"), "")
	alicesOwn := createChannel(t, alice, uniq(t, "alices-"), "Alice's "+word("orchid"), model.ChannelTypePrivate)
	deleted := createPost(t, alice, open.Id, "Withdrawn: "+word("orchid"), "")
	if _, err := mm.Client(alice).DeletePost(ctx, deleted.Id); err != nil {
		t.Fatal(err)
	}

	// Mattermost extracts a file's text after the upload, in the background.
	c := connect(t, mm.URL, bob.Token)
	eventuallyWithin(t, time.Minute, "search finds the file by a word of its text", func() bool {
		var got tools.SearchResults
		structuredAs(t, call(t, c, "search", map[string]any{"query": word("meadow")}), &got)
		return slices.ContainsFunc(got.Results, func(r tools.ResearchResult) bool { return r.ID == "file:"+files[0].Id })
	})

	searches := []struct {
		query string
		want  string
	}{
		{word("harbour"), "post:" + public.Id},
		{word("quarry"), "post:" + secret.Id},
		{word("lantern"), "post:" + root.Id}, // the reply stands for its thread
		{word("meadow"), "file:" + files[0].Id},
		{"Research " + stem, "channel:" + open.Id},
		{word("orchid"), ""},
	}
	plan := []sdkStep{}
	for _, s := range searches {
		plan = append(plan, searchStep(s.query))
	}
	run := runTypeScriptSDK(t, mm.URL, bob.Token, plan...)
	var ids []string
	for i, s := range searches {
		var got tools.SearchResults
		asChatGPTReads(t, "search "+s.query, run.Results[i].Result, &got)
		found := false
		for _, r := range got.Results {
			if strings.HasSuffix(r.ID, dm.Id) || strings.HasSuffix(r.ID, hidden.Id) || strings.Contains(r.Title, "orchid") ||
				strings.HasSuffix(r.ID, alicesOwn.Id) || strings.HasSuffix(r.ID, deleted.Id) {
				t.Fatalf("bob's search for %q lists alice's direct message, her private channel or a deleted post: %+v", s.query, r)
			}
			if r.Title == "" || !strings.HasPrefix(r.URL, mm.URL) {
				t.Errorf("result %+v has no title or no link into Mattermost", r)
			}
			found = found || r.ID == s.want
			if !slices.Contains(ids, r.ID) {
				ids = append(ids, r.ID)
			}
		}
		if s.want == "" && len(got.Results) != 0 {
			t.Errorf("search %q found %+v, want nothing", s.query, got.Results)
		}
		if s.want != "" && !found {
			t.Errorf("search %q = %+v, want %s among the results", s.query, got.Results, s.want)
		}
	}

	// Fetch every id found; then alice's direct message by its ids, her
	// private channel and a deleted post, each not found.
	plan = nil
	for _, id := range ids {
		plan = append(plan, fetchStep(id))
	}
	plan = append(plan, fetchStep("post:"+hidden.Id), fetchStep("channel:"+dm.Id), fetchStep(hidden.Id),
		fetchStep("channel:"+alicesOwn.Id), fetchStep("post:"+deleted.Id))
	run = runTypeScriptSDKPlan(t, mm.URL, bob.Token, plan...)
	texts := map[string]tools.FetchedItem{}
	for i, id := range ids {
		var item tools.FetchedItem
		asChatGPTReads(t, "fetch "+id, run.Results[i].Result, &item)
		if item.ID != id || item.Title == "" || item.Text == "" || !strings.HasPrefix(item.URL, mm.URL) || item.Metadata["channel"] == "" {
			t.Errorf("fetch %s = %+v, want the id, a title, the text, a link and where it is", id, item)
		}
		if strings.Contains(item.Text, word("orchid")) {
			t.Fatalf("bob's fetch of %s holds alice's direct message", id)
		}
		texts[id] = item
	}
	for id, want := range map[string]string{
		"post:" + public.Id:   "The release is on the 14th",
		"post:" + root.Id:     "PostgreSQL 16, " + word("lantern"),
		"post:" + secret.Id:   "Budget " + word("quarry"),
		"file:" + files[0].Id: "The " + word("meadow") + " step comes last.",
		"channel:" + open.Id:  "The release is on the 14th",
	} {
		if !strings.Contains(texts[id].Text, want) {
			t.Errorf("fetch %s does not hold %q:\n%s", id, want, texts[id].Text)
		}
	}
	if texts["post:"+root.Id].Metadata["replies"] != "1" || texts["file:"+files[0].Id].Metadata["name"] != "plan.txt" {
		t.Errorf("fetch's facts: thread %v, file %v", texts["post:"+root.Id].Metadata, texts["file:"+files[0].Id].Metadata)
	}
	for _, r := range run.Results[len(ids):] {
		var res sdkToolResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "No ") || strings.Contains(res.Content[0].Text, word("orchid")) {
			t.Errorf("bob's fetch of alice's direct message, her private channel or a deleted post answered %s, want not found", r.Result)
		}
	}
}

func TestResearchOfABusyChannelStaysBoundedAndSaysWhatFetchLeftOut(t *testing.T) {
	alice := mm.Users[0]
	word := "busy" + strings.ToLower(model.NewId()[:8])
	topics := "topics" + strings.ToLower(model.NewId()[:8])
	ch := createChannel(t, alice, uniq(t, "busy-"), "Busy "+word, model.ChannelTypeOpen)
	root := createPost(t, alice, ch.Id, "The "+word+" thread: one reply per step of the migration.", "")
	for i := range 120 {
		createPost(t, alice, ch.Id, fmt.Sprintf("Step %d of the %s migration is done; the next one starts after the checks pass.", i+1, word), root.Id)
	}
	for i := range 34 {
		createPost(t, alice, ch.Id, fmt.Sprintf("Topic %d of the %s channel.", i+1, topics), "")
	}
	c := connect(t, mm.URL, alice.Token)

	res := call(t, c, "search", map[string]any{"query": word})
	var found tools.SearchResults
	structuredAs(t, res, &found)
	if len(found.Results) == 0 || len(found.Results) > 20 || found.Results[0].ID != "post:"+root.Id {
		t.Fatalf("search of a thread of 121 matching posts found %d results, first %+v; want the thread first, at most 20", len(found.Results), found.Results)
	}
	t.Logf("search: %d results, %d bytes of text", len(found.Results), len(text(res)))
	res = call(t, c, "search", map[string]any{"query": topics})
	structuredAs(t, res, &found)
	if len(found.Results) != 20 {
		t.Fatalf("search of 34 matching posts found %d results, want the 20 newest", len(found.Results))
	}
	t.Logf("search with 34 matches: %d results, %d bytes of text", len(found.Results), len(text(res)))

	res = call(t, c, "fetch", map[string]any{"id": "post:" + root.Id})
	var thread tools.FetchedItem
	structuredAs(t, res, &thread)
	if thread.Metadata["posts_shown"] != "100" || thread.Metadata["replies"] != "120" ||
		!strings.Contains(thread.Text, "Showing posts 1 to 100") || !strings.Contains(thread.Text, "More replies") ||
		strings.Contains(thread.Text, "Step 100 of") || !strings.Contains(thread.Text, "Step 99 of") {
		t.Fatalf("fetch of a thread of 121 posts: metadata %v, text ends %q", thread.Metadata, thread.Text[max(0, len(thread.Text)-300):])
	}
	t.Logf("fetch of the thread: %d bytes of text, %d bytes of answer", len(thread.Text), len(text(res)))

	res = call(t, c, "fetch", map[string]any{"id": "channel:" + ch.Id})
	var channel tools.FetchedItem
	structuredAs(t, res, &channel)
	if channel.Metadata["posts_shown"] != "30" || !strings.Contains(channel.Text, "Older posts") || !strings.Contains(channel.Text, "Topic 34 of") ||
		strings.Contains(channel.Text, "Step 120 of") {
		t.Fatalf("fetch of a busy channel: metadata %v, text %q", channel.Metadata, channel.Text)
	}
	t.Logf("fetch of the channel: %d bytes of text, %d bytes of answer", len(channel.Text), len(text(res)))
}

// dialogShowsTheChatApps checks the open Connect dialog shows the chat
// apps, each with its steps; this server's Site URL is on this machine,
// which their clouds cannot reach, and the dialog says so for the admin.
func dialogShowsTheChatApps(t *testing.T, tab context.Context) {
	t.Helper()
	hosts := evalJS[string](t, tab, `Array.from(document.querySelectorAll('[data-dialog=connect] [data-host], [data-dialog=connect] [data-blocked]')).map(h => (h.dataset.host || "blocked") + ": " + h.textContent).join("\n")`)
	for _, want := range []string{"chatgpt: ChatGPT", "claude: Claude (claude.ai and Claude Desktop)", "search and fetch", "Add custom connector",
		"cannot connect to this server yet", "is not reachable from the internet", "For your system admin"} {
		if !strings.Contains(hosts, want) {
			t.Errorf("the dialog's chat apps do not say %q:\n%s", want, hosts)
		}
	}
}
