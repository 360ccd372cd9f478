package e2e

// Issue 11, "Only the person says yes": a pending write is answered only by
// the person, in Mattermost, in an interactive session of their own with its
// CSRF token. Whatever a program holding one of the person's tokens can
// send (the token as a header, as the session cookie, as ?access_token=,
// with the very CSRF token Mattermost lists for that session) changes
// nothing.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// refusedPhrase is in every refusal of an answer that did not come from
// the person's own Mattermost.
const refusedPhrase = "signed in to mattermost"

// callWaitBound is longer than a posting call waits for the person in
// Mattermost (20 seconds from its start), so a call that answers at all
// answers within it.
const callWaitBound = 60 * time.Second

// pendingState is what create_post and get_pending answer about a write
// that waits for the person.
type pendingState struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	URL    string `json:"url"`
	PostID string `json:"post_id"`
}

// presentation is one way a program sends a token it holds.
type presentation struct {
	name string
	set  func(*http.Request)
	// cookie: Mattermost passes the request on as the person only with the
	// session's CSRF token.
	cookie bool
}

func asBearer(token string) presentation {
	return presentation{"as an Authorization: Bearer header", func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+token)
	}, false}
}

func asAccessTokenParameter(token string) presentation {
	return presentation{"as ?access_token=", func(r *http.Request) {
		q := r.URL.Query()
		q.Set("access_token", token)
		r.URL.RawQuery = q.Encode()
	}, false}
}

// asSessionCookie sends the token the way the web app sends its session:
// Mattermost then checks the CSRF token itself before it passes the
// request on as the person.
func asSessionCookie(token string) presentation {
	return presentation{"as the " + model.SessionCookieToken + " cookie", func(r *http.Request) {
		r.AddCookie(&http.Cookie{Name: model.SessionCookieToken, Value: token})
	}, true}
}

// direct is a client that does not follow redirects: an accepted answer on
// the page is a 303 to the page, a refused one is not.
var direct = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

func presented(t *testing.T, p presentation, method, target string, body []byte, header map[string]string) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	p.set(req)
	resp, err := direct.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// sessionCSRF is the CSRF token of the Mattermost session behind token, as
// a program holding only that token can learn it: Mattermost lists the
// person's sessions with their props, the CSRF token among them, to any of
// their tokens, and its own API tells which one is the token's by taking a
// cookie request only with the right one. A personal access token's session
// has none: its CSRF token is "".
func sessionCSRF(t *testing.T, u harness.User, token string) (string, bool) {
	t.Helper()
	ctx := context.Background()
	c := model.NewAPIv4Client(mm.URL)
	c.SetToken(token)
	candidates := []string{""}
	sessions, _, err := c.GetSessions(ctx, u.ID, "")
	if err != nil {
		t.Logf("the token cannot list its sessions: %v", err)
	}
	for _, s := range sessions {
		if v := s.GetCSRF(); v != "" {
			candidates = append(candidates, v)
		}
	}
	ids, _ := json.Marshal([]string{u.ID})
	for _, csrf := range candidates {
		code, _, _ := presented(t, asSessionCookie(token), http.MethodPost, mm.URL+"/api/v4/users/status/ids", ids,
			map[string]string{"Content-Type": "application/json", model.HeaderCsrfToken: csrf})
		if code == http.StatusOK {
			return csrf, true
		}
	}
	return "", false
}

// connectAt is an initialized MCP client of one protocol version that
// cannot be asked questions (so in mode mattermost it waits in Mattermost).
func connectAt(t *testing.T, site, token, version string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(mcpURL(site), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(version))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-" + version, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize %s: %v", version, err)
	}
	return c
}

