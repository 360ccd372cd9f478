package e2e

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// Posting streams: workspace files and upload handles reach Mattermost
// through upload sessions, forwarded attachments as Mattermost's own copies.
// Each test reads the files back over REST and compares their sha256.

// freshUser is a new member of the team with an empty workspace, so large
// files do not meet the quota left by other tests.
func freshUser(t *testing.T, prefix string) harness.User {
	t.Helper()
	u, err := mm.CreateUser(uniq(t, prefix))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// putWorkspaceFile streams bytes into the user's workspace over REST.
func putWorkspaceFile(t *testing.T, u harness.User, name string, data []byte) {
	t.Helper()
	if resp, body := httpDo(t, http.MethodPut, restURL(name), u.Token, data); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT %s: %d %s", name, resp.StatusCode, body)
	}
}

// postedFilesAs downloads a post's files as u, with their file infos, by name.
func postedFilesAs(t *testing.T, u harness.User, postID string) (map[string][]byte, map[string]*model.FileInfo) {
	t.Helper()
	ctx := context.Background()
	c := mm.Client(u)
	p, _, err := c.GetPost(ctx, postID, "")
	if err != nil {
		t.Fatalf("read back post %s: %v", postID, err)
	}
	data, infos := map[string][]byte{}, map[string]*model.FileInfo{}
	for _, id := range p.FileIds {
		info, _, err := c.GetFileInfo(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := c.GetFile(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		data[info.Name], infos[info.Name] = b, info
	}
	return data, infos
}

func TestAPostWithAThirtyMiBHandleAndAWorkspaceFileArrivesByteIdentical(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	u := freshUser(t, "stream")
	c := connect(t, mm.URL, u.Token)
	blob := randomBytes(t, 30<<20)
	name := uniq(t, "handle") + ".bin"
	d := requestUpload(t, c, name, len(blob), hexSHA(blob))
	if resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", blob); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT the upload: %d %s", resp.StatusCode, body)
	}
	// Several chunks of the workspace, ending inside one.
	ws := uniq(t, "workspace") + ".bin"
	wsData := randomBytes(t, 3<<20+12345)
	putWorkspaceFile(t, u, ws, wsData)
	res := call(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": "streamed",
		"files": []map[string]any{{"handle": d.Handle}, {"workspace_file": ws}}})
	if res.IsError {
		t.Fatalf("create_post: %s", text(res))
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	files, infos := postedFilesAs(t, u, out.PostID)
	if len(files) != 2 || sum(files[name]) != sum(blob) || sum(files[ws]) != sum(wsData) {
		t.Fatalf("posted files differ: %d files, %d and %d bytes", len(files), len(files[name]), len(files[ws]))
	}
	for n, info := range infos {
		if info.PostId != out.PostID || info.ChannelId != townSquare(t).Id || info.CreatorId != u.ID || info.DeleteAt != 0 {
			t.Errorf("%s: post %s channel %s creator %s deleted %d", n, info.PostId, info.ChannelId, info.CreatorId, info.DeleteAt)
		}
	}
}

