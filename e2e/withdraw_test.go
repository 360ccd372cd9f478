package e2e

// A write that waits for the person in Mattermost, as foreign clients see
// it: the call answers well inside common client timeouts with where the
// write waits, and a client that cancels the call (notifications/cancelled,
// which may reach either node) withdraws the write, gets no answer, and
// leaves nothing the person could still accept.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// rawAnswer is the HTTP answer to one JSON-RPC message.
type rawAnswer struct {
	status int
	body   string
	err    error
	took   time.Duration
}

// rawPostAsync sends message as token in session to site's MCP endpoint in
// the background (safe off the test's goroutine).
func rawPostAsync(site, token, session, message string) <-chan rawAnswer {
	done := make(chan rawAnswer, 1)
	go func() {
		started := time.Now()
		req, err := http.NewRequest(http.MethodPost, mcpURL(site), strings.NewReader(message))
		if err != nil {
			done <- rawAnswer{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("MCP-Protocol-Version", legacyVersion)
		req.Header.Set(server.HeaderKeySessionID, session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- rawAnswer{err: err, took: time.Since(started)}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- rawAnswer{status: resp.StatusCode, body: string(b), err: err, took: time.Since(started)}
	}()
	return done
}

// confirmation reads one confirmation through the plugin's REST API as
// token.
func confirmation(t *testing.T, token, id string) approval.Detail {
	t.Helper()
	code, body := get(t, http.DefaultClient, apiOf(mm.URL)+"/"+id, token)
	if code != http.StatusOK {
		t.Fatalf("the confirmation %s: %d %s", id, code, body)
	}
	return detailOf(t, []byte(body))
}

// editedDM polls the bot's direct message postID, read back through REST as
// u, until it contains part, and returns its text.
func editedDM(t *testing.T, u harness.User, postID, part string) string {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(botDMWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, _, err := mm.Client(u).GetPost(context.Background(), postID, "")
		if err != nil {
			t.Fatalf("read the direct message %s: %v", postID, err)
		}
		if last = p.Message; strings.Contains(last, part) {
			return last
		}
	}
	t.Fatalf("the direct message never said %q; it reads:\n%s", part, last)
	return ""
}

func TestAWaitingWriteAnswersWhereItWaitsWellInsideClientTimeoutsWithProgressAllAlong(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	a := aliceClient(t)
	notes := make(chan mcp.JSONRPCNotification, 32)
	a.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			select {
			case notes <- n:
			default:
			}
		}
	})
	marker := uniq(t, "bounded")
	req := mcp.CallToolRequest{}
	req.Params.Name = "create_post"
	req.Params.Arguments = map[string]any{"channel": ch.Id, "message": marker}
	req.Params.Meta = &mcp.Meta{ProgressToken: "bounded-1"}
	started := time.Now()
	res, err := a.CallTool(context.Background(), req)
	took := time.Since(started)
	if err != nil {
		t.Fatalf("create_post while nobody answers: %v", err)
	}
	// The figure for the closing note: the longest a waiting call holds.
	t.Logf("a write nobody answered: the call answered after %s", took.Round(10*time.Millisecond))

	var out tools.WriteResult
	structuredAs(t, res, &out)
	if out.State != approval.StatePending || out.ID == "" || !strings.HasSuffix(out.URL, "/confirm/"+out.ID) {
		t.Fatalf("create_post answered %+v: %s", out, text(res))
	}
	if got := text(res); !strings.Contains(got, out.URL) || !strings.Contains(got, "get_pending with id "+out.ID) {
		t.Fatalf("the answer does not say where it waits and how to learn the outcome: %s", got)
	}
	// Progress all along, out of the bound the call keeps, always growing.
	var got []mcp.JSONRPCNotification
	for drained := false; !drained; {
		select {
		case note := <-notes:
			got = append(got, note)
		default:
			drained = true
		}
	}
	last, n := -1.0, 0
	for _, note := range got {
		f := note.Params.AdditionalFields
		p, _ := f["progress"].(float64)
		total, _ := f["total"].(float64)
		msg, _ := f["message"].(string)
		if p <= last || total != 20 || !strings.Contains(msg, "/confirm/"+out.ID) {
			t.Fatalf("progress %v after %v", f, last)
		}
		last, n = p, n+1
	}
	if n < 3 {
		t.Fatalf("%d progress notifications while the call waited, want one every 5 s", n)
	}
	// The write still waits for the person, who can answer it.
	if d := confirmation(t, alice.Token, out.ID); d.State != approval.StatePending {
		t.Fatalf("after the call answered, the write is %s", d.State)
	}
	answerOnPage(t, alice, out.ID, "accept", marker)
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts after the person accepted a write whose call had answered", n)
	}
}

