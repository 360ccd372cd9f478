package e2e

// A file is read only while its post is. Mattermost leaves a file's record
// live where its post goes by another way than its own deletion of that
// post: a reply of a thread deleted through its root, a post removed by a
// job or another plugin, a file taken off its post by an edit or a move.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// goneFile is a text file posted for these tests: its name and its text
// hold a word of its own, which nothing else holds.
type goneFile struct {
	id, name, word string
}

// uploadGoneFiles uploads a text file for each label into a channel as
// alice, unposted; each one's word is the label and stem.
func uploadGoneFiles(t *testing.T, channelID, stem string, labels ...string) []goneFile {
	t.Helper()
	var out []goneFile
	for _, label := range labels {
		f := goneFile{word: label + stem}
		f.name = f.word + ".txt"
		up, _, err := mm.Client(mm.Users[0]).UploadFile(context.Background(), []byte("The "+f.word+" notes.\n"), channelID, f.name)
		if err != nil {
			t.Fatalf("upload %s: %v", f.name, err)
		}
		f.id = up.FileInfos[0].Id
		out = append(out, f)
	}
	return out
}

func goneIDs(files []goneFile) []string {
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.id
	}
	return ids
}

// isFound checks, each with a request of its own, that the searches find f
// and every tool and the file resource read it.
func isFound(t *testing.T, c *client.Client, s *sdk.ClientSession, f goneFile) {
	t.Helper()
	if got := searchFiles(t, c, map[string]any{"words": f.word}); !listsFile(got, f.id) {
		t.Errorf("search_files by the words of %s misses it: %+v", f.name, got)
	}
	if got := searchFiles(t, c, map[string]any{"name": f.word}); !listsFile(got, f.id) {
		t.Errorf("search_files by the name of %s misses it: %+v", f.name, got)
	}
	if !researchFinds(t, c, f.word, f.id) {
		t.Errorf("search misses %s", f.name)
	}
	for _, probe := range goneProbes(f) {
		if res := call(t, c, probe.tool, probe.args); res.IsError || !strings.Contains(text(res), probe.holds) {
			t.Errorf("%s %v does not read %s: %s", probe.tool, probe.args, f.name, text(res))
		}
	}
	if got := readResource(t, s, resources.FileURI(f.id)); !strings.Contains(got[0].Text, "The "+f.word+" notes.") {
		t.Errorf("the resource of %s reads %q", f.name, got[0].Text)
	}
}

// isGone checks, each with a request of its own, that no search finds f and
// no tool, nor the file resource, reads it: each answers not found.
func isGone(t *testing.T, c *client.Client, s *sdk.ClientSession, f goneFile) {
	t.Helper()
	if got := searchFiles(t, c, map[string]any{"words": f.word}); len(got.Files) != 0 {
		t.Errorf("search_files by the words of %s finds: %+v", f.name, got)
	}
	if got := searchFiles(t, c, map[string]any{"name": f.word}); len(got.Files) != 0 {
		t.Errorf("search_files by the name of %s finds: %+v", f.name, got)
	}
	if researchFinds(t, c, f.word, f.id) {
		t.Errorf("search finds %s", f.name)
	}
	for _, probe := range goneProbes(f) {
		res := call(t, c, probe.tool, probe.args)
		if body := text(res); !res.IsError || !strings.Contains(strings.ToLower(body), "not found") && !strings.Contains(body, "was found") ||
			strings.Contains(body, "notes.") {
			t.Errorf("%s %v of %s answered: %s", probe.tool, probe.args, f.name, body)
		}
	}
	// Not notFound, which stops the test: each probe of each file is told.
	uri := resources.FileURI(f.id)
	_, err := s.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 || !strings.Contains(rpcErr.Message, "was not found") {
		t.Errorf("read %s of %s: %v, want not found (-32002)", uri, f.name, err)
	}
}

type goneProbe struct {
	tool  string
	args  map[string]any
	holds string // what an answer that reads the file holds
}

