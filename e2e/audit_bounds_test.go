package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// modernList is a stateless (2026-07-28) tools/list of token that declares
// its client as name: a new stateless client of the person, each new name.
func modernList(t *testing.T, token, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientInfo":{"name":%q,"version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, name)
	req, err := http.NewRequest(http.MethodPost, mcpURL(mm.URL), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set(mcp.HeaderMethod, "tools/list")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"result"`) {
		t.Fatalf("tools/list as %s: %d %s", name, resp.StatusCode, got)
	}
}

func TestOnePersonsManyClientNamesWithinAMinuteLeaveAFewConnectionEntriesAndTheRestAreCounted(t *testing.T) {
	u := newPerson(t, "renamer")
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"user": {u.ID}, "kind": {string(audit.KindConnection)}, "per_page": {"200"}}
	code, before, body := auditPage(t, adminToken, audit.APIPath, q)
	if code != http.StatusOK {
		t.Fatalf("the admin reads the trail: %d %s", code, body)
	}
	const lists = 4 * audit.MaxConnectionsAMinute
	for i := range lists {
		modernList(t, u.Token, fmt.Sprintf("renamed-client-%02d", i))
	}

	// The held-back ones are counted within the writer's flush (seconds).
	var after audit.Page
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if code, after, body = auditPage(t, adminToken, audit.APIPath, q); code != http.StatusOK {
			t.Fatalf("the admin reads the trail: %d %s", code, body)
		}
		if after.Repeated-before.Repeated >= lists-audit.MaxConnectionsAMinute && len(after.Entries) >= audit.MaxConnectionsAMinute {
			break
		}
	}
	if len(after.Entries) != audit.MaxConnectionsAMinute || after.Repeated-before.Repeated < lists-audit.MaxConnectionsAMinute {
		t.Fatalf("%d requests with new names stored %d connection entries (want %d) and counted %d more as repeated: %s",
			lists, len(after.Entries), audit.MaxConnectionsAMinute, after.Repeated-before.Repeated, body)
	}
	for _, e := range after.Entries {
		if e.UserID != u.ID || e.Reason != audit.ReasonConnected || !strings.HasPrefix(e.ClientName, "renamed-client-") {
			t.Fatalf("a connection entry of someone or something else: %+v", e)
		}
	}
}

func TestReadingOnesOwnAuditEntriesCountsAgainstTheRateAndAnswersOnlyOnesOwn(t *testing.T) {
	u, other := newPerson(t, "auditreader"), newPerson(t, "auditother")
	connect(t, mm.URL, u.Token)
	connect(t, mm.URL, other.Token)
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	waitAudit(t, adminToken, u.ID, 1)
	waitAudit(t, adminToken, other.ID, 1)
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.MinMaxCallsPerMinute}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
			t.Errorf("restore the calls a minute: %v", err)
		}
	})

	for i := 1; i <= config.MinMaxCallsPerMinute; i++ {
		code, mine, body := auditPage(t, u.Token, audit.MinePath, nil)
		if code != http.StatusOK || len(mine.Entries) == 0 {
			t.Fatalf("read %d of %d of one's own entries: %d %s", i, config.MinMaxCallsPerMinute, code, body)
		}
		for _, e := range mine.Entries {
			if e.UserID != u.ID {
				t.Fatalf("the person read %s's entry: %+v", e.UserID, e)
			}
		}
	}
	resp, got := httpDo(t, http.MethodGet, auditURL(audit.MinePath, nil), u.Token, nil)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || retry < 1 || retry > 60 || !strings.Contains(string(got), "try again in") {
		t.Fatalf("the read past the rate: %d Retry-After %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), got)
	}
	// The other person and the admin are not slowed by this one.
	if code, mine, body := auditPage(t, other.Token, audit.MinePath, nil); code != http.StatusOK || len(mine.Entries) == 0 || mine.Entries[0].UserID != other.ID {
		t.Fatalf("another person's own entries: %d %s", code, body)
	}
	if code, _, body := auditPage(t, adminToken, audit.APIPath, url.Values{"user": {u.ID}}); code != http.StatusOK {
		t.Fatalf("the admin past the person's rate: %d %s", code, body)
	}
}
