package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

const researchSite = "https://chat.example.com"

func TestAResearchIDIsReadInEachFormAModelMayHoldAndAnythingElseIsRefusedWithTheForm(t *testing.T) {
	id := "post1id00000000000000000000"[:26]
	cases := []struct {
		in   string
		want researchID
		ok   bool
	}{
		{"post:" + id, researchID{researchPost, id}, true},
		{" FILE:" + id + " ", researchID{researchFile, id}, true},
		{"channel: " + id, researchID{researchChannel, id}, true},
		{id, researchID{"", id}, true},
		{researchSite + "/engineering/pl/" + id, researchID{researchPost, id}, true},
		{researchSite + "/engineering/pl/" + id + "?view=thread", researchID{researchPost, id}, true},
		{"", researchID{}, false},
		{"team:" + id, researchID{}, false},
		{"post:" + id + "x", researchID{}, false},
		{"post:../../" + id[:20], researchID{}, false},
		{researchSite + "/engineering/pl/short", researchID{}, false},
		{strings.Repeat("p", 5000), researchID{}, false},
	}
	for _, tc := range cases {
		got, err := parseResearchID(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("parseResearchID(%.60q) = %+v, %v; want %+v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil {
			if r, isRefusal := refusal.As(err); !isRefusal || !strings.Contains(r.Error(), "post:<id>") {
				t.Errorf("parseResearchID(%.60q) refused without the form to give: %v", tc.in, err)
			}
		}
	}
}

func FuzzAResearchIDParsesWithoutPanicAndAKindedIDReadsBackAsItself(f *testing.F) {
	for _, s := range []string{"post:post1id00000000000000000000", "file:abc", researchSite + "/t/pl/post1id0000000000000000000", ":", "channel:\u202e", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseResearchID(s)
		if err != nil {
			return
		}
		if !model.IsValidId(got.id) {
			t.Fatalf("parseResearchID(%q) gave an invalid id %q", s, got.id)
		}
		again, err := parseResearchID(got.String())
		if err != nil || again != got {
			t.Fatalf("parseResearchID(%q) = %+v reads back as %+v, %v", s, got, again, err)
		}
	})
}

