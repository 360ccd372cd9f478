package connect

import (
	"strings"
	"testing"
)

func TestAChatAppIsBlockedOnlyByWhatStopsItAndTheDialogSaysWhatTheAdminChanges(t *testing.T) {
	cases := []struct {
		url   string
		oauth bool
		want  []string // one line of Blocked each, by a word it holds
	}{
		{"https://chat.example.com/plugins/mcp-server/mcp", true, nil},
		{"https://chat.example.com/plugins/mcp-server/mcp", false, []string{"Dynamic Client Registration"}},
		{"http://localhost:8065/plugins/mcp-server/mcp", true, []string{"localhost"}},
		{"https://10.0.0.5/plugins/mcp-server/mcp", true, []string{"10.0.0.5"}},
		{"https://mattermost.corp.internal/plugins/mcp-server/mcp", true, []string{"not reachable"}},
		{"http://chat.example.com/plugins/mcp-server/mcp", false, []string{"OAuth", "not https"}},
		{"/plugins/mcp-server/mcp", true, []string{"Site URL is not set"}},
	}
	for _, tc := range cases {
		hosts := HostsFor(tc.url, tc.oauth, "the OAuth 2.0 Service Provider is off")
		if len(hosts) != 2 || hosts[0].ID != "chatgpt" || hosts[1].ID != "claude" {
			t.Fatalf("hosts %+v, want ChatGPT then Claude", hosts)
		}
		for _, h := range hosts {
			if len(h.Steps) < 3 || !strings.Contains(strings.Join(h.Steps, " "), "MCP URL") {
				t.Errorf("%s's steps do not say where the URL goes: %v", h.Name, h.Steps)
			}
			if len(h.Blocked) != len(tc.want) {
				t.Errorf("%s at %s (oauth %v): blocked %q, want %d reasons", h.Name, tc.url, tc.oauth, h.Blocked, len(tc.want))
				continue
			}
			for i, w := range tc.want {
				if !strings.Contains(h.Blocked[i], w) || !strings.Contains(h.Blocked[i], "admin") {
					t.Errorf("%s at %s: %q does not say %q and what the admin changes", h.Name, tc.url, h.Blocked[i], w)
				}
			}
		}
	}
	if s := HostsFor("https://chat.example.com/plugins/mcp-server/mcp", true, "")[0]; !strings.Contains(strings.Join(s.Steps, " "), "search and fetch") {
		t.Errorf("ChatGPT's steps do not say how its research uses this server: %v", s.Steps)
	}
}