func TestAForwardedAttachmentArrivesByteIdenticalAsACopyInTheNewPostAndChannel(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ctx := context.Background()
	offTopic, _, err := mm.Client(mm.Admin).GetChannelByName(ctx, "off-topic", mm.Team.Id, "")
	if err != nil {
		t.Fatal(err)
	}
	name := uniq(t, "forwarded") + ".bin"
	attachment := randomBytes(t, 6<<20)
	origPost, orig := postFiles(t, alice, townSquare(t).Id, "the original", map[string][]byte{name: attachment})
	p := &person{answer: tick}
	c := connectAsking(t, mm.URL, alice.Token, "", formOnly, p)
	res := call(t, c, "create_post", map[string]any{"channel": offTopic.Id, "message": uniq(t, "forward"),
		"files": []map[string]any{{"file_id": orig[0].Id}}})
	if res.IsError {
		t.Fatalf("create_post: %s", text(res))
	}
	// The sha256 the person was shown is the sha256 of what arrived.
	if qs := p.asked(); len(qs) != 1 || !strings.Contains(qs[0].Message, "sha256 "+sum(attachment)[:12]) {
		t.Fatalf("the question did not show sha256 %s: %+v", sum(attachment)[:12], qs)
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	files, infos := postedFilesAs(t, alice, out.PostID)
	copied := infos[name]
	if len(files) != 1 || copied == nil || sum(files[name]) != sum(attachment) {
		t.Fatalf("the forwarded file differs: %d files", len(files))
	}
	if copied.Id == orig[0].Id || copied.PostId != out.PostID || copied.ChannelId != offTopic.Id || copied.CreatorId != alice.ID {
		t.Fatalf("the copy: id %s post %s channel %s creator %s", copied.Id, copied.PostId, copied.ChannelId, copied.CreatorId)
	}
	still, _, err := mm.Client(alice).GetFileInfo(ctx, orig[0].Id)
	if err != nil || still.PostId != origPost.Id || still.ChannelId != townSquare(t).Id {
		t.Fatalf("the original moved: %+v %v", still, err)
	}
	if b, _, err := mm.Client(alice).GetFile(ctx, orig[0].Id); err != nil || sum(b) != sum(attachment) {
		t.Fatalf("the original's bytes: %v", err)
	}
}

func TestAWorkspaceFileChangedAfterTheQuestionIsRefusedAndNoFileIsLeft(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	u := freshUser(t, "changed")
	c0 := connect(t, mm.URL, u.Token)
	// A handle comes first: had it been uploaded before the workspace file
	// was found changed, its record would be left.
	blob := randomBytes(t, 6<<20)
	first := uniq(t, "first") + ".bin"
	d := requestUpload(t, c0, first, len(blob), hexSHA(blob))
	if resp, body := httpDo(t, http.MethodPut, d.Upload.URL, "", blob); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT the upload: %d %s", resp.StatusCode, body)
	}
	ws := uniq(t, "later") + ".bin"
	putWorkspaceFile(t, u, ws, randomBytes(t, 2<<20))
	changed := randomBytes(t, 2<<20)
	p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
		// While the person reads the question, the workspace file changes.
		req, _ := http.NewRequest(http.MethodPut, restURL(ws), bytes.NewReader(changed))
		req.Header.Set("Authorization", "Bearer "+u.Token)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode/100 != 2 {
			t.Errorf("PUT the changed file: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		return tick(q)
	}}
	c := connectAsking(t, mm.URL, u.Token, "", formOnly, p)
	marker := uniq(t, "refused")
	res := call(t, c, "create_post", map[string]any{"channel": townSquare(t).Id, "message": marker,
		"files": []map[string]any{{"handle": d.Handle}, {"workspace_file": ws}}})
	if !res.IsError || !strings.Contains(text(res), ws+" changed since the person was asked") {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, u, townSquare(t).Id, marker); n != 0 {
		t.Fatalf("%d posts with a changed file", n)
	}
	for _, part := range []string{first, ws} {
		if n, err := mm.FileInfoCount(context.Background(), part); err != nil || n != 0 {
			t.Fatalf("%d file records named %s (%v)", n, part, err)
		}
	}
}

func TestTheSameAttachmentForwardedTwiceArrivesTwiceByteIdentical(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice := mm.Users[0]
	name := uniq(t, "twice") + ".bin"
	attachment := randomBytes(t, 1<<20)
	_, orig := postFiles(t, alice, townSquare(t).Id, "the original", map[string][]byte{name: attachment})
	// The second is shown as 2-<name>: Mattermost's copy would keep the
	// original name, so that one is uploaded from the attachment's bytes.
	res := call(t, aliceClient(t), "create_post", map[string]any{"channel": townSquare(t).Id, "message": uniq(t, "twice"),
		"files": []map[string]any{{"file_id": orig[0].Id}, {"file_id": orig[0].Id}}})
	if res.IsError {
		t.Fatalf("create_post: %s", text(res))
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	files, _ := postedFilesAs(t, alice, out.PostID)
	if len(files) != 2 || sum(files[name]) != sum(attachment) || sum(files["2-"+name]) != sum(attachment) {
		t.Fatalf("posted files %v", slices.Sorted(maps.Keys(files)))
	}
}