func TestAQuerysPlainWordsLeaveOutOperatorsStopWordsAndRepeats(t *testing.T) {
	cases := map[string][]string{
		"What did we decide about the release?":        {"decide", "release"},
		`"release plan" from:alice in:eng -draft rel*`: {"release", "plan", "rel"},
		"Release release RELEASE #eng ~ops @bob":       {"release", "eng", "ops", "bob"},
		"a b c":                                        nil,
		"one two three four five six seven eight nine": {"one", "two", "three", "four", "five", "six", "seven", "eight"},
	}
	for q, want := range cases {
		if got := queryWords(q); !reflect.DeepEqual(got, want) {
			t.Errorf("queryWords(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestSearchAnswersTheBestTierFirstThenTheNewestAtMostTwentyAndFiveChannels(t *testing.T) {
	found := &researchFound{hits: map[string]researchHit{}}
	town := readingChannels()[0]
	for i := range 30 {
		id := researchID{researchPost, strings.Repeat(string(rune('a'+i%26)), 25) + string(rune('a'+i/26))}
		tier := tierSomeWords
		if i%3 == 0 {
			tier = tierAllWords
		}
		found.add(researchHit{tier: tier, at: readingNow - int64(i)*60_000, ResearchResult: ResearchResult{
			ID: id.String(), Title: postTitle("Post "+id.id, "~town-square", "@bob", readingNow), URL: researchSite + "/engineering/pl/" + id.id}})
	}
	for i := range 8 {
		found.add(researchHit{tier: tierSomeNamedChannel, at: readingNow, ResearchResult: ResearchResult{
			ID: researchID{researchChannel, strings.Repeat("c", 25) + string(rune('a'+i))}.String(), Title: channelTitle(town, "~town-square")}})
	}
	// A thing found twice keeps its best tier.
	found.add(researchHit{tier: tierSomeWords, at: readingNow, ResearchResult: ResearchResult{ID: "post:" + strings.Repeat("a", 26)}})
	res, err := asJSON(found.ranked())
	if err != nil {
		t.Fatal(err)
	}
	got := res.Data.Results
	if len(got) != maxResearchResults {
		t.Fatalf("%d results, want %d", len(got), maxResearchResults)
	}
	channels := 0
	for i, r := range got {
		if strings.HasPrefix(r.ID, "channel:") {
			channels++
		}
		if i < 10 && !strings.HasPrefix(r.ID, "post:") {
			t.Errorf("result %d is %s; the ten posts that match every word come first", i, r.ID)
		}
	}
	if channels > maxResearchChannels {
		t.Errorf("%d channels among the results, want at most %d", channels, maxResearchChannels)
	}
	if got[0].ID != "post:"+strings.Repeat("a", 26) {
		t.Errorf("first result %s, want the newest post of the best tier", got[0].ID)
	}
	researchTextIsTheStructuredResult(t, res)
}

// researchTextIsTheStructuredResult checks the contract: one text item,
// the JSON of the structured result and nothing else.
func researchTextIsTheStructuredResult[T any](t *testing.T, res catalogue.Result[T]) {
	t.Helper()
	if len(res.More) != 0 {
		t.Errorf("%d content items beside the text; a research host reads exactly one", len(res.More))
	}
	var back T
	if err := json.Unmarshal([]byte(res.Text), &back); err != nil {
		t.Fatalf("the text is not JSON: %v", err)
	}
	if !reflect.DeepEqual(back, res.Data) {
		t.Errorf("the text's JSON %s differs from the structured result %+v", res.Text, res.Data)
	}
}

func TestResearchTitlesReadWellInACitationListAndShowWhatIsHidden(t *testing.T) {
	channels := readingChannels()
	cases := map[string]string{
		postTitle("We ship 11.4\non the 14th.", "~town-square", "@alice", readingNow): "We ship 11.4 on the 14th. (~town-square, @alice, 2026-03-02)",
		postTitle(strings.Repeat("word ", 30), "~ops", "@bob", readingNow):            strings.TrimSpace(strings.Repeat("word ", 16)) + "… (~ops, @bob, 2026-03-02)",
		postTitle("", "direct message with @bob", "@bob", 0):                          "(no text) (direct message with @bob, @bob, undated)",
		postTitle("Run th\u200be migration", "~ops", "@carol", readingNow):            "Run th⟨U+200B⟩e migration (~ops, @carol, 2026-03-02)",
		fileTitle("plan.docx", "~town-square", readingNow):                            "plan.docx (file in ~town-square, 2026-03-02)",
		channelTitle(channels[0], "~town-square"):                                     "Town Square (public channel ~town-square of team Engineering)",
		channelTitle(channels[2], "direct message with @bob"):                         "direct message with @bob",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("title %q, want %q", got, want)
		}
	}
}

func TestFetchWritesAThreadAFileAndAChannelAsTheReadingToolsDoWithTheirFacts(t *testing.T) {
	posts := readingPosts()
	oldestFirst := []PostView{posts[2], posts[1], posts[0]}
	town := readingChannels()[0]
	root := &model.Post{Id: posts[2].ID, ChannelId: town.ch.Id, Message: "Starting the deploy now.", CreateAt: readingNow - 45*60_000, EditAt: readingNow - 44*60_000}
	thread, err := threadItem(fetchedThread{
		posts: threadPosts{cursor: readingCursor(t, "read_thread", readThreadArgs{Post: root.Id, Limit: fetchThreadPosts}), rootID: root.Id, total: 3,
			page: PostPage{Posts: oldestFirst, Complete: true}, end: 3},
		root: root, lastAt: readingNow - 5*60_000, view: town, where: "~town-square", author: "@alice", site: researchSite,
	})
	fetchGolden(t, "fetch_thread", thread, err)

	info := &model.FileInfo{Id: "file1id00000000000000000000"[:26], Name: "plan.txt", MimeType: "text/plain", Size: 42, CreateAt: readingNow}
	fetchGolden(t, "fetch_file", fileItem(fetchedFile{info: info, text: "plan.txt: lines 1-2 of 2.\n\n1 Ship on the 14th.\n2 Tell support.",
		postedBy: "@alice", view: &town, where: "~town-square", site: researchSite, permalink: researchSite + "/engineering/pl/" + root.Id}), nil)
	fetchGolden(t, "fetch_file_not_posted", fileItem(fetchedFile{info: info, text: "plan.txt", postedBy: "@me", site: researchSite + "/"}), nil)

	ci := town.info()
	channel, err := channelItem(fetchedChannel{
		posts: channelPosts{cursor: readingCursor(t, "read_channel", readChannelArgs{Channel: town.ch.Id, Limit: fetchChannelPosts, Replies: repliesCollapsed}), view: town,
			page: PostPage{Channel: &ci, Posts: posts, NextCursor: "next"}, firstPage: true, collapsed: true, chosen: true, skippedReplies: 2},
		where: "~town-square", url: researchSite + "/engineering/channels/town-square",
	})
	fetchGolden(t, "fetch_channel", channel, err)
}

// fetchGolden compares fetch's item, as its one text item reads, with its
// golden file, and checks the contract.
func fetchGolden(t *testing.T, name string, item FetchedItem, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	kind := map[string]researchKind{"thread": researchPost, "file": researchFile, "channel": researchChannel}[item.Metadata["type"]]
	item.ID = researchID{kind, strings.Repeat("x", 26)}.String()
	res, err := asJSON(item)
	if err != nil {
		t.Fatal(err)
	}
	researchTextIsTheStructuredResult(t, res)
	for k, v := range item.Metadata {
		if v == "" {
			t.Errorf("metadata %q is empty", k)
		}
	}
	raw, err := json.MarshalIndent(item, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name, append(raw, '\n'))
}
