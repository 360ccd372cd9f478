package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// allowWrites turns writes on with a confirmation mode for one test.
func allowWrites(t *testing.T, mode string) {
	t.Helper()
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true, "WriteConfirmation": mode}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mm.PatchPluginSettings(map[string]any{"AllowWrites": false, "WriteConfirmation": config.ConfirmClientThenMattermost})
	})
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// postedFiles downloads a post's files as alice, by name.
func postedFiles(t *testing.T, postID string) (*model.Post, map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	ac := mm.Client(mm.Users[0])
	p, _, err := ac.GetPost(ctx, postID, "")
	if err != nil {
		t.Fatalf("read back post %s: %v", postID, err)
	}
	out := map[string][]byte{}
	for _, id := range p.FileIds {
		info, _, err := ac.GetFileInfo(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		data, _, err := ac.GetFile(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out[info.Name] = data
	}
	return p, out
}

func TestCreatePostWithClientApprovalPostsATextFileAndAForwardedAttachmentByteIdentical(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice := mm.Users[0]
	ch := townSquare(t)
	photo := sidewaysJPEG(t, 40, 30)
	_, infos := postFiles(t, alice, ch.Id, "original", map[string][]byte{"photo.jpg": photo})
	note := "# Minutes\n\n- ship it\n"
	a := aliceClient(t)
	res := call(t, a, "create_post", map[string]any{
		"channel": ch.Id, "message": "Minutes and the photo",
		"files": []map[string]any{{"name": "minutes.md", "content": note}, {"file_id": infos[0].Id}},
	})
	if res.IsError {
		t.Fatalf("create_post: %s", text(res))
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	p, files := postedFiles(t, out.PostID)
	if p.UserId != alice.ID || p.Message != "Minutes and the photo" {
		t.Fatalf("post by %s with %q", p.UserId, p.Message)
	}
	if got, _ := p.GetProp(posting.PropFromMCP).(bool); !got {
		t.Fatalf("post props %v lack %s", p.GetProps(), posting.PropFromMCP)
	}
	if a, _ := p.GetProp(posting.PropAttribution).(string); !strings.Contains(a, "@"+alice.Username) {
		t.Fatalf("attribution %q does not name alice", a)
	}
	// What people see: the footer every Mattermost client shows.
	if shown := p.Attachments(); len(shown) != 1 || !strings.Contains(shown[0].Footer, "AI assistant for @"+alice.Username) {
		t.Fatalf("the post shows no attribution: %+v", shown)
	}
	if sum(files["minutes.md"]) != sum([]byte(note)) || sum(files["photo.jpg"]) != sum(photo) || len(files) != 2 {
		t.Fatalf("posted files differ from what was sent: %d files", len(files))
	}
	if slices.Contains(p.FileIds, infos[0].Id) {
		t.Fatal("the forwarded attachment was moved, not copied")
	}
	orig, _, err := mm.Client(alice).GetFileInfo(context.Background(), infos[0].Id)
	if err != nil || orig.PostId == out.PostID {
		t.Fatalf("the original attachment changed: %v %v", orig, err)
	}
}

func TestDMAndGroupMessageWithClientApprovalReachTheRightPeople(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	a := aliceClient(t)
	marker := uniq(t, "dm")
	res := call(t, a, "dm", map[string]any{"user": "@" + bob.Username, "message": marker})
	if res.IsError {
		t.Fatalf("dm: %s", text(res))
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	p, _, err := mm.Client(bob).GetPost(context.Background(), out.PostID, "")
	if err != nil || p.Message != marker || p.UserId != alice.ID {
		t.Fatalf("bob reads the dm: %v %v", p, err)
	}
	res = call(t, a, "group_message", map[string]any{"users": []string{"@" + bob.Username, mm.Admin.Username}, "message": marker + " group"})
	if res.IsError {
		t.Fatalf("group_message: %s", text(res))
	}
	structuredAs(t, res, &out)
	ch, _, err := mm.Client(bob).GetChannel(context.Background(), out.ChannelID)
	if err != nil || ch.Type != model.ChannelTypeGroup {
		t.Fatalf("bob reads the group channel: %v %v", ch, err)
	}
	if res := call(t, a, "group_message", map[string]any{"users": []string{bob.Username}, "message": "x"}); !res.IsError || !strings.Contains(text(res), "2 to 7") {
		t.Fatalf("a group message with one person: %s", text(res))
	}
}

func TestUpdatePostRefusesSomeoneElsesPostAndEditsYourOwn(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	ch := townSquare(t)
	bobs := createPost(t, bob, ch.Id, "bob's words", "")
	mine := createPost(t, alice, ch.Id, "alice's words", "")
	a := aliceClient(t)
	if res := call(t, a, "update_post", map[string]any{"post_id": bobs.Id, "message": "hijacked"}); !res.IsError || !strings.Contains(text(res), "not the signed-in person's own") {
		t.Fatalf("editing bob's post: %s", text(res))
	}
	if p, _, _ := mm.Client(bob).GetPost(context.Background(), bobs.Id, ""); p.Message != "bob's words" {
		t.Fatalf("bob's post now says %q", p.Message)
	}
	if res := call(t, a, "update_post", map[string]any{"post_id": mine.Id, "message": "alice's better words"}); res.IsError {
		t.Fatalf("editing her own post: %s", text(res))
	}
	if p, _, _ := mm.Client(alice).GetPost(context.Background(), mine.Id, ""); p.Message != "alice's better words" {
		t.Fatalf("alice's post says %q", p.Message)
	}
}

func TestReactionsAreAddedAndRemovedAsTheCaller(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	p := createPost(t, bob, townSquare(t).Id, "react to me", "")
	a := aliceClient(t)
	for i := 0; i < 2; i++ {
		if res := call(t, a, "add_reaction", map[string]any{"post_id": p.Id, "emoji_name": ":thumbsup:"}); res.IsError {
			t.Fatalf("add_reaction: %s", text(res))
		}
	}
	rs, _, err := mm.Client(bob).GetReactions(context.Background(), p.Id)
	if err != nil || len(rs) != 1 || rs[0].UserId != alice.ID || rs[0].EmojiName != "thumbsup" {
		t.Fatalf("reactions after two adds: %v %v", rs, err)
	}
	if res := call(t, a, "remove_reaction", map[string]any{"post_id": p.Id, "emoji_name": "thumbsup"}); res.IsError {
		t.Fatalf("remove_reaction: %s", text(res))
	}
	rs, _, err = mm.Client(bob).GetReactions(context.Background(), p.Id)
	if err != nil || len(rs) != 0 {
		t.Fatalf("reactions after remove: %v %v", rs, err)
	}
}

func TestAMessageOverTheMaximumIsRefusedAndNothingIsCreated(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	ch := townSquare(t)
	marker := uniq(t, "toolong")
	msg := marker + strings.Repeat("x", model.PostMessageMaxRunesV2)
	res := call(t, aliceClient(t), "create_post", map[string]any{"channel": ch.Id, "message": msg,
		"files": []map[string]any{{"name": "a.txt", "content": "a"}}})
	if !res.IsError || !strings.Contains(text(res), fmt.Sprint(model.PostMessageMaxRunesV2)) {
		t.Fatalf("an overlong message: %s", text(res))
	}
	list, _, err := mm.Client(mm.Users[0]).GetPostsForChannel(context.Background(), ch.Id, 0, 20, "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Posts {
		if strings.HasPrefix(p.Message, marker) {
			t.Fatal("the overlong post was created")
		}
	}
}

func TestForwardingAFileFromAChannelBobCannotReadIsNotFoundForBob(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	private := createChannel(t, alice, uniq(t, "vault"), "Vault", model.ChannelTypePrivate)
	_, infos := postFiles(t, alice, private.Id, "secret", map[string][]byte{"plans.txt": []byte("private plans\n")})
	res := call(t, connect(t, mm.URL, bob.Token), "create_post", map[string]any{"channel": townSquare(t).Id, "message": "leak",
		"files": []map[string]any{{"file_id": infos[0].Id}}})
	if body := strings.ToLower(text(res)); !res.IsError || !strings.Contains(body, "not found") || strings.Contains(body, "private plans") {
		t.Fatalf("bob forwarding alice's private file: %s", text(res))
	}
}

func TestWithWritesOffNoWriteToolIsListedOrCallable(t *testing.T) {
	a := aliceClient(t)
	listed := toolNames(t, a)
	for _, name := range []string{"create_post", "dm", "group_message", "update_post", "add_reaction", "remove_reaction"} {
		if slices.Contains(listed, name) {
			t.Fatalf("%s is listed with writes off", name)
		}
		res, err := callErr(a, name, map[string]any{"channel": townSquare(t).Id, "message": "should not post", "user": mm.Users[1].Username})
		if err == nil && !res.IsError {
			t.Fatalf("%s was callable with writes off: %s", name, text(res))
		}
	}
}

func TestEditsAndReactionsAreConfirmedByThePersonLikePosts(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	mine := createPost(t, alice, townSquare(t).Id, "before the edit", "")
	read := func() *model.Post {
		p, _, err := mm.Client(alice).GetPost(context.Background(), mine.Id, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Declined in the client: nothing changes.
	no := connectAsking(t, mm.URL, alice.Token, "", formOnly, &person{answer: respond(mcp.ElicitationResponseActionDecline)})
	for _, probe := range []struct {
		tool string
		args map[string]any
	}{
		{"update_post", map[string]any{"post_id": mine.Id, "message": "declined edit"}},
		{"add_reaction", map[string]any{"post_id": mine.Id, "emoji_name": "smile"}},
	} {
		if res := call(t, no, probe.tool, probe.args); !res.IsError || !strings.Contains(text(res), "nothing") {
			t.Fatalf("%s declined answered %s", probe.tool, text(res))
		}
	}
	if p := read(); p.Message != "before the edit" || len(p.Metadata.Reactions) != 0 {
		t.Fatalf("the post changed without a yes: %q %d reactions", p.Message, len(p.Metadata.Reactions))
	}

	// Accepted in the client: the question shows both messages.
	yes := &person{answer: tick}
	c := connectAsking(t, mm.URL, alice.Token, "", formOnly, yes)
	if res := call(t, c, "update_post", map[string]any{"post_id": mine.Id, "message": "after the edit"}); res.IsError {
		t.Fatalf("update_post: %s", text(res))
	}
	if q := yes.asked(); len(q) != 1 || !strings.Contains(q[0].Message, "after the edit") || !strings.Contains(q[0].Message, "before the edit") {
		t.Fatalf("the edit's question: %+v", q)
	}
	if p := read(); p.Message != "after the edit" {
		t.Fatalf("the edit did not land: %q", p.Message)
	}

	// Asked in Mattermost: accepted on the page.
	done := postAsync(t, "add_reaction", map[string]any{"post_id": mine.Id, "emoji_name": "thumbsup"})
	id := waitPending(t, alice, ":thumbsup:")
	answerOnPage(t, alice, id, "accept", "")
	if res := <-done; res.IsError {
		t.Fatalf("add_reaction answered %s", text(res))
	}
	p := read()
	if len(p.Metadata.Reactions) != 1 || p.Metadata.Reactions[0].EmojiName != "thumbsup" || p.Metadata.Reactions[0].UserId != alice.ID {
		t.Fatalf("reactions after the accept: %+v", p.Metadata.Reactions)
	}
}

// callErr calls a tool and hands back a protocol error instead of failing.
func callErr(c interface {
	CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
}, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	return c.CallTool(context.Background(), req)
}

func TestCreatePostTakesAnUploadHandleAndAWorkspaceFileByteIdentical(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	a := aliceClient(t)
	blob := randomBytes(t, 200<<10)
	d := requestUpload(t, a, "blob.bin", len(blob), hexSHA(blob))
	if resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", blob); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT the upload: %d %s", resp.StatusCode, body)
	}
	ws := uniq(t, "summary") + ".md"
	if res := call(t, a, "files_write", map[string]any{"name": ws, "text": "# Summary\n"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	res := call(t, a, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "handle and workspace",
		"files": []map[string]any{{"handle": d.Handle}, {"workspace_file": ws}}})
	if res.IsError {
		t.Fatalf("create_post: %s", text(res))
	}
	if strings.Contains(text(res), d.Handle) {
		t.Fatal("the answer repeats the handle")
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	_, files := postedFiles(t, out.PostID)
	if sum(files["blob.bin"]) != sum(blob) || string(files[ws]) != "# Summary\n" {
		t.Fatalf("posted files differ: %d files", len(files))
	}
}

func TestHandlesThatAreNotTheCallersOwnAreRefusedAndNothingIsPosted(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice, bob := mm.Users[0], mm.Users[1]
	a := aliceClient(t)
	blob := randomBytes(t, 4<<10)
	d := requestUpload(t, a, "owned.bin", len(blob), hexSHA(blob))
	if resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", blob); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT the upload: %d %s", resp.StatusCode, body)
	}
	// Flip one character of the signature: the handle no longer verifies.
	last := d.Handle[len(d.Handle)-1]
	flip := byte('A')
	if last == 'A' {
		flip = 'B'
	}
	tampered := d.Handle[:len(d.Handle)-1] + string(flip)
	marker := uniq(t, "refused-handle")
	cases := []struct {
		name   string
		client func() *client.Client
		handle string
	}{
		{"a tampered handle", func() *client.Client { return a }, tampered},
		{"another user's handle", func() *client.Client { return connect(t, mm.URL, bob.Token) }, d.Handle},
		{"a session token presented as a handle", func() *client.Client { return a }, alice.Token},
	}
	for _, tc := range cases {
		res := call(t, tc.client(), "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
			"files": []map[string]any{{"handle": tc.handle}}})
		body := strings.ToLower(text(res))
		if !res.IsError || strings.Contains(body, "forbidden") {
			t.Errorf("%s: %s", tc.name, text(res))
		}
		if strings.Contains(text(res), tc.handle) {
			t.Errorf("%s: the refusal repeats the handle", tc.name)
		}
		if tc.handle == d.Handle && !strings.Contains(body, "not found") {
			t.Errorf("another user's handle must answer not found: %s", text(res))
		}
	}
	posts, _, err := mm.Client(alice).SearchPosts(context.Background(), mm.Team.Id, marker, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(posts.Order) != 0 {
		t.Fatalf("a refused handle left %d posts", len(posts.Order))
	}
	// The handle itself still works for its owner: the refusals were about them.
	res := call(t, a, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker + " ok",
		"files": []map[string]any{{"handle": d.Handle}}})
	if res.IsError {
		t.Fatalf("the owner's handle: %s", text(res))
	}
}
