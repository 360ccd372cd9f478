package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestReadChannelPagesThroughEveryPostWithTheCursorNoneLostOrRepeated(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "paged-"), "Paged", model.ChannelTypeOpen)
	want := map[string]bool{}
	for i := range 25 {
		want[createPost(t, alice, ch.Id, fmt.Sprintf("post number %d", i), "").Id] = true
	}
	c := connect(t, mm.URL, alice.Token)
	args := map[string]any{"channel": ch.Id, "limit": 7}
	seen := map[string]bool{}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("read_channel did not reach the start of the channel in 10 pages")
		}
		res := call(t, c, "read_channel", args)
		if res.IsError {
			t.Fatalf("read_channel: %s", text(res))
		}
		var page tools.PostPage
		structuredAs(t, res, &page)
		for _, p := range page.Posts {
			if seen[p.ID] {
				t.Fatalf("post %s shown twice", p.ID)
			}
			seen[p.ID] = true
			if p.Author != "@alice" {
				t.Errorf("post %s author %q, want @alice", p.ID, p.Author)
			}
		}
		if page.NextCursor == "" {
			if !page.Complete || !strings.Contains(text(res), "start of the channel") {
				t.Fatalf("the last page should say it is the start of the channel: %s", text(res))
			}
			break
		}
		if !strings.Contains(text(res), page.NextCursor) {
			t.Fatalf("the answer does not give the next call with its cursor: %s", text(res))
		}
		args["cursor"] = page.NextCursor
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("post %s was never shown", id)
		}
	}
}

func TestACursorReusedWithAnotherChannelIsRefusedWithTheNextStep(t *testing.T) {
	alice := mm.Users[0]
	a := createChannel(t, alice, uniq(t, "cur-a-"), "Cursor A", model.ChannelTypeOpen)
	b := createChannel(t, alice, uniq(t, "cur-b-"), "Cursor B", model.ChannelTypeOpen)
	for i := range 3 {
		createPost(t, alice, a.Id, fmt.Sprintf("a %d", i), "")
	}
	c := connect(t, mm.URL, alice.Token)
	var page tools.PostPage
	structuredAs(t, call(t, c, "read_channel", map[string]any{"channel": a.Id, "limit": 1}), &page)
	if page.NextCursor == "" {
		t.Fatal("no cursor after one of three posts")
	}
	res := call(t, c, "read_channel", map[string]any{"channel": b.Id, "limit": 1, "cursor": page.NextCursor})
	if !res.IsError || !strings.Contains(text(res), "without cursor") {
		t.Fatalf("a cursor of another channel should be refused with the next step: %s", text(res))
	}
	res = call(t, c, "search_posts", map[string]any{"terms": "a", "cursor": page.NextCursor})
	if !res.IsError || !strings.Contains(text(res), "another call") {
		t.Fatalf("a cursor of another tool should be refused: %s", text(res))
	}
}

func TestReadChannelDescribesAttachmentsWithTheirFileIDsNeverTheirContent(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "files-"), "Files", model.ChannelTypeOpen)
	secret := "content-" + model.NewId()
	up, _, err := mm.Client(alice).UploadFile(context.Background(), []byte(secret), ch.Id, "notes.txt")
	if err != nil || len(up.FileInfos) != 1 {
		t.Fatalf("upload: %v", err)
	}
	p := createPost(t, alice, ch.Id, "see attached", "", up.FileInfos[0].Id)
	res := call(t, connect(t, mm.URL, alice.Token), "read_channel", map[string]any{"channel": ch.Id})
	var page tools.PostPage
	structuredAs(t, res, &page)
	// The newest post is alice's; below it is the system message of her joining.
	if len(page.Posts) == 0 || page.Posts[0].ID != p.Id {
		t.Fatalf("want alice's post first, got %+v", page.Posts)
	}
	got := page.Posts[0]
	if len(got.Attachments) != 1 || got.Attachments[0].ID != up.FileInfos[0].Id || got.Attachments[0].Name != "notes.txt" || got.Attachments[0].Size != int64(len(secret)) {
		t.Fatalf("attachment described as %+v", got.Attachments)
	}
	if !strings.Contains(text(res), `read_file(file_id="`+up.FileInfos[0].Id+`")`) {
		t.Errorf("the answer does not say how to read the file: %s", text(res))
	}
	if strings.Contains(text(res), secret) {
		t.Errorf("the file's content was inlined")
	}
	if !strings.HasSuffix(got.Permalink, "/"+mm.Team.Name+"/pl/"+p.Id) {
		t.Errorf("permalink %s", got.Permalink)
	}
}

