package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// person stands for the person at the MCP client: it sees each question
// and answers it.
type person struct {
	mu        sync.Mutex
	questions []mcp.ElicitationParams
	answer    func(q mcp.ElicitationParams) *mcp.ElicitationResult
}

func (p *person) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p.mu.Lock()
	p.questions = append(p.questions, req.Params)
	p.mu.Unlock()
	return p.answer(req.Params), nil
}

func (p *person) asked() []mcp.ElicitationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]mcp.ElicitationParams(nil), p.questions...)
}

// tick answers a form question by ticking its one box (whatever its name).
func tick(q mcp.ElicitationParams) *mcp.ElicitationResult {
	content := map[string]any{}
	raw, _ := json.Marshal(q.RequestedSchema)
	var schema struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(raw, &schema)
	for _, name := range schema.Required {
		content[name] = true
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

func respond(action mcp.ElicitationResponseAction) func(mcp.ElicitationParams) *mcp.ElicitationResult {
	return func(mcp.ElicitationParams) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}
	}
}

// connectAsking is a client that can be asked questions: form mode, url
// mode or both, on the protocol version given ("" for the newest).
func connectAsking(t *testing.T, site, token, version string, caps mcp.ElicitationCapability, p client.ElicitationHandler) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(mcpURL(site), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithElicitationHandler(p)}
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	if version == "" {
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	}
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-asking", Version: "1"}
	req.Params.Capabilities.Elicitation = &caps
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

var formOnly = mcp.ElicitationCapability{Form: &struct{}{}}

// noFileNamed checks, in the database itself and through search, that no
// file record with this name part exists.
func noFileNamed(t *testing.T, part string) {
	t.Helper()
	n, err := mm.FileInfoCount(context.Background(), part)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d file records named *%s* exist", n, part)
	}
	found, _, err := mm.Client(mm.Users[0]).SearchFilesWithParams(context.Background(), mm.Team.Id, &model.SearchParameter{Terms: model.NewPointer(part)})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Order) != 0 {
		t.Fatalf("search finds %d files named *%s*", len(found.Order), part)
	}
}

func TestAPostAcceptedInTheClientsFormIsPostedWithTheExactFiles(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	attachment := randomBytes(t, 40_000)
	_, infos := postFiles(t, alice, ch.Id, "source", map[string][]byte{"source.bin": attachment})
	marker := uniq(t, "form-accepted")
	notes := "line one\nline two\n"
	p := &person{answer: tick}
	ws := listen(t, alice)
	c := connectAsking(t, mm.URL, alice.Token, "", formOnly, p)
	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker + " for @" + mm.Users[1].Username,
		"files": []map[string]any{{"name": "notes.md", "content": notes}, {"file_id": infos[0].Id}}})
	var out tools.WriteResult
	structuredAs(t, res, &out)
	if res.IsError || out.State != "posted" || out.PostID == "" {
		t.Fatalf("create_post answered %s", text(res))
	}
	qs := p.asked()
	if len(qs) != 1 {
		t.Fatalf("the person was asked %d times", len(qs))
	}
	for _, want := range []string{marker, "notes.md", "source.bin", "39.1 KiB", "~town-square", sum([]byte(notes))[:12], sum(attachment)[:12]} {
		if !strings.Contains(qs[0].Message, want) {
			t.Errorf("the question does not show %q:\n%s", want, qs[0].Message)
		}
	}
	post, files := postedFiles(t, out.PostID)
	if !strings.HasPrefix(post.Message, marker) || post.GetProp("from_mcp") != true {
		t.Fatalf("the post read back: %q props %v", post.Message, post.GetProps())
	}
	if sum(files["notes.md"]) != sum([]byte(notes)) || sum(files["source.bin"]) != sum(attachment) {
		t.Fatalf("the posted files differ from what was shown: %v", files)
	}
	// The person's Mattermost, which may list the question, hears it was
	// answered.
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-ws.EventChannel:
			if ev.EventType() == "custom_mcp-server_confirmation_answered" && ev.GetData()["id"] == out.ID {
				if ev.GetData()["state"] != "posted" {
					t.Fatalf("the answered event says %v", ev.GetData())
				}
				return
			}
		case <-deadline:
			t.Fatal("alice's Mattermost was not told the question was answered")
		}
	}
}

