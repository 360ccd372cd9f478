package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/response"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

type nopLog struct{}

func (nopLog) Error(string, ...any) {}

type routesFixture struct {
	store    *Store
	router   *mux.Router
	mu       sync.Mutex
	executed int
	answered []string
	told     []string
	fail     error
}

// testCSRF is the CSRF token of every test session.
const testCSRF = "tok123"

// Sessions the fixture's requests can come with (header X-Test-Session).
const (
	sessionBrowser = ""        // the person's own web app session
	sessionToken   = "token"   // a personal access token, OAuth token or bot
	sessionClient  = "client"  // the session the MCP client signed in with
	sessionUnknown = "unknown" // Mattermost knows no such session
)

func newRoutes(t *testing.T) *routesFixture {
	t.Helper()
	f := &routesFixture{store: newStore(), router: mux.NewRouter()}
	rt := &Routes{Approvals: testApprovals(f), Log: nopLog{}, Session: testSession}
	rt.Register(f.router)
	return f
}

// testApprovals are approvals over the fixture's store that record what
// they carry out and tell instead of reaching Mattermost.
func testApprovals(f *routesFixture) *Approvals {
	return &Approvals{
		opts: Options{Config: func() config.Configuration { return allowWrites(config.ConfirmMattermost) }, PluginURL: func() string { return "http://mm/plugins/mcp-server" },
			Wake: &wake.Hub{KV: f.store.KV}},
		store:   f.store,
		clients: &clientSessions{kv: f.store.KV, now: time.Now},
		run: func(context.Context, *mattermost.Caller, posting.Plan) (Executed, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.executed++
			if f.fail != nil {
				return Executed{}, f.fail
			}
			return Executed{PostID: "p1", Permalink: "http://mm/team/pl/p1"}, nil
		},
		answered: func(c *mattermost.Caller, id, state string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.answered = append(f.answered, c.UserID()+" "+id+" "+state)
		},
		told: func(c *mattermost.Caller, rec Record) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.told = append(f.told, rec.ID)
		},
	}
}

func allowWrites(mode string) config.Configuration {
	c := config.Defaults()
	c.AllowWrites, c.WriteConfirmation = true, mode
	return c
}

// testSession is the Mattermost session of a fixture request.
func testSession(r *http.Request) (mattermost.Session, error) {
	user := r.Header.Get("Mattermost-User-Id")
	switch r.Header.Get("X-Test-Session") {
	case sessionToken:
		return mattermost.Session{ID: "token-" + user, UserID: user, Integration: true}, nil
	case sessionClient:
		return mattermost.Session{ID: "client-" + user, UserID: user, CSRF: testCSRF}, nil
	case sessionUnknown:
		return mattermost.Session{}, mattermost.ErrNotFound
	}
	return mattermost.Session{ID: "browser-" + user, UserID: user, CSRF: testCSRF}, nil
}

func (f *routesFixture) do(method, path, user string) *httptest.ResponseRecorder {
	return f.doAs(method, path, user, sessionBrowser, testCSRF)
}

// doAs sends a request as user, with one kind of session and a CSRF token.
func (f *routesFixture) doAs(method, path, user, session, csrf string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if user != "" {
		req.Header.Set("Mattermost-User-Id", user)
	}
	req.Header.Set("X-Test-Session", session)
	if csrf != "" && method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	w := httptest.NewRecorder()
	f.router.ServeHTTP(w, req)
	return w
}

func richPlan(t *testing.T) posting.Plan {
	thumb, typ, ok := posting.Thumbnail(context.Background(), testImage(t))
	if !ok {
		t.Fatal("no thumbnail of the test image")
	}
	return posting.Plan{CallerID: "alice", Dest: posting.Destination{ChannelID: "c", Label: "Town Square",
		Place: "Town Square, Acme", Where: "Town Square (~town-square), a public channel of team Acme"},
		Message: "**hi** <script>x</script>", Notes: []string{"@all notifies 3 people."},
		Files: []posting.Staged{
			{Kind: posting.KindWritten, Name: "a.txt", Content: "one\ntwo\n", Size: 8, SHA256: strings.Repeat("ab", 32), Detected: "UTF-8 text", Origin: "written by the model", Preview: "one\ntwo"},
			{Kind: posting.KindAttachment, Ref: "f1", Name: "p.png", Size: 900, SHA256: strings.Repeat("cd", 32), Detected: "PNG image", Origin: "attachment p.png", Thumbnail: thumb, ThumbnailType: typ},
		}}
}