func goneProbes(f goneFile) []goneProbe {
	return []goneProbe{
		{"read_file", map[string]any{"file_id": f.id}, "The " + f.word + " notes."},
		{"get_file_info", map[string]any{"file_id": f.id}, f.name},
		{"fetch", map[string]any{"id": "file:" + f.id}, "The " + f.word + " notes."},
	}
}

func TestAFileWhosePostIsGoneOrNoLongerListsItIsFoundByNoSearchAndReadByNoTool(t *testing.T) {
	ctx := context.Background()
	alice := mm.Users[0]
	c := aliceClient(t)
	s := sdkAs(t, alice, "2025-11-25")
	for _, tc := range []struct {
		name string
		// leave takes the files off their post, or the post away, in the
		// database, and says which of them the post still holds.
		leave func(t *testing.T, post *model.Post, files []goneFile) (stays []goneFile)
	}{
		{"its post marked deleted, the file's record left live", func(t *testing.T, post *model.Post, _ []goneFile) []goneFile {
			if err := mm.MarkPostDeleted(ctx, post.Id); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{"its post, live, no longer listing it", func(t *testing.T, post *model.Post, files []goneFile) []goneFile {
			if err := mm.SetPostFileIDs(ctx, post.Id, []string{files[2].id}); err != nil {
				t.Fatal(err)
			}
			return files[2:]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stem := strings.ToLower(model.NewId()[:8])
			ch := createChannel(t, alice, uniq(t, "gone-"), "Gone "+stem, model.ChannelTypePrivate)
			// seen is read before its post goes (this node then keeps its
			// record), fresh never is (read afresh), kept stays on a post
			// that stays.
			files := uploadGoneFiles(t, ch.Id, stem, "seen", "fresh", "kept")
			post := createPost(t, alice, ch.Id, "three notes", "", goneIDs(files)...)
			waitExtracted(t, goneIDs(files)...)
			isFound(t, c, s, files[0])
			isFound(t, c, s, files[2])

			stays := tc.leave(t, post, files)
			// The records are as they were: live, naming the post.
			if live, deleted, err := mm.FileInfoStates(ctx, stem); err != nil || live != 3 || deleted != 0 {
				t.Fatalf("the files' records: %d live, %d deleted, %v; want all 3 left live", live, deleted, err)
			}
			for _, f := range files[:2] {
				isGone(t, c, s, f)
			}
			for _, f := range stays {
				isFound(t, c, s, f)
			}
			if len(stays) == 0 {
				isGone(t, c, s, files[2])
			}
		})
	}
}

func TestTheFilesOfRepliesOfAThreadDeletedThroughItsRootAreFoundByNoSearchAndReadByNoTool(t *testing.T) {
	ctx := context.Background()
	alice := mm.Users[0]
	c := aliceClient(t)
	s := sdkAs(t, alice, "2025-11-25")
	stem := strings.ToLower(model.NewId()[:8])
	ch := createChannel(t, alice, uniq(t, "thread-gone-"), "Thread gone "+stem, model.ChannelTypePrivate)
	roots := uploadGoneFiles(t, ch.Id, stem, "rootfile")
	root := createPost(t, alice, ch.Id, "the thread's root", "", roots[0].id)
	replies := uploadGoneFiles(t, ch.Id, stem, "seenreply", "freshreply")
	for i, f := range replies {
		createPost(t, alice, ch.Id, fmt.Sprintf("reply %d", i+1), root.Id, f.id)
	}
	waitExtracted(t, goneIDs(append(roots, replies...))...)
	isFound(t, c, s, replies[0])
	isFound(t, c, s, roots[0])

	if _, err := mm.Client(alice).DeletePost(ctx, root.Id); err != nil {
		t.Fatal(err)
	}
	// Mattermost marks the replies deleted at once and their files a moment
	// later (9.11 and 11.4 alike, as logged): the rule does not wait for
	// the files.
	live, deleted, err := mm.FileInfoStates(ctx, "reply"+stem)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after the root's deletion, the replies' file records: %d live, %d deleted", live, deleted)
	for _, f := range append(replies, roots...) {
		isGone(t, c, s, f)
	}
}
