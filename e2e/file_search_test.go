package e2e

// Issue 54: file search runs in Mattermost's database with its full-text
// indexes, over every file of the person's channels (no horizon of the
// newest few thousand), and finds only what they may read.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// driveDocuments is how many documents the shared channel holds: more than
// two pages of search_files, so that paging reaches the oldest.
const driveDocuments = 45

// waitExtracted waits until Mattermost has extracted the text of each file
// (it does so a moment after each upload).
func waitExtracted(t *testing.T, ids ...string) {
	t.Helper()
	eventuallyWithin(t, time.Minute, fmt.Sprintf("Mattermost has extracted the text of all %d files", len(ids)), func() bool {
		n, err := mm.ExtractedFiles(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		return n == len(ids)
	})
}

// searchFiles calls search_files and reads its structured answer.
func searchFiles(t *testing.T, c *client.Client, args map[string]any) tools.FileList {
	t.Helper()
	res := call(t, c, "search_files", args)
	if res.IsError {
		t.Fatalf("search_files %v refused: %s", args, text(res))
	}
	var out tools.FileList
	structuredAs(t, res, &out)
	return out
}

// researchFinds reports whether search(query) lists the file.
func researchFinds(t *testing.T, c *client.Client, query, fileID string) bool {
	t.Helper()
	res := call(t, c, "search", map[string]any{"query": query})
	if res.IsError {
		t.Fatalf("search %q refused: %s", query, text(res))
	}
	var out tools.SearchResults
	structuredAs(t, res, &out)
	return slices.ContainsFunc(out.Results, func(r tools.ResearchResult) bool { return r.ID == "file:"+fileID })
}

func listsFile(list tools.FileList, id string) bool {
	return slices.ContainsFunc(list.Files, func(f tools.FoundFile) bool { return f.FileID == id })
}

func TestFileSearchFindsTheOldestDocumentsWordAndANameOnlyWordAmongManyDocuments(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	stem := strings.ToLower(model.NewId()[:8])
	oldest, nameOnly, common := "oldestword"+stem, "nameword"+stem, "drivecommon"+stem
	drive := createChannel(t, alice, uniq(t, "drive-"), "Drive "+stem, model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), drive.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, driveDocuments)
	for i := range driveDocuments {
		body := fmt.Sprintf("Document %d, %s.\n%s", i, common, harness.Prose(i, 32<<10))
		name := fmt.Sprintf("document-%02d.txt", i)
		switch i {
		case 0:
			body += "\nOnly the oldest says " + oldest + ".\n"
		case driveDocuments / 2:
			name = "minutes-" + nameOnly + ".txt"
		}
		_, infos := postFiles(t, alice, drive.Id, fmt.Sprintf("document %d", i), map[string][]byte{name: []byte(body)})
		ids[i] = infos[0].Id
	}
	waitExtracted(t, ids...)

	b := connect(t, mm.URL, bob.Token)
	got := searchFiles(t, b, map[string]any{"words": oldest})
	if len(got.Files) != 1 || got.Files[0].FileID != ids[0] || !got.Complete {
		t.Fatalf("search_files of a word only the oldest document holds: %+v, want exactly %s", got, ids[0])
	}
	if !strings.Contains(got.Files[0].Snippet, oldest) {
		t.Errorf("the oldest document's snippet %q does not show the word", got.Files[0].Snippet)
	}
	got = searchFiles(t, b, map[string]any{"words": nameOnly})
	if len(got.Files) != 1 || got.Files[0].FileID != ids[driveDocuments/2] || got.Files[0].Snippet != "" {
		t.Fatalf("search_files of a word only a file's name holds: %+v, want exactly %s without a snippet", got, ids[driveDocuments/2])
	}
	if !researchFinds(t, b, oldest, ids[0]) || !researchFinds(t, b, nameOnly, ids[driveDocuments/2]) {
		t.Fatal("search misses the oldest document's word or the name's word")
	}
	// The official Go SDK validates the answer against the tool's output
	// schema, snippet and cursor included.
	viaOfficial, err := officialSDK(t, bob).CallTool(context.Background(), &sdk.CallToolParams{Name: "search_files", Arguments: map[string]any{"words": common, "limit": 2}})
	if err != nil || viaOfficial.IsError {
		t.Fatalf("search_files through the official SDK: %v %+v", err, viaOfficial)
	}
	raw, _ := json.Marshal(viaOfficial.StructuredContent)
	var viaSDK tools.FileList
	if err := json.Unmarshal(raw, &viaSDK); err != nil || len(viaSDK.Files) != 2 || viaSDK.Files[0].FileID != ids[driveDocuments-1] ||
		viaSDK.NextCursor == "" || !strings.Contains(viaSDK.Files[0].Snippet, common) {
		t.Fatalf("search_files through the official SDK answered %s (%v): want the newest two with snippets and a cursor", raw, err)
	}

	// Every document, newest first, a page at a time, each once.
	var seen []string
	args := map[string]any{"words": common, "limit": 20}
	for page := 1; ; page++ {
		got := searchFiles(t, b, args)
		for _, f := range got.Files {
			seen = append(seen, f.FileID)
		}
		if got.Complete {
			if got.NextCursor != "" {
				t.Fatalf("page %d is complete yet gives a cursor", page)
			}
			break
		}
		if page == 5 || got.NextCursor == "" {
			t.Fatalf("page %d: no end after %d files (cursor %q)", page, len(seen), got.NextCursor)
		}
		args = map[string]any{"words": common, "limit": 20, "cursor": got.NextCursor}
	}
	want := slices.Clone(ids)
	slices.Reverse(want)
	if !slices.Equal(seen, want) {
		t.Fatalf("paging listed %d files %v, want the %d documents newest first %v", len(seen), seen, len(want), want)
	}
	res := call(t, b, "search_files", map[string]any{"words": oldest, "cursor": "bm90IGEgY3Vyc29y"})
	if !res.IsError || !strings.Contains(text(res), "without cursor") {
		t.Fatalf("a cursor no call made was not refused with what to do: %s", text(res))
	}
}