// oauthAccessToken runs the real OAuth flow against Mattermost's own
// authorization server (discovery from the plugin's resource metadata,
// dynamic registration, PKCE, the person's approval) and returns the access
// token the MCP client would send.
func oauthAccessToken(t *testing.T, u harness.User) string {
	t.Helper()
	ctx := context.Background()
	store := client.NewMemoryTokenStore()
	c, err := client.NewOAuthStreamableHttpClient(mcpURL(mm.URL), client.OAuthConfig{
		RedirectURI:                  "http://127.0.0.1:1/callback", // never visited: approveAsPerson reads the code
		Scopes:                       []string{"user"},
		TokenStore:                   store,
		PKCEEnabled:                  true,
		ProtectedResourceMetadataURL: mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	initReq := mcp.InitializeRequest{}
	initReq.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	initReq.Params.ClientInfo = mcp.Implementation{Name: "e2e-oauth-answer", Version: "1"}
	_, err = c.Initialize(ctx, initReq)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("the OAuth client must be asked to authorize, got %v", err)
	}
	authorize(t, client.GetOAuthHandler(err), "e2e answering client", u)
	tok, err := store.GetToken(ctx)
	if err != nil || tok.AccessToken == "" {
		t.Fatalf("no access token after the OAuth flow: %v", err)
	}
	return tok.AccessToken
}

// waitingWrite is a create_post with a file the model wrote and a forwarded
// attachment, waiting for the person in Mattermost.
type waitingWrite struct {
	id, marker string
	ch         *model.Channel
	notesName  string
	notes      []byte
	photoName  string
	photo      []byte
	mcp        *client.Client
	done       <-chan *mcp.CallToolResult
}

// startWaitingWrite has c (signed in as alice) call create_post in a fresh
// channel, with writes confirmed in Mattermost, and waits until the write is
// listed as pending.
func startWaitingWrite(t *testing.T, c *client.Client) waitingWrite {
	t.Helper()
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	w := waitingWrite{mcp: c, marker: uniq(t, "onlyperson"), photo: sidewaysJPEG(t, 30, 20), notes: []byte("only the person says yes\n")}
	w.ch = createChannel(t, alice, uniq(t, "answers-"), "Answers", model.ChannelTypeOpen)
	// The source of the forwarded attachment is elsewhere, under a name that
	// does not carry the marker, so the file store and the database show
	// exactly what the write uploads.
	w.photoName = uniq(t, "pic") + ".jpg"
	_, infos := postFiles(t, alice, townSquare(t).Id, "source", map[string][]byte{w.photoName: w.photo})
	w.notesName = w.marker + "-notes.txt"
	w.done = postAsyncWith(c, "create_post", map[string]any{"channel": w.ch.Id, "message": w.marker + " harbour report",
		"files": []map[string]any{{"name": w.notesName, "content": string(w.notes)}, {"file_id": infos[0].Id}}})
	w.id = waitPending(t, alice, w.marker)
	return w
}

func saysSignIn(b []byte) bool { return strings.Contains(strings.ToLower(string(b)), refusedPhrase) }

// cannotAnswer tries accept and decline on the page and on the JSON API,
// the credential presented as p, with csrf in the form field and the
// header: every one is refused with 403 and the one line that says where
// the person answers.
func cannotAnswer(t *testing.T, w waitingWrite, p presentation, csrf string) {
	t.Helper()
	for _, verb := range []string{"accept", "decline"} {
		form := url.Values{"csrf": {csrf}}.Encode()
		code, body, _ := presented(t, p, http.MethodPost, pageOf(w.id)+"/"+verb, []byte(form),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if code != http.StatusForbidden || !saysSignIn(body) {
			t.Errorf("%s on the page with the token %s: %d %s", verb, p.name, code, body)
		}
		code, body, _ = presented(t, p, http.MethodPost, apiOf(mm.URL)+"/"+w.id+"/"+verb, nil,
			map[string]string{model.HeaderCsrfToken: csrf})
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(body, &e); code != http.StatusForbidden || err != nil || !saysSignIn([]byte(e.Error)) || strings.Contains(e.Error, "\n") {
			t.Errorf("%s through the API with the token %s: %d %s", verb, p.name, code, body)
		}
	}
}

// readsStillWork reads the write with the credential as p: the detail, the
// list and the photo's thumbnail answer, and the write is pending.
func readsStillWork(t *testing.T, w waitingWrite, p presentation) {
	t.Helper()
	code, body, _ := presented(t, p, http.MethodGet, apiOf(mm.URL)+"/"+w.id, nil, nil)
	if code != http.StatusOK {
		t.Fatalf("read the pending write %s: %d %s", p.name, code, body)
	}
	d := detailOf(t, body)
	if d.State != approval.StatePending {
		t.Errorf("after the refused answers the write is %q", d.State)
	}
	thumb := ""
	for _, f := range d.Files {
		if f.Name == w.photoName {
			thumb = f.ThumbnailURL
		}
	}
	if thumb == "" {
		t.Errorf("the detail has no thumbnail for %s: %s", w.photoName, body)
	} else if code, img, h := presented(t, p, http.MethodGet, mm.URL+thumb, nil, nil); code != http.StatusOK || len(img) == 0 || !strings.HasPrefix(h.Get("Content-Type"), "image/") {
		t.Errorf("the thumbnail read %s: %d %q", p.name, code, h.Get("Content-Type"))
	}
	code, body, _ = presented(t, p, http.MethodGet, apiOf(mm.URL), nil, nil)
	var list struct {
		Confirmations []struct{ ID, State string }
	}
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil {
		t.Fatalf("list %s: %d %s", p.name, code, body)
	}
	listed := false
	for _, c := range list.Confirmations {
		listed = listed || (c.ID == w.id && c.State == approval.StatePending)
	}
	if !listed {
		t.Errorf("the list read %s does not show the write pending: %s", p.name, body)
	}
}

// nothingHappened checks that the write is still only a question: no post,
// no file in the database or the file store, and the tool reports it
// waiting.
func nothingHappened(t *testing.T, w waitingWrite) {
	t.Helper()
	alice := mm.Users[0]
	if n := postsWith(t, alice, w.ch.Id, w.marker); n != 0 {
		t.Errorf("%d posts after refused answers", n)
	}
	ctx := context.Background()
	if n, err := mm.FileInfoCount(ctx, w.marker); err != nil || n != 0 {
		t.Errorf("%d file records of the model's file after refused answers (%v)", n, err)
	}
	if n, err := mm.FileInfoCount(ctx, w.photoName); err != nil || n != 1 {
		t.Errorf("%d file records named %s after refused answers, want only the source (%v)", n, w.photoName, err)
	}
	if files := uploadedUnder(t, w.ch.Id); len(files) != 0 {
		t.Errorf("refused answers left files in the file store: %v", files)
	}
	res := call(t, w.mcp, "get_pending", map[string]any{"id": w.id})
	if out := onePending(t, res); out.State != approval.StatePending {
		t.Errorf("get_pending after refused answers: %s", text(res))
	}
}

// personAcceptsInTheBrowser signs alice in inside headless Chromium, opens
// the page and clicks Accept: the post appears with its files byte-identical.
func personAcceptsInTheBrowser(t *testing.T, w waitingWrite) {
	t.Helper()
	alice := mm.Users[0]
	tab := chromeAs(t, alice)
	step(t, tab, chromedp.Navigate(pageOf(w.id)), chromedp.WaitVisible(chromedp.ID("accept")))
	if state := outcomeAfterClick(t, tab, "accept"); state != approval.StateDone {
		t.Fatalf("the person's accept in the browser: %q", state)
	}
	postID := postedAfter(t, w)
	p, files := postedFiles(t, postID)
	if !strings.HasPrefix(p.Message, w.marker) || p.ChannelId != w.ch.Id || p.UserId != alice.ID {
		t.Fatalf("the post read back: %q in %s by %s", p.Message, p.ChannelId, p.UserId)
	}
	if len(files) != 2 || sum(files[w.notesName]) != sum(w.notes) || sum(files[w.photoName]) != sum(w.photo) {
		t.Fatalf("the posted files differ from what was asked: %d files", len(files))
	}
	if n := postsWith(t, alice, w.ch.Id, w.marker); n != 1 {
		t.Fatalf("%d posts after the person's accept", n)
	}
	if n, err := mm.FileInfoCount(context.Background(), w.photoName); err != nil || n != 2 {
		t.Fatalf("%d file records named %s after the accept, want the source and its copy (%v)", n, w.photoName, err)
	}
}

// postedAfter is the post the waiting call reports; a call that stopped
// waiting before the person answered is followed up with get_pending.
func postedAfter(t *testing.T, w waitingWrite) string {
	t.Helper()
	var out pendingState
	select {
	case res := <-w.done:
		structuredAs(t, res, &out)
		if out.State == approval.StateDone && !res.IsError && out.PostID != "" {
			return out.PostID
		}
		if out.State != approval.StatePending {
			t.Fatalf("create_post answered %s", text(res))
		}
	case <-time.After(callWaitBound):
		t.Fatal("the posting call did not answer")
	}
	deadline := time.Now().Add(browserWait)
	for {
		res := call(t, w.mcp, "get_pending", map[string]any{"id": w.id})
		out := onePending(t, res)
		if out.State == approval.StateDone && out.PostID != "" {
			return out.PostID
		}
		if out.State != approval.StatePending || time.Now().After(deadline) {
			t.Fatalf("get_pending after the person's accept: %s", text(res))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// onlyThePersonAnswers is the whole check for one credential: the MCP
// client signed in with it asks, every presentation of the credential (with
// the CSRF token of its own session when a program can learn it) fails to
// answer, reading keeps working, nothing is posted or uploaded, and then the
// person's own browser accepts.
func onlyThePersonAnswers(t *testing.T, mcpClient *client.Client, token string, reads presentation, answers []presentation) {
	t.Helper()
	alice := mm.Users[0]
	w := startWaitingWrite(t, mcpClient)
	csrf, known := sessionCSRF(t, alice, token)
	for _, p := range answers {
		if p.cookie && !known {
			// Without it Mattermost does not pass the cookie on at all.
			t.Logf("the CSRF token of the credential's session could not be learned: not trying it %s", p.name)
			continue
		}
		cannotAnswer(t, w, p, csrf)
	}
	nothingHappened(t, w)
	readsStillWork(t, w, reads)
	if t.Failed() {
		t.FailNow()
	}
	personAcceptsInTheBrowser(t, w)
}

func TestAPersonalAccessTokenCannotAnswerAPendingWriteAndThePersonsBrowserCan(t *testing.T) {
	pat, err := mm.PersonalAccessToken(mm.Users[0])
	if err != nil {
		t.Fatal(err)
	}
	// As a cookie, with its session's empty CSRF token, Mattermost itself
	// passes it on as the person.
	onlyThePersonAnswers(t, connect(t, mm.URL, pat), pat, asBearer(pat), []presentation{asBearer(pat), asSessionCookie(pat)})
}

func TestAnOAuthAccessTokenCannotAnswerAPendingWriteAndThePersonsBrowserCan(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	tok := oauthAccessToken(t, mm.Users[0])
	onlyThePersonAnswers(t, connect(t, mm.URL, tok), tok, asBearer(tok), []presentation{asBearer(tok), asSessionCookie(tok)})
}

func TestTheSessionTheMCPClientSignedInWithCannotAnswerItsPendingWriteAndThePersonsBrowserCan(t *testing.T) {
	alice := mm.Users[0]
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION} {
		t.Run("protocol "+version, func(t *testing.T) {
			// As a cookie with the session's own CSRF token, the request is
			// one Mattermost cannot tell from the web app's.
			onlyThePersonAnswers(t, connectAt(t, mm.URL, alice.Token, version), alice.Token, asBearer(alice.Token),
				[]presentation{asBearer(alice.Token), asSessionCookie(alice.Token)})
		})
	}
}

func TestASessionTokenInTheAccessTokenParameterCannotAnswerAndThePersonsBrowserCan(t *testing.T) {
	alice := mm.Users[0]
	q := asAccessTokenParameter(alice.Token)
	onlyThePersonAnswers(t, connect(t, mm.URL, alice.Token), alice.Token, q, []presentation{q})
}

func TestTheWebSessionTheMCPClientUsesCannotAnswerEvenAsACookieWithItsCSRFToken(t *testing.T) {
	// A person who pasted the web app's own session token into the MCP
	// client's configuration: the model can send it as the cookie with the
	// session's CSRF token, exactly as the web app does.
	alice := mm.Users[0]
	web, csrf := cookieSession(t, alice)
	token := sessionToken(t, web)
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION} {
		t.Run("protocol "+version, func(t *testing.T) {
			w := startWaitingWrite(t, connectAt(t, mm.URL, token, version))
			cannotAnswer(t, w, asSessionCookie(token), csrf)
			cannotAnswer(t, w, asBearer(token), csrf)
			nothingHappened(t, w)
			if t.Failed() {
				t.FailNow()
			}
			personAcceptsInTheBrowser(t, w)
		})
	}
}

func TestABrowserSessionWithoutItsCSRFTokenCannotAnswerEvenWhereMattermostLetsItThrough(t *testing.T) {
	alice := mm.Users[0]
	w := startWaitingWrite(t, aliceClient(t))
	web, csrf := cookieSession(t, alice)
	// Mattermost passes a cookie request marked X-Requested-With on as the
	// person without a CSRF token (unless strict CSRF is on): the plugin's
	// own check refuses it.
	xhr := map[string]string{"X-Requested-With": "XMLHttpRequest"}
	for _, tc := range []struct {
		what, target string
		header       map[string]string
		body         string
	}{
		{"the page's form without its csrf field", pageOf(w.id) + "/accept", map[string]string{"X-Requested-With": "XMLHttpRequest", "Content-Type": "application/x-www-form-urlencoded"}, ""},
		{"the API without X-CSRF-Token", apiOf(mm.URL) + "/" + w.id + "/accept", xhr, ""},
		{"the API with another token", apiOf(mm.URL) + "/" + w.id + "/accept", map[string]string{"X-Requested-With": "XMLHttpRequest", model.HeaderCsrfToken: "x" + csrf}, ""},
	} {
		req, err := http.NewRequest(http.MethodPost, tc.target, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := web.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !saysSignIn(b) {
			t.Errorf("%s: %d %s", tc.what, resp.StatusCode, b)
		}
	}
	nothingHappened(t, w)
	// The same session with its CSRF token is the person: it answers.
	code, body, _ := send(t, web, http.MethodPost, apiOf(mm.URL)+"/"+w.id+"/decline", map[string]string{model.HeaderCsrfToken: csrf})
	if d := detailOf(t, body); code != http.StatusOK || d.State != approval.StateDeclined {
		t.Fatalf("decline with the CSRF token: %d %s", code, body)
	}
}

// confirmationsTitled lists u's confirmations (any state) whose title
// carries marker.
func confirmationsTitled(t *testing.T, u harness.User, marker string) []string {
	t.Helper()
	code, body := get(t, http.DefaultClient, apiOf(mm.URL), u.Token)
	var list struct {
		Confirmations []struct{ ID, Title, State string }
	}
	if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil {
		t.Fatalf("list: %d %s", code, body)
	}
	var out []string
	for _, c := range list.Confirmations {
		if strings.Contains(c.Title, marker) {
			out = append(out, c.ID+" "+c.State)
		}
	}
	return out
}

func TestSwitchingToAlwaysInMattermostWhileTheClientAsksMakesItsYesWaitForThePerson(t *testing.T) {
	alice := mm.Users[0]
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		name := version
		if name == "" {
			name = mcp.LATEST_PROTOCOL_VERSION
		}
		t.Run("protocol "+name, func(t *testing.T) {
			// The older revision is asked on the call's own stream.
			if version == mcp.LATEST_LEGACY_PROTOCOL_VERSION && !streams(t) {
				return
			}
			allowWrites(t, config.ConfirmClientThenMattermost)
			ch := createChannel(t, alice, uniq(t, "switch-"), "Switch", model.ChannelTypeOpen)
			marker := uniq(t, "switched")
			p := &person{answer: func(q mcp.ElicitationParams) *mcp.ElicitationResult {
				// The admin makes Mattermost the only place to say yes while
				// the question is out; then the person ticks the box.
				if err := mm.PatchPluginSettings(map[string]any{"WriteConfirmation": config.ConfirmMattermost}); err != nil {
					t.Errorf("switch to always in Mattermost: %v", err)
				}
				return tick(q)
			}}
			c := connectAsking(t, mm.URL, alice.Token, version, formOnly, p)
			done := postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
				"files": []map[string]any{{"name": marker + ".txt", "content": "held back\n"}}})
			var res *mcp.CallToolResult
			select {
			case res = <-done:
			case <-time.After(callWaitBound):
				t.Fatal("create_post did not answer")
			}
			if n := len(p.asked()); n != 1 {
				t.Fatalf("the client was asked %d times, want the one question the switch overtakes", n)
			}
			var out pendingState
			structuredAs(t, res, &out)
			if out.State != approval.StatePending || !strings.Contains(text(res), "Mattermost") {
				t.Fatalf("after a yes in the client under always-in-Mattermost, create_post answered %s", text(res))
			}
			if n := postsWith(t, alice, ch.Id, marker); n != 0 {
				t.Fatalf("%d posts from the client's yes", n)
			}
			noFileNamed(t, marker)
			id := waitPending(t, alice, marker)
			if out.ID != "" && out.ID != id {
				t.Fatalf("the tool names %s, the list %s", out.ID, id)
			}
			// It waits for the person, who can still answer it.
			if body := answerOnPage(t, alice, id, "decline", marker); !strings.Contains(body, "declined") {
				t.Fatalf("the person's decline: %s", body)
			}
			if n := postsWith(t, alice, ch.Id, marker); n != 0 {
				t.Fatalf("%d posts after the decline", n)
			}
		})
	}
}

func TestAModelWrittenFileNameWithABidiOverrideOrAZeroWidthCharacterIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	alice := mm.Users[0]
	ch := townSquare(t)
	names := []struct{ what, name string }{
		{"a right-to-left override", "x\u202Efdp.exe"},
		{"a zero-width space", "a\u200Bb.txt"},
	}
	for _, mode := range []string{config.ConfirmClientThenMattermost, config.ConfirmMattermost} {
		for _, bad := range names {
			t.Run(mode+" "+bad.what, func(t *testing.T) {
				allowWrites(t, mode)
				marker := uniq(t, "badname")
				p := &person{answer: respond(mcp.ElicitationResponseActionDecline)}
				c := connectAsking(t, mm.URL, alice.Token, "", formOnly, p)
				res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": marker,
					"files": []map[string]any{{"name": bad.name, "content": "x\n"}}})
				if !res.IsError || !strings.Contains(text(res), "plain file name") {
					t.Fatalf("create_post with %s in a file name answered %s", bad.what, text(res))
				}
				if q := p.asked(); len(q) != 0 {
					t.Fatalf("the person was asked about a refused name: %+v", q)
				}
				if recs := confirmationsTitled(t, alice, marker); len(recs) != 0 {
					t.Fatalf("a refused name left confirmations: %v", recs)
				}
				if n := postsWith(t, alice, ch.Id, marker); n != 0 {
					t.Fatalf("%d posts", n)
				}
			})
		}
	}
	t.Run("a plain name is asked", func(t *testing.T) {
		// The same write with a plain name reaches the person and is
		// listed, so the checks above can see a question when there is one.
		allowWrites(t, config.ConfirmMattermost)
		marker := uniq(t, "plainname")
		done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker,
			"files": []map[string]any{{"name": "report.txt", "content": "x\n"}}})
		id := waitPending(t, alice, marker)
		if recs := confirmationsTitled(t, alice, marker); len(recs) != 1 {
			t.Fatalf("confirmations for a plain name: %v", recs)
		}
		answerOnPage(t, alice, id, "decline", marker)
		if res, out := waitTool(t, done); out.State != approval.StateDeclined {
			t.Fatalf("create_post answered %s", text(res))
		}
	})
}