func TestAClientThatCancelsAWaitingCallWithdrawsTheWriteWhicheverNodeTheCancelReaches(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v (log %s)", err, mm.ServerLog())
	}
	nodes := mm.NodeURLs()
	alice := mm.Users[0]
	ch := townSquare(t)
	for _, through := range []string{"the node that waits", "the other node"} {
		t.Run(through, func(t *testing.T) {
			session := openSession(t, nodes[0], alice.Token, `{"name":"cancelling-client","version":"1"}`, `{}`)
			marker := uniq(t, "withdrawn")
			callMsg := fmt.Sprintf(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"create_post","arguments":{"channel":%q,"message":%q},"_meta":{"progressToken":"w-1"}}}`,
				ch.Id, marker)
			waiting := rawPostAsync(nodes[0], alice.Token, session, callMsg)
			id := waitPending(t, alice, marker)
			asked := botDMAbout(t, alice, id, contains("/confirm/"+id))

			cancelAt := nodes[0]
			if through == "the other node" {
				cancelAt = nodes[1]
			}
			if code, _, body := mcpPost(t, cancelAt, alice.Token, session,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"the person pressed Esc"}}`); code != http.StatusAccepted {
				t.Fatalf("the cancellation: %d %s", code, body)
			}

			// The cancelled call gets no answer: its stream ends without one.
			got := <-waiting
			t.Logf("the cancelled call's stream ended %s after it began: status %d, %d bytes", got.took.Round(10*time.Millisecond), got.status, len(got.body))
			if strings.Contains(got.body, `"result"`) || strings.Contains(got.body, `"error"`) || strings.Contains(got.body, marker) {
				t.Fatalf("the cancelled call was answered: %s", got.body)
			}

			// The page, the REST API, the direct message and get_pending say so.
			if d := confirmation(t, alice.Token, id); d.State != approval.StateWithdrawn || !strings.Contains(d.OutcomeText, "AI assistant took this back") {
				t.Fatalf("the withdrawn write reads %s: %q", d.State, d.OutcomeText)
			}
			_, page := get(t, browser(t, alice), confirmBase()+"/"+id, "")
			if !strings.Contains(page, `data-state="withdrawn"`) || strings.Contains(page, `id="accept"`) {
				t.Fatalf("the page of the withdrawn write: %s", page)
			}
			dm := editedDM(t, alice, asked.Id, "**Withdrawn**")
			if strings.Contains(dm, "/confirm/") || strings.Contains(dm, marker) || !strings.Contains(dm, "AI assistant") {
				t.Fatalf("the direct message of the withdrawn write: %s", dm)
			}
			pending := call(t, aliceClient(t), "get_pending", map[string]any{"id": id})
			if !strings.Contains(text(pending), "withdrawn") {
				t.Fatalf("get_pending on the withdrawn write: %s", text(pending))
			}

			// Accepting it afterwards changes nothing.
			if body := answerOnPage(t, alice, id, "accept", "AI assistant took this back"); !strings.Contains(body, `data-state="withdrawn"`) {
				t.Fatalf("accepting the withdrawn write: %s", body)
			}
			if n := postsWith(t, alice, ch.Id, marker); n != 0 {
				t.Fatalf("%d posts after accepting a withdrawn write", n)
			}
			if d := confirmation(t, alice.Token, id); d.State != approval.StateWithdrawn {
				t.Fatalf("after the accept the write is %s", d.State)
			}
		})
	}
}

// silentPerson is a person at the MCP client who leaves its question on
// screen, unanswered, until the client drops it.
type silentPerson struct {
	asked chan struct{}
	gone  chan struct{}
}