func TestFileSearchFindsNothingInALeftChannelAnotherPersonsDMOrADeletedPost(t *testing.T) {
	ctx := context.Background()
	alice, bob := mm.Users[0], mm.Users[1]
	stem := strings.ToLower(model.NewId()[:8])
	inLeft, inDM, inDeleted := "leftword"+stem, "dmword"+stem, "deletedword"+stem

	left := createChannel(t, alice, uniq(t, "left-"), "Left "+stem, model.ChannelTypePrivate)
	if _, _, err := mm.Client(alice).AddChannelMember(ctx, left.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, leftFiles := postFiles(t, alice, left.Id, "before bob left", map[string][]byte{"plans.txt": []byte("The " + inLeft + " plan.\n")})
	dm, _, err := mm.Client(alice).CreateDirectChannel(ctx, alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, dmFiles := postFiles(t, alice, dm.Id, "between us", map[string][]byte{"between-us.txt": []byte("The " + inDM + " secret.\n")})
	shared := createChannel(t, alice, uniq(t, "shared-"), "Shared "+stem, model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(ctx, shared.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	deleted, deletedFiles := postFiles(t, alice, shared.Id, "withdrawn", map[string][]byte{"withdrawn.txt": []byte("The " + inDeleted + " draft.\n")})
	waitExtracted(t, leftFiles[0].Id, dmFiles[0].Id, deletedFiles[0].Id)

	// Bob finds the file of the channel he is still in: the words are
	// searchable, and what follows is about where they are.
	b := connect(t, mm.URL, bob.Token)
	if got := searchFiles(t, b, map[string]any{"words": inLeft}); !listsFile(got, leftFiles[0].Id) {
		t.Fatalf("bob, still a member, does not find the file: %+v", got)
	}
	if _, err := mm.Client(bob).RemoveUserFromChannel(ctx, left.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mm.Client(alice).DeletePost(ctx, deleted.Id); err != nil {
		t.Fatal(err)
	}
	for _, probe := range []struct{ word, id, what string }{
		{inLeft, leftFiles[0].Id, "a channel he left"},
		{inDM, dmFiles[0].Id, "a direct message of others"},
		{inDeleted, deletedFiles[0].Id, "a deleted post"},
	} {
		if got := searchFiles(t, b, map[string]any{"words": probe.word}); len(got.Files) != 0 {
			t.Errorf("bob's search_files finds the file of %s: %+v", probe.what, got)
		}
		if researchFinds(t, b, probe.word, probe.id) {
			t.Errorf("bob's search finds the file of %s", probe.what)
		}
	}
	// Alice is in the channel and the DM: the same searches find them.
	a := aliceClient(t)
	for _, f := range []struct{ word, id string }{{inLeft, leftFiles[0].Id}, {inDM, dmFiles[0].Id}} {
		if got := searchFiles(t, a, map[string]any{"words": f.word}); !listsFile(got, f.id) || !researchFinds(t, a, f.word, f.id) {
			t.Errorf("alice's searches miss her own file %s: %+v", f.id, got)
		}
	}
	if got := searchFiles(t, a, map[string]any{"words": inDeleted}); len(got.Files) != 0 {
		t.Errorf("alice's search_files finds her deleted post's file: %+v", got)
	}
}

// The three full-text indexes Mattermost keeps on FileInfo, with the
// expressions the plugin's statement names (server/mattermost/file_search.go).
var fullTextIndexes = map[string]string{
	"idx_fileinfo_name_txt":      "to_tsvector('english'::regconfig, (name)::text)",
	"idx_fileinfo_name_splitted": "to_tsvector('english'::regconfig, translate((name)::text, '.,-'::text, '   '::text))",
	"idx_fileinfo_content_txt":   "to_tsvector('english'::regconfig, content)",
}

func TestAFileSearchIsAnsweredByMattermostsFullTextIndexes(t *testing.T) {
	ctx := context.Background()
	before, err := mm.FileIndexes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, expr := range fullTextIndexes {
		if ix, ok := before[name]; !ok || !strings.Contains(ix.Definition, "USING gin ("+expr+")") {
			t.Fatalf("Mattermost %s has no index %s on %s: %+v", harness.MattermostVersion(), name, expr, before)
		}
	}
	word := "indexword" + strings.ToLower(model.NewId()[:8])
	_, files := postFiles(t, mm.Users[0], townSquare(t).Id, "indexed", map[string][]byte{"indexed.txt": []byte("The " + word + " is here.\n")})
	waitExtracted(t, files[0].Id)
	if got := searchFiles(t, aliceClient(t), map[string]any{"words": word}); !listsFile(got, files[0].Id) {
		t.Fatalf("search_files misses the file: %+v", got)
	}
	// PostgreSQL counts an index's scans when the connection that ran the
	// statement has been idle a while: up to 10 seconds after (its
	// PGSTAT_IDLE_INTERVAL), so the wait is three times that.
	eventuallyWithin(t, 30*time.Second, "a search scanned each of the full-text indexes (it matched the files' text without them)", func() bool {
		after, err := mm.FileIndexes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name := range fullTextIndexes {
			if after[name].Scans <= before[name].Scans {
				return false
			}
		}
		return true
	})
}