func TestTheAPIDetailHoldsEverythingThePersonChecks(t *testing.T) {
	f := newRoutes(t)
	rec, err := f.store.Create("alice", "Post to Town Square", richPlan(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("detail: %d %s", w.Code, w.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "title", "state", "created_at", "expires_at", "destination", "message", "message_html", "notes", "files", "outcome", "permalink", "page_url"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("detail lacks %q", k)
		}
	}
	var d Detail
	_ = json.Unmarshal(w.Body.Bytes(), &d)
	if d.State != StatePending || d.Destination != "Town Square" || d.PageURL != "/plugins/mcp-server/confirm/"+rec.ID || len(d.Notes) != 1 {
		t.Fatalf("detail: %+v", d)
	}
	if !strings.Contains(string(d.MessageHTML), "<strong>hi</strong>") || strings.Contains(string(d.MessageHTML), "<script>") {
		t.Fatalf("message_html %s", d.MessageHTML)
	}
	if len(d.Files) != 2 || d.Files[0].Preview != "one\ntwo" || d.Files[0].ThumbnailURL != "" || d.Files[0].SHA256 != "abababababab" || d.Files[1].Index != 1 {
		t.Fatalf("files: %+v", d.Files)
	}
	want := "/plugins/mcp-server" + APIPath + "/" + rec.ID + "/files/1/thumbnail"
	if d.Files[1].ThumbnailURL != want {
		t.Fatalf("thumbnail_url %q, want %q", d.Files[1].ThumbnailURL, want)
	}
	th := f.do(http.MethodGet, strings.TrimPrefix(want, "/plugins/mcp-server"), "alice")
	if th.Code != http.StatusOK || th.Header().Get("Content-Type") != "image/jpeg" || th.Header().Get("Cache-Control") != "no-store" || th.Body.Len() == 0 {
		t.Fatalf("thumbnail: %d %v", th.Code, th.Header())
	}
	if w := f.do(http.MethodGet, APIPath+"/"+rec.ID+"/files/0/thumbnail", "alice"); w.Code != http.StatusNotFound {
		t.Fatalf("thumbnail of a text file: %d", w.Code)
	}
}

func TestAnotherUserAndARequestWithoutAUserGetNotFoundAndChangeNothing(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	for _, user := range []string{"bob", ""} {
		for _, c := range []struct{ method, path string }{
			{http.MethodGet, APIPath + "/" + rec.ID},
			{http.MethodGet, APIPath + "/" + rec.ID + "/files/1/thumbnail"},
			{http.MethodPost, APIPath + "/" + rec.ID + "/accept"},
			{http.MethodPost, APIPath + "/" + rec.ID + "/decline"},
			{http.MethodGet, Path + "/" + rec.ID},
			{http.MethodPost, Path + "/" + rec.ID + "/accept"},
		} {
			w := f.do(c.method, c.path, user)
			if w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), "Town Square") {
				t.Errorf("%q %s %s: %d %s", user, c.method, c.path, w.Code, w.Body)
			}
		}
		var list struct{ Confirmations []Detail }
		w := f.do(http.MethodGet, APIPath, user)
		_ = json.Unmarshal(w.Body.Bytes(), &list)
		if len(list.Confirmations) != 0 {
			t.Errorf("%q lists alice's confirmations", user)
		}
	}
	got, _ := f.store.Load("alice", rec.ID)
	if got.State != StatePending || f.executed != 0 || len(f.answered) != 0 {
		t.Fatalf("a refused request changed something: %s, %d executed", got.State, f.executed)
	}
}