func TestAFormAnsweredThroughAnotherServerOfTheClusterIsPostedOnce(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			// The older revision is asked on the call's own stream.
			if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION && !streams(t) {
				return
			}
			p := &person{answer: tick}
			c := connectAsking(t, proxyURL, alice.Token, version, formOnly, p)
			// Several posts, so the question and its answer cross between
			// the servers in both directions.
			for range 3 {
				marker := uniq(t, "form-cluster")
				before1, before2 := mm.ProxyHits()
				res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
					"files": []map[string]any{{"name": marker + ".txt", "content": "clustered\n"}}})
				var out tools.WriteResult
				structuredAs(t, res, &out)
				if res.IsError || out.State != "posted" {
					t.Fatalf("create_post answered %s", text(res))
				}
				after1, after2 := mm.ProxyHits()
				if after1 == before1 || after2 == before2 {
					t.Fatalf("one server served the whole exchange: %d and %d requests", after1-before1, after2-before2)
				}
				if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 1 {
					t.Fatalf("%d posts for one accepted question", n)
				}
			}
		})
	}
}

func TestAPostDeclinedInTheClientLeavesNoPostAndNoFile(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	for _, action := range []mcp.ElicitationResponseAction{mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel} {
		t.Run(string(action), func(t *testing.T) {
			marker := uniq(t, "form-"+string(action))
			c := connectAsking(t, mm.URL, alice.Token, "", formOnly, &person{answer: respond(action)})
			res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
				"files": []map[string]any{{"name": marker + ".txt", "content": "never sent\n"}}})
			if !res.IsError || !strings.Contains(text(res), "Do not try again unless the person asks") {
				t.Fatalf("create_post answered %s", text(res))
			}
			if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 0 {
				t.Fatalf("%d posts after a %s", n, action)
			}
			noFileNamed(t, marker)
		})
	}
}

func TestAnAcceptWithoutTheBoxTickedPostsNothing(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	ch := townSquare(t)
	marker := uniq(t, "form-empty")
	empty := func(mcp.ElicitationParams) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{}}}
	}
	c := connectAsking(t, mm.URL, mm.Users[0].Token, "", formOnly, &person{answer: empty})
	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	if !res.IsError || postsWith(t, mm.Users[0], ch.Id, marker) != 0 {
		t.Fatalf("an empty accepted form posted: %s", text(res))
	}
}

func TestAWorkspaceFileChangedWhileTheClientAsksIsRefusedAndNothingIsSent(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	name := uniq(t, "asked") + ".txt"
	a := aliceClient(t)
	if res := call(t, a, "files_write", map[string]any{"name": name, "text": "as shown\n"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	marker := uniq(t, "form-changed")
	p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
		// While the person reads the question, the file changes.
		if res, err := callErr(a, "files_write", map[string]any{"name": name, "text": "swapped\n"}); err != nil || res.IsError {
			t.Errorf("files_write again: %v", err)
		}
		return tick(q)
	}}
	c := connectAsking(t, mm.URL, alice.Token, "", formOnly, p)
	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker, "files": []map[string]any{{"workspace_file": name}}})
	if !res.IsError || !strings.Contains(text(res), "changed") {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 0 {
		t.Fatalf("%d posts with a changed file", n)
	}
	noFileNamed(t, name)
}

func TestSwitchingWritesOffWhileTheClientAsksMakesTheAcceptFailSafely(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	ch := townSquare(t)
	marker := uniq(t, "form-off")
	p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
		if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": false}); err != nil {
			t.Errorf("turn writes off: %v", err)
		}
		return tick(q)
	}}
	c := connectAsking(t, mm.URL, mm.Users[0].Token, "", formOnly, p)
	res, err := callErr(c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
		"files": []map[string]any{{"name": marker + ".txt", "content": "x\n"}}})
	if err == nil && !res.IsError {
		t.Fatalf("create_post went through with writes off: %s", text(res))
	}
	if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after writes were turned off", n)
	}
	noFileNamed(t, marker)
}

func TestAClientThatOnlyOpensLinksIsSentTheConfirmationPage(t *testing.T) {
	for _, mode := range []string{config.ConfirmClientThenMattermost, config.ConfirmMattermost} {
		t.Run(mode, func(t *testing.T) {
			allowWrites(t, mode)
			alice := mm.Users[0]
			ch := townSquare(t)
			marker := uniq(t, "url-mode")
			p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
				// The person follows the link and accepts on the page.
				id := q.URL[strings.LastIndex(q.URL, "/")+1:]
				if _, err := tryAnswerOnPage(t, alice, id, "accept", marker); err != nil {
					t.Error(err)
					return respond(mcp.ElicitationResponseActionCancel)(q)
				}
				return respond(mcp.ElicitationResponseActionAccept)(q)
			}}
			c := connectAsking(t, mm.URL, alice.Token, "", mcp.ElicitationCapability{URL: &struct{}{}}, p)
			res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker})
			var out tools.WriteResult
			structuredAs(t, res, &out)
			if res.IsError || out.State != "posted" {
				t.Fatalf("create_post answered %s", text(res))
			}
			qs := p.asked()
			if len(qs) != 1 || qs[0].Mode != mcp.ElicitationModeURL || !strings.HasPrefix(qs[0].URL, confirmBase()+"/") {
				t.Fatalf("the client was asked %+v", qs)
			}
			if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 1 {
				t.Fatalf("%d posts", n)
			}
		})
	}
}