func (p *silentPerson) Elicit(ctx context.Context, _ mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	select {
	case p.asked <- struct{}{}:
	default:
	}
	select {
	case <-p.gone:
	case <-ctx.Done():
	}
	return nil, errors.New("the question was never answered")
}

func TestAQuestionLeftUnansweredInTheClientGoesOnInMattermostAndTheCallSaysWhereItWaits(t *testing.T) {
	if !streams(t) {
		return
	}
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "unanswered")
	p := &silentPerson{asked: make(chan struct{}, 1), gone: make(chan struct{})}
	t.Cleanup(func() { close(p.gone) })
	c := connectAsking(t, mm.URL, alice.Token, mcp.LATEST_LEGACY_PROTOCOL_VERSION, formOnly, p)

	started := time.Now()
	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker})
	t.Logf("a question nobody answered in the client: the call answered after %s", time.Since(started).Round(10*time.Millisecond))
	select {
	case <-p.asked:
	default:
		t.Fatal("the client was never asked")
	}
	var out tools.WriteResult
	structuredAs(t, res, &out)
	if out.State != approval.StatePending || !strings.HasSuffix(out.URL, "/confirm/"+out.ID) || !strings.Contains(text(res), "get_pending") {
		t.Fatalf("create_post answered %s", text(res))
	}
	// The question went on in Mattermost: the bot tells the person, who
	// answers there.
	botDMAbout(t, alice, out.ID, contains("/confirm/"+out.ID))
	if d := confirmation(t, alice.Token, out.ID); d.State != approval.StatePending {
		t.Fatalf("the write is %s", d.State)
	}
	answerOnPage(t, alice, out.ID, "accept", marker)
	if n := postsWith(t, alice, ch.Id, marker); n != 1 {
		t.Fatalf("%d posts after the person accepted in Mattermost", n)
	}
}

func TestTheWebappModalOfAWithdrawnWriteSaysTheAssistantWithdrewItAndItsAcceptPostsNothing(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "modalwithdrawn")
	session := openSession(t, mm.URL, alice.Token, `{"name":"cancelling-client","version":"1"}`, `{}`)
	waiting := rawPostAsync(mm.URL, alice.Token, session, fmt.Sprintf(
		`{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"create_post","arguments":{"channel":%q,"message":%q}}}`, ch.Id, marker))
	id := waitPending(t, alice, marker)

	// The person has the write open in the modal when the assistant takes
	// it back.
	tab := webappAs(t, alice)
	evalJS[any](t, tab, fmt.Sprintf(`window.__host.ws['custom_mcp-server_pending_confirmation']({event: 'custom_mcp-server_pending_confirmation',
		data: {confirmations: [{id: %q, title: 'From the event'}]}}); true`, id))
	pollJS[bool](t, tab, "the modal shows the pending post",
		fmt.Sprintf(`!!document.querySelector('[role=dialog]') && document.querySelector('[role=dialog]').textContent.indexOf(%q) >= 0`, marker))
	if code, _, body := mcpPost(t, mm.URL, alice.Token, session,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":51}}`); code != http.StatusAccepted {
		t.Fatalf("the cancellation: %d %s", code, body)
	}
	if got := <-waiting; strings.Contains(got.body, `"result"`) {
		t.Fatalf("the cancelled call was answered: %s", got.body)
	}

	// Accepting in the modal afterwards changes nothing, and says why.
	clickButton(t, tab, "[role=dialog]", "Accept")
	status := pollJS[string](t, tab, "the modal says the assistant withdrew it",
		`(function() { var s = document.querySelector('[role=dialog] [role=status]'); return s && s.textContent.indexOf('Withdrawn') === 0 ? s.textContent : ''; })()`)
	if !strings.Contains(status, "AI assistant took this back") {
		t.Fatalf("the modal says %q", status)
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after accepting a withdrawn write in the modal", n)
	}
	if d := confirmation(t, alice.Token, id); d.State != approval.StateWithdrawn {
		t.Fatalf("after the accept in the modal the write is %s", d.State)
	}
}