func TestTheAPIAnswersAsDataAndThePageAndThumbnailAsAPageWithoutAReferrer(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	page := map[string]string{"Content-Security-Policy": response.PagePolicy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
	data := map[string]string{"Content-Security-Policy": response.DataPolicy, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "Content-Type": "application/json"}
	for _, c := range []struct {
		name, method, path, user string
		want                     map[string]string
	}{
		{"the list", http.MethodGet, APIPath, "alice", data},
		{"a detail", http.MethodGet, APIPath + "/" + rec.ID, "alice", data},
		{"a missing detail", http.MethodGet, APIPath + "/" + rec.ID, "bob", data},
		{"a thumbnail", http.MethodGet, APIPath + "/" + rec.ID + "/files/1/thumbnail", "alice", page},
		{"the page", http.MethodGet, Path + "/" + rec.ID, "alice", page},
		{"a missing page", http.MethodGet, Path + "/" + rec.ID, "bob", page},
		{"the page's answer", http.MethodPost, Path + "/" + rec.ID + "/decline", "alice", page},
	} {
		w := f.do(c.method, c.path, c.user)
		for k, v := range c.want {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s: %s is %q, want %q", c.name, k, got, v)
			}
		}
	}
}

func TestAnAnswerThroughTheAPIIsGivenOnceAndToldToTheOtherTabs(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	w := f.do(http.MethodPost, APIPath+"/"+rec.ID+"/accept", "alice")
	var d Detail
	_ = json.Unmarshal(w.Body.Bytes(), &d)
	if w.Code != http.StatusOK || d.State != StateDone || d.Permalink == "" || len(d.Files) != 0 {
		t.Fatalf("accept: %d %s", w.Code, w.Body)
	}
	w = f.do(http.MethodPost, APIPath+"/"+rec.ID+"/decline", "alice")
	_ = json.Unmarshal(w.Body.Bytes(), &d)
	if w.Code != http.StatusOK || d.State != StateDone {
		t.Fatalf("second answer: %d %s", w.Code, w.Body)
	}
	if f.executed != 1 || len(f.answered) != 1 || f.answered[0] != "alice "+rec.ID+" posted" {
		t.Fatalf("executed %d, answered %v", f.executed, f.answered)
	}
}

func TestAFailedPostIsReportedWithItsOutcome(t *testing.T) {
	f := newRoutes(t)
	f.fail = errors.New("a.txt changed")
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	var d Detail
	w := f.do(http.MethodPost, APIPath+"/"+rec.ID+"/accept", "alice")
	_ = json.Unmarshal(w.Body.Bytes(), &d)
	if d.State != StateFailed || !strings.Contains(d.Outcome, "a.txt changed") {
		t.Fatalf("failed accept: %s", w.Body)
	}
}

func TestTheListPutsPendingPostsFirst(t *testing.T) {
	f := newRoutes(t)
	first, _ := f.store.Create("alice", "first", richPlan(t), nil)
	second, _ := f.store.Create("alice", "second", richPlan(t), nil)
	if _, err := f.store.Decline("alice", second.ID); err != nil {
		t.Fatal(err)
	}
	var list struct{ Confirmations []Detail }
	_ = json.Unmarshal(f.do(http.MethodGet, APIPath, "alice").Body.Bytes(), &list)
	if len(list.Confirmations) != 2 || list.Confirmations[0].ID != first.ID || list.Confirmations[1].State != StateDeclined {
		t.Fatalf("list: %+v", list.Confirmations)
	}
}

func TestThePageShowsTheRenderedMessageThumbnailsAndPreviewsAndRedirectsAfterTheAnswer(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	req := httptest.NewRequest(http.MethodGet, Path+"/"+rec.ID, nil)
	req.Header.Set("Mattermost-User-Id", "alice")
	req.AddCookie(&http.Cookie{Name: "MMCSRF", Value: "tok123"})
	w := httptest.NewRecorder()
	f.router.ServeHTTP(w, req)
	page := w.Body.String()
	for _, want := range []string{`<strong>hi</strong>`, `&lt;script&gt;`, `<img class="thumbnail" src="/plugins/mcp-server/api/v1/confirmations/` + rec.ID + `/files/1/thumbnail"`,
		`<pre class="preview"`, "one\ntwo</pre>", `name="csrf" value="tok123"`, `id="accept"`, `id="decline"`, "Town Square"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Fatal("the page holds a script")
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("CSP %q", csp)
	}
	w = f.do(http.MethodPost, Path+"/"+rec.ID+"/decline", "alice")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "../"+rec.ID {
		t.Fatalf("answer: %d %v", w.Code, w.Header())
	}
	w = f.do(http.MethodGet, Path+"/"+rec.ID, "alice")
	if !strings.Contains(w.Body.String(), `id="outcome" data-state="declined"`) || strings.Contains(w.Body.String(), `id="accept"`) {
		t.Fatalf("page after the answer: %s", w.Body)
	}
}