func TestAPendingConfirmationSurvivesDisablingAndEnablingThePlugin(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "survives")
	// The waiting call ends with the plugin; the question stays.
	postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker,
		"files": []map[string]any{{"name": marker + ".txt", "content": "kept\n"}}})
	id := waitPending(t, alice, marker)
	if err := mm.DisablePlugin(); err != nil {
		t.Fatal(err)
	}
	if err := mm.EnablePlugin(); err != nil {
		t.Fatal(err)
	}
	if body := answerOnPage(t, alice, id, "accept", marker); !strings.Contains(body, "posted") {
		t.Fatalf("accept: %s", body)
	}
	if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 1 {
		t.Fatalf("%d posts", n)
	}
}

func TestSwitchingWritesOffWhileAPostWaitsInMattermostMakesItsAcceptFailSafely(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "page-off")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker,
		"files": []map[string]any{{"name": marker + ".txt", "content": "x\n"}}})
	id := waitPending(t, alice, marker)
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": false}); err != nil {
		t.Fatal(err)
	}
	if body := answerOnPage(t, alice, id, "accept", ""); !strings.Contains(body, "turned off") {
		t.Fatalf("accept: %s", body)
	}
	if res := <-done; !res.IsError {
		t.Fatalf("the waiting call answered %s", text(res))
	}
	if n := postsWith(t, mm.Users[0], ch.Id, marker); n != 0 {
		t.Fatalf("%d posts with writes off", n)
	}
	noFileNamed(t, marker)
}

func TestWhenMattermostRefusesThePostTheFilesUploadedForItAreDeleted(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	root := createPost(t, alice, ch.Id, uniq(t, "root"), "")
	marker := uniq(t, "orphan")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "root_id": root.Id, "message": marker,
		"files": []map[string]any{{"name": marker + "-1.txt", "content": "one\n"}, {"name": marker + "-2.txt", "content": "two\n"}}})
	id := waitPending(t, alice, marker)
	// The thread goes away while the person reads the question, so
	// Mattermost refuses the reply after its files were uploaded.
	if _, err := mm.Client(alice).DeletePost(context.Background(), root.Id); err != nil {
		t.Fatal(err)
	}
	if body := answerOnPage(t, alice, id, "accept", marker); !strings.Contains(body, "were deleted") {
		t.Fatalf("accept of a reply to a deleted thread: %s", body)
	}
	if res := <-done; !res.IsError {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts", n)
	}
	live, deleted, err := mm.FileInfoStates(context.Background(), marker)
	if err != nil {
		t.Fatal(err)
	}
	if live != 0 || deleted != 2 {
		t.Fatalf("after the refused post: %d live and %d deleted file records, want 0 and 2", live, deleted)
	}
	found, _, err := mm.Client(alice).SearchFilesWithParams(context.Background(), mm.Team.Id, &model.SearchParameter{Terms: model.NewPointer(marker)})
	if err != nil || len(found.Order) != 0 {
		t.Fatalf("search finds the deleted files: %v %v", found, err)
	}
}

// brokenAsker is a client that declared elicitation and then fails to ask.
type brokenAsker struct{}

func (brokenAsker) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return nil, fmt.Errorf("this host cannot show forms")
}

func TestAnOlderClientThatFailsToAskLeavesTheQuestionToMattermost(t *testing.T) {
	if !streams(t) {
		return
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "fallback")
	c := connectAsking(t, mm.URL, alice.Token, mcp.LATEST_LEGACY_PROTOCOL_VERSION, formOnly, brokenAsker{})
	done := postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	id := waitPending(t, alice, marker)
	answerOnPage(t, alice, id, "accept", marker)
	res, out := waitTool(t, done)
	if res.IsError || out.State != approval.StateDone {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts", n)
	}
}

func TestPostsAskedAtOnceByOneClientAreEachAskedAndPostedOnceOnACluster(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			// The older revision is asked on the call's own stream.
			if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION && !streams(t) {
				return
			}
			p := &person{answer: tick}
			c := connectAsking(t, proxyURL, alice.Token, version, formOnly, p)
			markers := []string{uniq(t, "parallel"), uniq(t, "parallel"), uniq(t, "parallel"), uniq(t, "parallel")}
			var waiting []<-chan *mcp.CallToolResult
			for _, m := range markers {
				waiting = append(waiting, postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": m}))
			}
			for i, done := range waiting {
				res, out := waitTool(t, done)
				if res.IsError || out.State != approval.StateDone {
					t.Fatalf("post %d answered %s", i, text(res))
				}
			}
			if n := len(p.asked()); n != len(markers) {
				t.Fatalf("the person was asked %d times for %d posts", n, len(markers))
			}
			for _, m := range markers {
				if n := postsWith(t, alice, ch.Id, m); n != 1 {
					t.Fatalf("%d posts of %s", n, m)
				}
			}
		})
	}
}

