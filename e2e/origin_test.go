package e2e

// Issue 29, item 7: the allowed origins hold on every route a browser can
// reach, not only on /mcp and the workspace API.

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
)

// originRefusal is in the one line every route answers a page of another
// origin with.
const originRefusal = "Allowed origins for browser-based MCP clients"

// fromOrigin sends method to target through c with origin ("" for none)
// and the extra headers, and returns the status and the body.
func fromOrigin(t *testing.T, c *http.Client, method, target, origin, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAPageOfAForeignOriginGets403OnEveryPluginRouteAndCannotAnswerAPendingWriteWithThePersonsOwnSession(t *testing.T) {
	alice := mm.Users[0]
	w := startWaitingWrite(t, aliceClient(t))
	web, csrf := cookieSession(t, alice)
	site := strings.TrimRight(mm.URL, "/")
	plugin := pluginURL()
	// As the web app sends its requests: the session cookie, the CSRF
	// token, X-Requested-With; the MCP endpoint with the token.
	webApp := map[string]string{"X-Requested-With": "XMLHttpRequest", model.HeaderCsrfToken: csrf}
	bearer := map[string]string{"Authorization": "Bearer " + alice.Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	routes := []struct {
		what, method, target, body string
		headers                    map[string]string
	}{
		{"the connect API", http.MethodGet, plugin + "/api/v1/connect", "", webApp},
		{"the person's audit entries", http.MethodGet, plugin + "/api/v1/audit/mine", "", webApp},
		{"the approval API's list", http.MethodGet, apiOf(site), "", webApp},
		{"the approval API's detail", http.MethodGet, apiOf(site) + "/" + w.id, "", webApp},
		{"the confirmation page", http.MethodGet, pageOf(w.id), "", webApp},
		{"the admin's page", http.MethodGet, plugin + "/admin", "", webApp},
		{"the protected-resource metadata", http.MethodGet, plugin + "/.well-known/oauth-protected-resource/mcp", "", nil},
		{"the MCP endpoint", http.MethodPost, mcpURL(site), initializeAs(legacyVersion), bearer},
	}
	const listed = "http://localhost:6274"
	served := map[string]int{}
	for _, r := range routes {
		code, body := fromOrigin(t, web, r.method, r.target, "", r.body, r.headers)
		if strings.Contains(body, originRefusal) {
			t.Fatalf("%s without Origin: %d %s", r.what, code, body)
		}
		served[r.what] = code
		for _, origin := range []string{"https://attacker.example", listed} {
			code, body := fromOrigin(t, web, r.method, r.target, origin, r.body, r.headers)
			if code != http.StatusForbidden || !strings.Contains(body, originRefusal) || strings.Contains(strings.TrimSpace(body), "\n") {
				t.Errorf("%s from %s: %d %.300s", r.what, origin, code, body)
			}
		}
		if code, body := fromOrigin(t, web, r.method, r.target, site, r.body, r.headers); code != served[r.what] || strings.Contains(body, originRefusal) {
			t.Errorf("%s from the site's own origin: %d %.300s, without Origin %d", r.what, code, body, served[r.what])
		}
	}

	// The person's own session with its CSRF token, sent by a page of
	// another origin, does not answer; read back, the write still waits.
	answerFrom := func(origin string) (int, string) {
		return fromOrigin(t, web, http.MethodPost, apiOf(site)+"/"+w.id+"/accept", origin, "", webApp)
	}
	if code, body := answerFrom("https://attacker.example"); code != http.StatusForbidden || !strings.Contains(body, originRefusal) {
		t.Fatalf("an accept from a page of another origin: %d %s", code, body)
	}
	// The page's own form, posted from another site's page, or from its
	// sandboxed frame (Origin "null", which the confirmation page's own
	// posts send too, but with Sec-Fetch-Site same-origin).
	for _, origin := range []string{"https://attacker.example", "null"} {
		if code, body := fromOrigin(t, web, http.MethodPost, pageOf(w.id)+"/accept", origin, "csrf="+csrf,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden || !strings.Contains(body, originRefusal) {
			t.Fatalf("the page's form posted from %s: %d %s", origin, code, body)
		}
	}
	nothingHappened(t, w)

	// A listed origin is served on every route, from the next request on.
	if err := mm.PatchPluginSettings(map[string]any{"AllowedOrigins": listed}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowedOrigins": ""}) })
	for _, r := range routes {
		var code int
		var body string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			code, body = fromOrigin(t, web, r.method, r.target, listed, r.body, r.headers)
			if !strings.Contains(body, originRefusal) || time.Now().After(deadline) {
				break // until every node read the setting
			}
		}
		if code != served[r.what] || strings.Contains(body, originRefusal) {
			t.Errorf("%s from the listed origin: %d %.300s, without Origin %d", r.what, code, body, served[r.what])
		}
	}

	// The same answer from the site's own page is the person's.
	code, body := answerFrom(site)
	if d := detailOf(t, []byte(body)); code != http.StatusOK || d.State == approval.StatePending {
		t.Fatalf("the accept from the site's own page: %d %s", code, body)
	}
	if id := postedAfter(t, w); id == "" {
		t.Fatal("the accepted write was not posted")
	}
	if n := postsWith(t, alice, w.ch.Id, w.marker); n != 1 {
		t.Fatalf("%d posts after the person's accept", n)
	}
}
