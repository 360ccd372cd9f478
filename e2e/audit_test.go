package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/adminpage"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// The client every audit test signs in with: its name and version must be
// on every entry it causes.
const (
	auditClient        = "audit-e2e-client"
	auditClientVersion = "3.2.1"
)

func auditURL(path string, q url.Values) string {
	u := mm.URL + "/plugins/mcp-server" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// auditPage reads a page of the trail with token.
func auditPage(t *testing.T, token, path string, q url.Values) (int, audit.Page, string) {
	t.Helper()
	code, body := get(t, http.DefaultClient, auditURL(path, q), token)
	var p audit.Page
	if code == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatalf("the audit page %q: %v", body, err)
		}
	}
	return code, p, body
}

// waitAudit polls the admin's view of a person's entries until at least n
// are there, and answers them with the body they came in.
func waitAudit(t *testing.T, adminToken, userID string, n int) ([]audit.Event, string) {
	t.Helper()
	return waitAuditOf(t, adminToken, url.Values{"user": {userID}}, n)
}

// waitAuditOf is waitAudit for the entries the filters in q select.
func waitAuditOf(t *testing.T, adminToken string, q url.Values, n int) ([]audit.Event, string) {
	t.Helper()
	q.Set("per_page", "200")
	userID := q.Get("user")
	var last []audit.Event
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		code, p, body := auditPage(t, adminToken, audit.APIPath, q)
		if code != http.StatusOK {
			t.Fatalf("the admin reads the trail: %d %s", code, body)
		}
		if last = p.Entries; len(last) >= n {
			return last, body
		}
	}
	t.Fatalf("%d audit entries of %s appeared, want %d: %+v", len(last), userID, n, last)
	return nil, ""
}

// auditedClient is an MCP client named auditClient at auditClientVersion,
// speaking protocol: 2025-11-25 opens a session, which names the client;
// 2026-07-28 and later name it on every request.
func auditedClient(t *testing.T, u harness.User, protocol string) *client.Client {
	t.Helper()
	return auditedClientAt(t, mm.URL, u, protocol)
}