func TestAClientShownTheConfirmationPageIsToldItsQuestionIsOverOnceThePersonAnswersThere(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		for verb, state := range map[string]string{"accept": "posted", "decline": "declined"} {
			t.Run(fmt.Sprintf("protocol %s/%s", version, verb), func(t *testing.T) {
				// The older revision is asked, and told it is over, on streams.
				streaming := mm.Streams()
				if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION && !streams(t) {
					return
				}
				allowWrites(t, config.ConfirmMattermost)
				alice := mm.Users[0]
				ch := townSquare(t)
				marker := uniq(t, "url-closed")
				asked := make(chan string, 1)
				// The client opens the page and says so; the person answers
				// there later, in their own browser session.
				p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
					select {
					case asked <- q.ElicitationID:
					default:
					}
					return respond(mcp.ElicitationResponseActionAccept)(q)
				}}
				// Through the two nodes' proxy: the call, its retry and the
				// page's answer reach either node.
				c := connectAsking(t, proxyURL, alice.Token, version, mcp.ElicitationCapability{URL: &struct{}{}}, p)
				var mu sync.Mutex
				var closed []string
				var closedAt time.Time
				waiting := make(chan struct{}, 1)
				c.OnNotification(func(n mcp.JSONRPCNotification) {
					switch n.Method {
					case string(mcp.MethodNotificationElicitationComplete):
						mu.Lock()
						defer mu.Unlock()
						id, _ := n.Params.AdditionalFields["elicitationId"].(string)
						closed = append(closed, id)
						closedAt = time.Now()
					case string(mcp.MethodNotificationProgress):
						// The call waits for the page's answer.
						select {
						case waiting <- struct{}{}:
						default:
						}
					}
				})
				done := make(chan *mcp.CallToolResult, 1)
				go func() {
					req := mcp.CallToolRequest{}
					req.Params.Name = "create_post"
					req.Params.Arguments = map[string]any{"channel": ch.Id, "message": marker}
					req.Params.Meta = &mcp.Meta{ProgressToken: "url-closed"}
					res, err := c.CallTool(context.Background(), req)
					if err != nil {
						res = mcp.NewToolResultError("protocol error: " + err.Error())
					}
					done <- res
				}()
				var id string
				select {
				case id = <-asked:
				case res := <-done:
					t.Fatalf("create_post answered without asking: %s", text(res))
				}
				if !streaming {
					// Nothing reaches the client while the call waits: it
					// answers, after its 20 seconds, that the write waits
					// on the page; get_pending tells the person's answer.
					var out tools.WriteResult
					res := <-done
					if structuredAs(t, res, &out); out.State != approval.StatePending || out.ID != id || !strings.Contains(text(res), "get_pending") {
						t.Fatalf("create_post on a Mattermost that cannot stream answered %s", text(res))
					}
					answerOnPage(t, alice, id, verb, marker)
					res = call(t, c, "get_pending", map[string]any{"id": id})
					if told := map[string]string{"accept": "Posted: ", "decline": "declined"}[verb]; !strings.Contains(text(res), told) {
						t.Fatalf("get_pending after the person's %s answered %s", verb, text(res))
					}
					mu.Lock()
					defer mu.Unlock()
					if len(closed) != 0 {
						t.Fatalf("told the questions %q were over on a Mattermost that cannot stream", closed)
					}
					return
				}
				select {
				case <-waiting:
				case res := <-done:
					t.Fatalf("create_post answered before the person did: %s", text(res))
				}
				answerOnPage(t, alice, id, verb, marker)
				answered := time.Now()
				res := <-done
				var out tools.WriteResult
				structuredAs(t, res, &out)
				if out.State != state || out.ID != id {
					t.Fatalf("create_post answered %s", text(res))
				}
				mu.Lock()
				got, at := append([]string(nil), closed...), closedAt
				mu.Unlock()
				if len(got) != 1 || got[0] != id {
					t.Fatalf("the client was told the questions %q were over, not once %q", got, id)
				}
				t.Logf("the client heard the question was over %s after the person answered", at.Sub(answered).Round(time.Millisecond))
				want := 0
				if verb == "accept" {
					want = 1
				}
				if n := postsWith(t, alice, ch.Id, marker); n != want {
					t.Fatalf("%d posts, want %d", n, want)
				}
			})
		}
	}
}
