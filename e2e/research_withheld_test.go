package e2e

// search and fetch stand for the tools that read the same things
// (paths.Fetch): with read_file or read_thread left out by the admin,
// fetch refuses that kind and search leaves it out and says why.

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// leftOut sets the tools the admin leaves out, cleared when the test ends.
func leftOut(t *testing.T, names string) {
	t.Helper()
	if err := mm.PatchPluginSettings(map[string]any{"ExcludedTools": names}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ExcludedTools": ""}); err != nil {
			t.Errorf("clear the tools left out: %v", err)
		}
	})
}

// researchFound is what search finds of query, and its note.
func researchFound(t *testing.T, c *client.Client, query string) ([]string, string) {
	t.Helper()
	var got tools.SearchResults
	structuredAs(t, call(t, c, "search", map[string]any{"query": query}), &got)
	var ids []string
	for _, r := range got.Results {
		ids = append(ids, r.ID)
	}
	return ids, got.Note
}

// fetchRefused checks fetch of id is refused saying want.
func fetchRefused(t *testing.T, c *client.Client, id, want string) {
	t.Helper()
	res := call(t, c, "fetch", map[string]any{"id": id})
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("fetch %s answered (error %v) %s; want refused saying %q", id, res.IsError, text(res), want)
	}
}

func TestWithReadFileOrReadThreadLeftOutFetchRefusesThatKindAndSearchLeavesItOutSayingWhyThenBothFindItBack(t *testing.T) {
	alice := mm.Users[0]
	word := "wharf" + strings.ToLower(model.NewId()[:8])
	ch := createChannel(t, alice, uniq(t, "withheld-"), "Withheld "+word[5:], model.ChannelTypeOpen)
	post := createPost(t, alice, ch.Id, "The "+word+" plan is attached below.", "")
	_, files := postFiles(t, alice, ch.Id, "the plan", map[string][]byte{word + "-plan.txt": []byte("Ship it on the 14th.\n")})
	file, thread := "file:"+files[0].Id, "post:"+post.Id
	c := connect(t, mm.URL, alice.Token)
	const because = `is not offered here, since the admin left this tool out (the setting "Tools to leave out")`

	t.Run("read_file left out", func(t *testing.T) {
		leftOut(t, "read_file")
		fetchRefused(t, c, file, file+" was not fetched: fetching a file reads what read_file reads, and read_file "+because+".")
		ids, note := researchFound(t, c, word)
		if slices.Contains(ids, file) || !slices.Contains(ids, thread) {
			t.Errorf("search %s with read_file left out found %v; want the post and no file", word, ids)
		}
		if want := "Files were not searched: read_file " + because + "."; note != want {
			t.Errorf("search's note is %q, want %q", note, want)
		}
	})
	t.Run("read_thread left out", func(t *testing.T) {
		leftOut(t, "read_thread")
		fetchRefused(t, c, thread, thread+" was not fetched: fetching a post reads what read_thread reads, and read_thread "+because+".")
		ids, note := researchFound(t, c, word)
		if slices.Contains(ids, thread) || !slices.Contains(ids, file) {
			t.Errorf("search %s with read_thread left out found %v; want the file and no post", word, ids)
		}
		if want := "Posts were not searched: read_thread " + because + "."; note != want {
			t.Errorf("search's note is %q, want %q", note, want)
		}
	})

	// Nothing left out: the same calls find and read both.
	ids, note := researchFound(t, c, word)
	if !slices.Contains(ids, file) || !slices.Contains(ids, thread) || note != "" {
		t.Fatalf("search %s with nothing left out found %v, note %q; want the file and the post, no note", word, ids, note)
	}
	for id, want := range map[string]string{file: "Ship it on the 14th.", thread: "The " + word + " plan"} {
		var item tools.FetchedItem
		res := call(t, c, "fetch", map[string]any{"id": id})
		structuredAs(t, res, &item)
		if res.IsError || !strings.Contains(item.Text, want) {
			t.Errorf("fetch %s with nothing left out answered (error %v) %s; want its text", id, res.IsError, text(res))
		}
	}
}
