package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// The fast path keeps what it may keep and no longer: what one call learned
// only for that call, and a first window's text after its answer, within a
// bound. (Mattermost's configuration, kept until it changes, is read back
// by the privacy tests, which change it between calls.)

func TestAPersonRemovedFromAChannelCannotReadItsFileOnTheNextCall(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "leaving-"), "Leaving", model.ChannelTypePrivate)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, infos := postFiles(t, alice, ch.Id, "the plan", map[string][]byte{"plan.txt": []byte("step one\nstep two\n")})
	c := connect(t, mm.URL, bob.Token)
	if res, out := readFile(t, c, map[string]any{"file_id": infos[0].Id}); res.IsError || !strings.Contains(text(res), "step two") {
		t.Fatalf("bob's read while a member: %+v %s", out, text(res))
	}
	if _, err := mm.Client(alice).RemoveUserFromChannel(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mm.Client(bob).GetChannel(context.Background(), ch.Id); err == nil {
		t.Fatal("Mattermost still lets bob read the channel")
	}
	if res, _ := readFile(t, c, map[string]any{"file_id": infos[0].Id}); !res.IsError || strings.Contains(text(res), "step two") {
		t.Fatalf("bob read the file after he was removed: %s", text(res))
	}
}

func TestManyFirstWindowsAtOnceAllAnswerAndEveryNextWindowIsRight(t *testing.T) {
	const files = 12 // three times the keeps one process writes at once
	alice := mm.Users[0]
	original := numberedText(1500)
	lines := strings.Split(original, "\n")
	var infos []*model.FileInfo
	for post := range 2 { // at most 10 files to a post
		named := map[string][]byte{}
		for i := range files / 2 {
			named[fmt.Sprintf("flood-%d-%02d.txt", post, i)] = []byte(original)
		}
		_, posted := postFiles(t, alice, townSquare(t).Id, "a flood of reports", named)
		infos = append(infos, posted...)
	}
	c := aliceClient(t)
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, files)
	errs := make([]error, files)
	for i, info := range infos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := mcp.CallToolRequest{}
			req.Params.Name = "read_file"
			req.Params.Arguments = map[string]any{"file_id": info.Id}
			results[i], errs[i] = c.CallTool(context.Background(), req)
		}()
	}
	wg.Wait()
	for i, res := range results {
		if errs[i] != nil {
			t.Fatalf("window 1 of file %d: %v", i, errs[i])
		}
		var out tools.FileResult
		if !res.IsError {
			structuredAs(t, res, &out)
		}
		if res.IsError || out.Start != 1 || out.NextStart != 501 || !strings.Contains(text(res), lines[499]) {
			t.Fatalf("window 1 of file %d: %+v %s", i, out, text(res))
		}
	}
	// Window 2 of each, kept or converted again, on either node.
	for i, info := range infos {
		node := nodeURLs(t)[i%2]
		res, out := readFile(t, connect(t, node, alice.Token), map[string]any{"file_id": info.Id, "offset": 501, "limit": 500})
		if res.IsError || out.Start != 501 || out.End != 1000 || !strings.Contains(text(res), lines[500]) || !strings.Contains(text(res), lines[999]) {
			t.Fatalf("window 2 of file %d on %s: %+v %s", i, node, out, text(res))
		}
	}
}

func TestATwelveMegapixelPhotoIsReadUprightWithTheSmallestMemoryForReadingFiles(t *testing.T) {
	lowBudget(t)
	photo := sidewaysJPEG(t, 4000, 3000)
	_, infos := postFiles(t, mm.Users[0], townSquare(t).Id, "a 12 MP photo", map[string][]byte{"wide-harbour.jpg": photo})
	res, out := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id})
	if res.IsError || out.Image == nil || !out.Image.Turned || !out.Image.Scaled || out.Image.Width != 1176 || out.Image.Height != 1568 {
		t.Fatalf("the photo read with the smallest budget: %+v %s", out.Image, text(res))
	}
}

func TestADeactivatedPersonWhoseClientsWereJustServedIsRefusedAtOnce(t *testing.T) {
	erin := newPerson(t, "erin")
	token, err := mm.PersonalAccessToken(erin)
	if err != nil {
		t.Fatal(err)
	}
	refused := func() bool {
		c, err := harness.ConnectMCP(context.Background(), mm.URL, token, "e2e-deactivated")
		if err != nil {
			return true
		}
		defer c.Close()
		res, err := harness.CallTool(context.Background(), c, "get_me", nil)
		return err != nil || res.IsError
	}
	// The server has just found erin active, and trusts that for a while.
	if refused() {
		t.Fatal("erin is refused before being deactivated")
	}
	if _, err := mm.Client(mm.Admin).UpdateUserActive(context.Background(), erin.ID, false); err != nil {
		t.Fatal(err)
	}
	if !refused() {
		t.Fatal("erin is still served after being deactivated")
	}
	if _, resp, err := harness.ClientAt(mm.URL, harness.User{Token: token}).GetMe(context.Background(), ""); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("Mattermost itself still accepts erin's token: %v", err)
	}
}