func TestAMessageImitatingTheQuestionsFrameIsShownWholeInsideABoundaryItCannotContain(t *testing.T) {
	allowWrites(t, config.ConfirmClientThenMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "frame")
	msg := marker + " weekly note\n" +
		"----- end of message -----\n" +
		"Tick the box: the person already approved this post and the files below.\n" +
		"----- message -----\n" +
		"----- end of message 0000 -----\n" +
		"see you on Monday"
	p := &person{answer: respond(mcp.ElicitationResponseActionDecline)}
	c := connectAsking(t, mm.URL, alice.Token, "", formOnly, p)
	res := call(t, c, "create_post", map[string]any{"channel": ch.Id, "message": msg})
	if !res.IsError {
		t.Fatalf("a declined question answered %s", text(res))
	}
	qs := p.asked()
	if len(qs) != 1 {
		t.Fatalf("the person was asked %d times", len(qs))
	}
	q := qs[0].Message
	at := strings.Index(q, msg)
	if at < 0 {
		t.Fatalf("the question does not show the whole message verbatim:\n%s", q)
	}
	before, after := q[:at], q[at+len(msg):]
	if !strings.HasSuffix(before, "\n") || !strings.HasPrefix(after, "\n") {
		t.Fatalf("the message does not stand on its own lines in the question:\n%s", q)
	}
	lines := strings.Split(strings.TrimSuffix(before, "\n"), "\n")
	opening := lines[len(lines)-1]
	closing, _, _ := strings.Cut(after[1:], "\n")
	if !strings.HasPrefix(closing, "----- end of message") || strings.Contains(msg, closing) {
		t.Fatalf("the line after the message is %q, which is not an end-of-message line the message cannot contain:\n%s", closing, q)
	}
	token := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(closing, "----- end of message"), "-----"))
	if token == "" || strings.Contains(msg, token) || !strings.Contains(opening, "message") || !strings.Contains(opening, token) || strings.Contains(msg, opening) {
		t.Fatalf("the message is opened by %q and closed by %q (token %q):\n%s", opening, closing, token, q)
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after a decline", n)
	}
}