func testImage(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestAnEditShowsTheNewMessageAndTheOneItReplacesAndAReactionShowsThePost(t *testing.T) {
	f := newRoutes(t)
	cases := []struct {
		plan posting.Plan
		want []string
	}{
		{posting.Plan{CallerID: "alice", Action: ActionEdit, PostID: "p1", Message: "**new** words", Previous: "_old_ words",
			Dest: posting.Destination{ChannelID: "c", Label: "~town-square"}},
			[]string{"Edit your post in ~town-square</h1>", "replace the message of your post", "<strong>new</strong> words", "<em>old</em> words", `id="previous"`, ">Accept and edit</button>"}},
		{posting.Plan{CallerID: "alice", Action: ActionReact, PostID: "p1", Payload: Reaction{Emoji: "tada"}, Previous: "the **post**",
			Dest: posting.Destination{ChannelID: "c", Label: "~town-square"}},
			[]string{`React <code class="by-ai" title="Written by the AI">:tada:</code> to a post in ~town-square</h1>`, "add your <strong>:tada:</strong> reaction", "the <strong>post</strong>", ">Accept</button>"}},
		{posting.Plan{CallerID: "alice", Action: ActionUnreact, PostID: "p1", Payload: Reaction{Emoji: "tada"}, Previous: "the post",
			Dest: posting.Destination{ChannelID: "c", Label: "~town-square"}},
			[]string{"take back your <strong>:tada:</strong> reaction"}},
	}
	for _, c := range cases {
		rec, err := f.store.Create("alice", "t", c.plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
		for _, want := range c.want {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %q", c.plan.Action, want)
			}
		}
		if strings.Contains(page, "post this as you") {
			t.Errorf("%s: the page calls it a post", c.plan.Action)
		}
		var d Detail
		if err := json.Unmarshal(f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice").Body.Bytes(), &d); err != nil || d.Action != c.plan.Action || d.Previous != c.plan.Previous {
			t.Errorf("%s: detail %+v %v", c.plan.Action, d, err)
		}
	}
}

func TestThePageHeadsTheWriteInThePersonsWordsWithoutIdsAndShowsTheExpiryInTheirTimeZone(t *testing.T) {
	f := &routesFixture{store: newStore(), router: mux.NewRouter()}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	rt := &Routes{Approvals: testApprovals(f), Log: nopLog{}, Session: testSession, Location: func(user string) *time.Location {
		if user != "alice" {
			t.Errorf("the time zone of %q was asked for", user)
		}
		return berlin
	}}
	rt.Register(f.router)
	plan := richPlan(t)
	plan.Dest.Label = `~town-square "Town Square" (public, team Acme (acme), id 7ge5chan)`
	plan.Message = "**Harbour report** for @bob"
	rec, _ := f.store.Create("alice", Title(plan), plan, nil)
	page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
	h1 := page[strings.Index(page, "<h1"):strings.Index(page, "</h1>")]
	if !strings.HasSuffix(h1, ">Post in Town Square, Acme") {
		t.Fatalf("heading %q", h1)
	}
	expires := rec.ExpiresAt().In(berlin).Format("15:04") + " (Europe/Berlin)"
	for _, want := range []string{expires, `id="destination">Town Square (~town-square), a public channel of team Acme<`, "Written by the AI", "A copy of the attachment p.png", `<ul id="notes"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, never := range []string{"7ge5chan", "from written by the model", "<h1>Post to"} {
		if strings.Contains(page, never) {
			t.Errorf("the page shows %q", never)
		}
	}
	var d Detail
	_ = json.Unmarshal(f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice").Body.Bytes(), &d)
	if d.Heading != "Post in Town Square, Acme" || d.Place != "Town Square, Acme" || d.TimeZone != "Europe/Berlin" || d.Files[0].OriginText != "Written by the AI" {
		t.Fatalf("detail %+v", d)
	}
}

func TestAfterTheAnswerThePageSaysWhatHappenedInASentence(t *testing.T) {
	f := newRoutes(t)
	cases := []struct {
		verb string
		want *regexp.Regexp
		fail error
	}{
		{"accept", regexp.MustCompile(`<h1>Posted in Town Square, Acme\.</h1>`), nil},
		{"decline", regexp.MustCompile(`<h1>Declined: nothing was posted\.</h1>`), nil},
		{"accept", regexp.MustCompile(`<h1>Failed: nothing was posted\.</h1>\s*<p class="reason">a\.txt changed</p>`), errors.New("a.txt changed")},
	}
	for _, c := range cases {
		f.fail = c.fail
		rec, _ := f.store.Create("alice", "Post to Town Square: \"hi\"", richPlan(t), nil)
		if w := f.do(http.MethodPost, Path+"/"+rec.ID+"/"+c.verb, "alice"); w.Code != http.StatusSeeOther {
			t.Fatalf("%s: %d", c.verb, w.Code)
		}
		page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
		if !c.want.MatchString(page) || strings.Contains(page, "Post to Town Square") || strings.Contains(page, `id="accept"`) || !strings.Contains(page, "You answered at") {
			t.Errorf("%s: the page after the answer: %s", c.verb, page)
		}
		if c.verb == "accept" && c.fail == nil && !strings.Contains(page, `<a id="permalink" class="button primary" href="http://mm/team/pl/p1"`) {
			t.Errorf("no link to the post: %s", page)
		}
	}
}

func TestTheAnswerThroughTheAPISaysWhereTheWriteWent(t *testing.T) {
	f := newRoutes(t)
	rec, _ := f.store.Create("alice", "Post", richPlan(t), nil)
	var d Detail
	_ = json.Unmarshal(f.do(http.MethodPost, APIPath+"/"+rec.ID+"/accept", "alice").Body.Bytes(), &d)
	if d.OutcomeText != "Posted in Town Square, Acme." || d.Heading != "Post in Town Square, Acme" {
		t.Fatalf("answer: %+v", d)
	}
}

func TestAnOriginReadsAsASentence(t *testing.T) {
	cases := map[string][2]string{
		"written by the model":                                        {"Written by the AI", ""},
		"attachment p.png from http://mm/acme/pl/p1":                  {"A copy of the attachment p.png", "http://mm/acme/pl/p1"},
		"attachment p.png":                                            {"A copy of the attachment p.png", ""},
		"your workspace file report.csv":                              {"From your workspace file report.csv", ""},
		"upload handle for scan.pdf":                                  {"Uploaded through an upload link the AI asked for (scan.pdf)", ""},
		"attached in the chat, fetched from files.oaiusercontent.com": {"Attached in the chat, fetched from files.oaiusercontent.com", ""},
		"attachment x from javascript:alert(1)":                       {"A copy of the attachment x from javascript:alert(1)", ""},
	}
	for origin, want := range cases {
		if text, link := originText(origin); text != want[0] || link != want[1] {
			t.Errorf("%q reads %q %q", origin, text, link)
		}
	}
}

func TestAPostsNotesAreHeadedByTheServerSoNoViewKeepsADefaultOfItsOwn(t *testing.T) {
	f := newRoutes(t)
	rec, err := f.store.Create("alice", "Post", richPlan(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice")
	var d Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || len(d.Notes) == 0 || d.NotesHeading != "Who is notified" {
		t.Fatalf("the detail heads %d notes %q: %s", len(d.Notes), d.NotesHeading, w.Body)
	}
}

func TestThePageSaysAFileFromTheChatAlreadyWaitsInMattermostAndOthersAreUploadedOnlyOnYes(t *testing.T) {
	written := posting.Plan{Files: []posting.Staged{{Kind: posting.KindWritten, Name: "a.txt"}}}
	if h := filesHint(written); !strings.Contains(h, "uploaded only if you accept") || strings.Contains(h, "chat") {
		t.Errorf("without a received file: %q", h)
	}
	received := written
	received.Files = append(received.Files, posting.Staged{Kind: posting.KindUploaded, Ref: "f1", Name: "plan.pdf"})
	if h := filesHint(received); !strings.Contains(h, "posted only if you accept") || !strings.Contains(h, "deleted if you decline") {
		t.Errorf("with a received file: %q", h)
	}
}