func TestReadThreadReturnsTheRootThenRepliesInOrder(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "thread-"), "Thread", model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	root := createPost(t, alice, ch.Id, "root", "")
	var want []string
	want = append(want, root.Id)
	for i := range 5 {
		u := alice
		if i%2 == 1 {
			u = bob
		}
		want = append(want, createPost(t, u, ch.Id, fmt.Sprintf("reply %d", i), root.Id).Id)
	}
	c := connect(t, mm.URL, alice.Token)
	var got []string
	args := map[string]any{"post": mm.URL + "/" + mm.Team.Name + "/pl/" + want[3], "limit": 4}
	for range 3 {
		res := call(t, c, "read_thread", args)
		if res.IsError {
			t.Fatalf("read_thread: %s", text(res))
		}
		var page tools.PostPage
		structuredAs(t, res, &page)
		for _, p := range page.Posts {
			got = append(got, p.ID)
		}
		if page.NextCursor == "" {
			break
		}
		args["cursor"] = page.NextCursor
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("thread read as %v, want %v", got, want)
	}
}

func TestSearchPostsFindsAPostByAUniqueWordAndByFromAlice(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "search-"), "Search", model.ChannelTypeOpen)
	word := "zebra" + strings.ToLower(model.NewId()[:10])
	p := createPost(t, alice, ch.Id, "the word is "+word, "")
	c := connect(t, mm.URL, alice.Token)
	for _, terms := range []string{word, "from:alice " + word, fmt.Sprintf("from:alice in:%s", ch.Name)} {
		res := call(t, c, "search_posts", map[string]any{"terms": terms})
		var page tools.PostPage
		structuredAs(t, res, &page)
		found := false
		for _, h := range page.Posts {
			found = found || h.ID == p.Id
		}
		if !found {
			t.Errorf("search_posts(%q) did not find the post: %s", terms, text(res))
		}
	}
	res := call(t, c, "search_posts", map[string]any{"terms": "from:bob " + word})
	var page tools.PostPage
	structuredAs(t, res, &page)
	if len(page.Posts) != 0 {
		t.Errorf("from:bob found alice's post: %s", text(res))
	}
}

// TestBobCannotSeeAlicesPrivateChannelOrHerDMWithTheAdmin checks every
// channel and post tool against the same two conversations bob is not in.
func TestBobCannotSeeAlicesPrivateChannelOrHerDMWithTheAdmin(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	word := "hidden" + strings.ToLower(model.NewId()[:10])
	priv := createChannel(t, alice, uniq(t, "private-"), "Private "+word, model.ChannelTypePrivate)
	privPost := createPost(t, alice, priv.Id, "secret "+word, "")
	dm, _, err := mm.Client(alice).CreateDirectChannel(context.Background(), alice.ID, mm.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	dmPost := createPost(t, alice, dm.Id, "dm "+word, "")

	// Alice sees both, so the checks below are not vacuous.
	ac := connect(t, mm.URL, alice.Token)
	var hits tools.PostPage
	structuredAs(t, call(t, ac, "search_posts", map[string]any{"terms": word}), &hits)
	if len(hits.Posts) != 2 {
		t.Fatalf("alice should find both posts, got %d", len(hits.Posts))
	}

	bc := connect(t, mm.URL, bob.Token)
	leaks := func(res string) bool {
		return strings.Contains(res, priv.Id) || strings.Contains(res, dm.Id) || strings.Contains(res, "secret "+word) || strings.Contains(res, "dm "+word) ||
			strings.Contains(res, privPost.Id) || strings.Contains(res, dmPost.Id)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_channel", map[string]any{"channel": priv.Id}},
		{"get_channel", map[string]any{"channel": "~" + priv.Name}},
		{"get_channel", map[string]any{"channel": mm.URL + "/" + mm.Team.Name + "/channels/" + priv.Name}},
		{"get_channel", map[string]any{"channel": dm.Id}},
		{"read_channel", map[string]any{"channel": priv.Id}},
		{"read_channel", map[string]any{"channel": dm.Id}},
		{"read_thread", map[string]any{"post": privPost.Id}},
		{"read_thread", map[string]any{"post": dmPost.Id}},
	} {
		res := call(t, bc, tc.tool, tc.args)
		msg := text(res)
		if !res.IsError || !(strings.Contains(msg, "No channel matches") || strings.Contains(msg, "No post")) {
			t.Errorf("%s %v for bob: want not found, got %s", tc.tool, tc.args, msg)
		}
		if strings.Contains(strings.ToLower(msg), "forbidden") || strings.Contains(strings.ToLower(msg), "permission") {
			t.Errorf("%s %v tells bob it exists: %s", tc.tool, tc.args, msg)
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"list_channels", nil},
		{"search_channels", map[string]any{"term": "private"}},
		{"search_channels", map[string]any{"term": word}},
		{"search_posts", map[string]any{"terms": word}},
		{"search_posts", map[string]any{"terms": "from:alice"}},
	} {
		if msg := text(call(t, bc, tc.tool, tc.args)); leaks(msg) {
			t.Errorf("%s %v shows bob alice's private conversations: %s", tc.tool, tc.args, msg)
		}
	}
}