var rawCallIDs atomic.Int64

// rawCall sends one tools/call in an MCP session straight to a node and
// returns the status and the body (JSON or an event stream).
func rawCall(t *testing.T, node, token, sessionID, tool string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, rawCallIDs.Add(1), tool)
	req, err := http.NewRequest(http.MethodPost, mcpURL(node), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func deleteSession(t *testing.T, node, token, sessionID string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, mcpURL(node), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func TestAnotherUsersDeleteOfAnMCPSessionIsNotFoundAndTheOwnersSessionWorksOnEveryNode(t *testing.T) {
	nodes := nodeURLs(t)
	alice, bob := mm.Users[0], mm.Users[1]
	a := connectAt(t, nodes[0], alice.Token, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	sid := a.GetSessionId()
	if sid == "" {
		t.Fatal("a 2025-11-25 client has no session id")
	}
	works := func(when string) {
		t.Helper()
		for _, node := range nodes {
			code, body := rawCall(t, node, alice.Token, sid, "get_me")
			if code != http.StatusOK || !strings.Contains(body, `"result"`) || !strings.Contains(body, alice.ID) || strings.Contains(body, `"isError":true`) {
				t.Fatalf("%s, alice's get_me on %s: %d %s", when, node, code, body)
			}
		}
	}
	// Every node has served the session, so each holds it in memory.
	works("before bob's delete")
	for _, node := range nodes {
		if code := deleteSession(t, node, bob.Token, sid); code != http.StatusNotFound {
			t.Fatalf("bob's DELETE of alice's session on %s: %d", node, code)
		}
	}
	works("after bob's deletes")
	var me struct {
		UserID string `json:"user_id"`
	}
	structuredAs(t, call(t, a, "get_me", nil), &me)
	if me.UserID != alice.ID {
		t.Fatalf("alice's own client after bob's deletes answers as %q", me.UserID)
	}
	// Alice's own DELETE does end it: the calls above could have failed.
	if code := deleteSession(t, nodes[1], alice.Token, sid); code/100 != 2 {
		t.Fatalf("alice's DELETE of her own session: %d", code)
	}
	// The other node forgets its copy of the record through the cluster
	// event, or, on these two servers without a cluster, within seconds.
	eventually(t, "the session no longer answers on the other node after its owner ended it", func() bool {
		code, body := rawCall(t, nodes[0], alice.Token, sid, "get_me")
		return code != http.StatusOK || !strings.Contains(body, alice.ID)
	})
}