func auditedClientAt(t *testing.T, site string, u harness.User, protocol string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(mcpURL(site), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + u.Token}))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(protocol))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: auditClient, Version: auditClientVersion}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func TestEachAuditedEventAppearsOnceWithItsClientAndNoMessageTextAndOnlyItsReadersSeeIt(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	person, onlooker := freshUser(t, "auditee"), freshUser(t, "onlooker")
	c := auditedClient(t, person, "2025-11-25")
	word := uniq(t, "zebrafish")
	ch := townSquare(t)

	// A post accepted on the page, one declined, one left to expire.
	done := postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": word + " accepted"})
	answerOnPage(t, person, waitPending(t, person, word), "accept", "")
	_, posted := waitTool(t, done)
	if posted.PostID == "" {
		t.Fatalf("the accepted post was not made: %+v", posted)
	}
	done = postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": word + " declined"})
	answerOnPage(t, person, waitPending(t, person, word), "decline", "")
	<-done
	done = postAsyncWith(c, "create_post", map[string]any{"channel": ch.Id, "message": word + " unanswered"})
	unanswered := waitPending(t, person, word)
	if err := mm.ExpireKV(context.Background(), "pc_"+person.ID+"_"+unanswered); err != nil {
		t.Fatal(err)
	}
	<-done

	// A change of the person's own view, a presigned URL and an upload
	// handle, each for things named with the word.
	if res := call(t, c, "save_post", map[string]any{"post_id": posted.PostID}); res.IsError {
		t.Fatalf("save_post: %s", text(res))
	}
	if res := call(t, c, "files_write", map[string]any{"name": word + ".txt", "text": word + " in the file"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	if res := call(t, c, "files_presign", map[string]any{"name": word + ".txt", "direction": "download"}); res.IsError {
		t.Fatalf("files_presign: %s", text(res))
	}
	if res := call(t, c, "request_upload", map[string]any{"name": word + "-upload.bin", "size": 10}); res.IsError {
		t.Fatalf("request_upload: %s", text(res))
	}

	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"write/create_post/asked": 3, "write/create_post/accepted": 1, "write/create_post/done": 1, "write/create_post/declined": 1,
		"write/create_post/expired": 1, "own_view/save_post/done": 1, "presigned_url/files_presign/issued": 1, "upload_handle/request_upload/issued": 1,
		// The client's session, opened once.
		"connection//done": 1,
	}
	total := 0
	for _, n := range want {
		total += n
	}
	entries, body := waitAudit(t, adminToken, person.ID, total)
	got := map[string]int{}
	for _, e := range entries {
		got[string(e.Kind)+"/"+e.Tool+"/"+e.Outcome]++
		if e.UserID != person.ID || e.ClientName != auditClient || e.ClientVersion != auditClientVersion {
			t.Errorf("an entry without the person or their client: %+v", e)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries %v, want each once: %v", got, want)
	}
	for _, e := range entries {
		if e.Kind == audit.KindWrite && e.Targets["write_id"] == "" || e.Kind == audit.KindWrite && e.Targets["channel_id"] != ch.Id {
			t.Errorf("a write's entry without its ids: %+v", e)
		}
		if e.Kind == audit.KindOwnView && e.Targets["post_id"] != posted.PostID {
			t.Errorf("the own-view entry names %v", e.Targets)
		}
	}
	if strings.Contains(body, word) {
		t.Fatalf("the trail holds the message or a file's name: %s", body)
	}
	code, csvBody := get(t, http.DefaultClient, auditURL(audit.APIPath, url.Values{"user": {person.Username}, "format": {"csv"}, "per_page": {"200"}}), adminToken)
	rows, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if code != http.StatusOK || err != nil || len(rows) != total+1 || rows[0][0] != "at" {
		t.Fatalf("the CSV by username: %d %v %d rows\n%s", code, err, len(rows), csvBody)
	}
	if strings.Contains(csvBody, word) {
		t.Fatalf("the CSV holds the message or a file's name: %s", csvBody)
	}

	// The person reads their own, filtered; the onlooker reads nothing of
	// theirs and not the admin's route.
	code, mine, _ := auditPage(t, person.Token, audit.MinePath, url.Values{"kind": {"write"}, "outcome": {"asked"}})
	if code != http.StatusOK || len(mine.Entries) != 3 {
		t.Fatalf("the person's own asked writes: %d %+v", code, mine.Entries)
	}
	if code, _, body := auditPage(t, person.Token, audit.APIPath, nil); code != http.StatusForbidden || !strings.Contains(body, "system admin") {
		t.Fatalf("the person on the admin's route: %d %s", code, body)
	}
	if code, _, body := auditPage(t, onlooker.Token, audit.APIPath, url.Values{"user": {person.ID}}); code != http.StatusForbidden {
		t.Fatalf("another user on the admin's route: %d %s", code, body)
	}
	code, theirs, _ := auditPage(t, onlooker.Token, audit.MinePath, nil)
	if code != http.StatusOK || len(theirs.Entries) != 0 {
		t.Fatalf("another user's own entries hold %d: %+v", len(theirs.Entries), theirs.Entries)
	}
	if code, _, body := auditPage(t, adminToken, audit.APIPath, url.Values{"since": {"last tuesday"}}); code != http.StatusBadRequest || !strings.Contains(body, "RFC 3339") {
		t.Fatalf("a bad since: %d %s", code, body)
	}
	// Read again: nothing was recorded twice meanwhile.
	if again, _ := waitAudit(t, adminToken, person.ID, total); len(again) != total {
		t.Fatalf("%d entries now, %d before", len(again), total)
	}
}

func TestMattermostsOwnAuditLogReceivesTheEntriesWhereItOffersOne(t *testing.T) {
	person := freshUser(t, "auditlog")
	c := auditedClient(t, person, mcp.LATEST_PROTOCOL_VERSION)
	if res := call(t, c, "files_write", map[string]any{"name": "log.txt", "text": "x"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	if res := call(t, c, "files_presign", map[string]any{"name": "log.txt", "direction": "download"}); res.IsError {
		t.Fatalf("files_presign: %s", text(res))
	}
	if !mattermost.TakesAuditRecords(harness.MattermostVersion() + ".0") {
		// Before 10.10 the plugin says once that there is no such log, and
		// still keeps the entry in its own trail.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if raw, _ := os.ReadFile(mm.ServerLog()); strings.Contains(string(raw), "has no audit log for plugins") {
				return
			}
		}
		t.Fatal("the plugin did not say that this Mattermost has no audit log for plugins")
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		log, err := mm.AuditLog()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(log, "\n") {
			if !strings.Contains(line, person.ID) || !strings.Contains(line, "mcp_presigned_url") {
				continue
			}
			var rec struct {
				EventName string `json:"event_name"`
				Status    string `json:"status"`
				Actor     struct {
					UserID string `json:"user_id"`
					Client string `json:"client"`
				} `json:"actor"`
				Event struct {
					Parameters map[string]any `json:"parameters"`
				} `json:"event"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("an audit line %q: %v", line, err)
			}
			if rec.Actor.UserID != person.ID || rec.Actor.Client != auditClient+" "+auditClientVersion || rec.Event.Parameters["tool"] != "files_presign" ||
				rec.Event.Parameters["plugin_id"] != harness.PluginID || rec.Status != "success" || strings.Contains(line, "log.txt") {
				t.Fatalf("Mattermost's audit record: %s", line)
			}
			return
		}
	}
	t.Fatalf("Mattermost's audit log has no record of the presigned URL")
}

func TestTheRetentionSweepRemovesTheDaysPastItAndKeepsTheRest(t *testing.T) {
	ctx := context.Background()
	person := freshUser(t, "retained")
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	// Two days planted as the store writes them: one years old, one twenty
	// days old.
	old, recent := time.Date(2020, 1, 2, 10, 0, 0, 0, time.UTC), time.Now().UTC().AddDate(0, 0, -20)
	for _, at := range []time.Time{old, recent} {
		day := audit.Day(at)
		entry := fmt.Sprintf(`{"v":1,"e":[{"t":%d,"k":"write","u":%q,"tl":"create_post","o":"asked"}]}`, at.UnixMilli(), person.ID)
		if err := mm.PlantKV(ctx, fmt.Sprintf("au_c_%s_0000", day), []byte(entry)); err != nil {
			t.Fatal(err)
		}
		if err := mm.PlantKV(ctx, "au_h_"+day, []byte(`{"n":1,"c":{"write/asked":1}}`)); err != nil {
			t.Fatal(err)
		}
		raw, err := mm.KVValue(ctx, "au_days")
		if err != nil {
			t.Fatal(err)
		}
		var days []string
		if raw != nil {
			if err := json.Unmarshal(raw, &days); err != nil {
				t.Fatal(err)
			}
		}
		days = append(days, day)
		slices.Sort(days)
		next, _ := json.Marshal(slices.Compact(days))
		if err := mm.PlantKV(ctx, "au_days", next); err != nil {
			t.Fatal(err)
		}
	}
	q := url.Values{"user": {person.ID}}
	if _, p, body := auditPage(t, adminToken, audit.APIPath, q); len(p.Entries) != 2 {
		t.Fatalf("the planted days read %s", body)
	}
	// An admin shortens the retention: the sweep runs at once.
	if err := mm.PatchPluginSettings(map[string]any{"AuditRetentionDays": 30}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mm.PatchPluginSettings(map[string]any{"AuditRetentionDays": config.DefaultAuditRetentionDays})
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		head, err := mm.KVValue(ctx, "au_h_"+audit.Day(old))
		if err != nil {
			t.Fatal(err)
		}
		chunk, err := mm.KVValue(ctx, "au_c_"+audit.Day(old)+"_0000")
		if err != nil {
			t.Fatal(err)
		}
		if head == nil && chunk == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the day of %s is still stored after the retention was lowered to 30 days", audit.Day(old))
		}
	}
	_, p, body := auditPage(t, adminToken, audit.APIPath, q)
	if len(p.Entries) != 1 || !p.Entries[0].At.Equal(recent.Truncate(time.Millisecond)) {
		t.Fatalf("after the sweep the trail reads %s", body)
	}
}

// adminStatus is the admin page's status as JSON, read with the admin's token.
func adminStatus(t *testing.T, adminToken string) adminpage.Status {
	t.Helper()
	code, body := get(t, http.DefaultClient, auditURL(adminpage.StatusPath, nil), adminToken)
	var status adminpage.Status
	if code != http.StatusOK || json.Unmarshal([]byte(body), &status) != nil {
		t.Fatalf("the status as JSON: %d %s", code, body)
	}
	return status
}

func TestTheAdminPageShowsSignInPeopleAndClientsOnAPhoneAndALaptopAndNobodyElseSeesIt(t *testing.T) {
	person := freshUser(t, "pageuser")
	c := auditedClient(t, person, mcp.LATEST_PROTOCOL_VERSION)
	call(t, c, "get_me", map[string]any{})
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	// The use is noted in the background: wait for the status to count it.
	var status adminpage.Status
	eventually(t, "the status counts the person's client", func() bool {
		status = adminStatus(t, adminToken)
		return status.Usage.People >= 1 && slices.ContainsFunc(status.Usage.Clients, func(c audit.ClientCount) bool { return c.Name == auditClient })
	})
	for _, path := range []string{adminpage.Path, adminpage.StatusPath} {
		if code, body := get(t, http.DefaultClient, auditURL(path, nil), person.Token); code != http.StatusForbidden || !strings.Contains(body, "system admin") {
			t.Fatalf("a person opens %s: %d %s", path, code, body)
		}
	}

	tab := chromeAs(t, mm.Admin)
	for _, width := range []int64{laptopWidth, phoneWidth} {
		atWidth(t, tab, width, 900)
		// Uses noted in the background can only add people while the page
		// loads: the page's count lies between a status read before and one after.
		before := adminStatus(t, adminToken)
		step(t, tab, chromedp.Navigate(auditURL(adminpage.Path, nil)), chromedp.WaitVisible(chromedp.ID("people-count")))
		after := adminStatus(t, adminToken)
		fitsWidth(t, tab, width, "the admin page")
		if ok := evalJS[string](t, tab, `document.querySelector("#oauth").dataset.ok`); ok != fmt.Sprint(status.OAuth.OK) {
			t.Errorf("the page says OAuth sign-in works: %s; the status: %v", ok, status.OAuth.OK)
		}
		if steps := evalJS[string](t, tab, `document.querySelector("#oauth").innerText`); !strings.Contains(steps, "Dynamic Client Registration") || !strings.Contains(steps, mm.URL) {
			t.Errorf("the sign-in section does not name the settings: %s", steps)
		}
		people, err := strconv.Atoi(evalJS[string](t, tab, `document.querySelector("#people-count").textContent`))
		if err != nil || people < before.Usage.People || people > after.Usage.People {
			t.Errorf("the page counts %d people (%v), the status %d before and %d after", people, err, before.Usage.People, after.Usage.People)
		}
		clients := evalJS[string](t, tab, `Array.from(document.querySelectorAll(".client-name")).map(e => e.textContent).join("|")`)
		if !strings.Contains(clients, auditClient) {
			t.Errorf("the page's clients: %s", clients)
		}
		if days := evalJS[int](t, tab, `document.querySelectorAll("#writes li").length`); days != 7 {
			t.Errorf("the page shows %d days of writes", days)
		}
		shoot(t, tab, width, "admin")
	}
}

func TestBothServersOfAClusterAppendToOneTrailAndNoEntryIsLost(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	person := freshUser(t, "clustered")
	// Two clients, each call alternating between the servers, at once.
	clients := []*client.Client{auditedClientAt(t, proxyURL, person, "2025-11-25"), auditedClientAt(t, proxyURL, person, mcp.LATEST_PROTOCOL_VERSION)}
	for _, c := range clients {
		if res := call(t, c, "files_write", map[string]any{"name": "both.txt", "text": "x"}); res.IsError {
			t.Fatalf("files_write: %s", text(res))
		}
	}
	const perClient = 12
	errs := make(chan error, len(clients)*perClient)
	for _, c := range clients {
		go func() {
			for range perClient {
				res, err := callErr(c, "files_presign", map[string]any{"name": "both.txt", "direction": "download"})
				if err == nil && res.IsError {
					err = fmt.Errorf("files_presign: %s", text(res))
				}
				errs <- err
			}
		}()
	}
	for range len(clients) * perClient {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	// Each client's connection is recorded too; this counts the URLs.
	entries, _ := waitAuditOf(t, adminToken, url.Values{"user": {person.ID}, "kind": {string(audit.KindPresignedURL)}}, len(clients)*perClient)
	tokens := map[string]bool{}
	for _, e := range entries {
		if e.Kind != audit.KindPresignedURL || e.ClientName != auditClient {
			t.Fatalf("an unexpected entry %+v", e)
		}
		tokens[e.Targets["token_id"]] = true
	}
	if len(entries) != len(clients)*perClient || len(tokens) != len(entries) {
		t.Fatalf("%d entries naming %d tokens, want %d each", len(entries), len(tokens), len(clients)*perClient)
	}
	n1, n2 := mm.ProxyHits()
	if n1 == 0 || n2 == 0 {
		t.Fatalf("the proxy sent %d and %d requests to the servers", n1, n2)
	}
}
