package connect

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
)

const testURL = "https://chat.example.com/plugins/mcp-server/mcp"

// vscodeServer is the server entry of a VS Code mcp.json, as VS Code reads it.
type vscodeServer struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

func TestWithOAuthEverySetupCarriesTheURLAndNoHeader(t *testing.T) {
	s := SetupFor(testURL, "", true)
	if s.ClaudeCode != "claude mcp add --transport http mattermost "+testURL {
		t.Errorf("claude code: %s", s.ClaudeCode)
	}
	var cursor struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(s.Cursor), &cursor); err != nil || cursor.MCPServers["mattermost"]["url"] != testURL || cursor.MCPServers["mattermost"]["headers"] != nil {
		t.Errorf("cursor: %v %s", err, s.Cursor)
	}
	var vscode struct {
		Servers map[string]vscodeServer `json:"servers"`
		Inputs  []any                   `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(s.VSCode), &vscode); err != nil || vscode.Servers["mattermost"].Type != "http" || vscode.Servers["mattermost"].URL != testURL || vscode.Servers["mattermost"].Headers != nil || vscode.Inputs != nil {
		t.Errorf("vscode: %v %s", err, s.VSCode)
	}
}

func TestATokenIsSentAsABearerHeaderByEverySetupAndLink(t *testing.T) {
	const token = "abc123tok"
	s := SetupFor(testURL, token, false)
	if !strings.HasSuffix(s.ClaudeCode, ` --header 'Authorization: Bearer abc123tok'`) {
		t.Errorf("claude code: %s", s.ClaudeCode)
	}
	var vscode struct {
		Servers map[string]vscodeServer `json:"servers"`
	}
	if err := json.Unmarshal([]byte(s.VSCode), &vscode); err != nil || vscode.Servers["mattermost"].Headers["Authorization"] != "Bearer "+token {
		t.Errorf("vscode: %v %s", err, s.VSCode)
	}

	// The VS Code link is vscode:mcp/install?<encodeURIComponent(JSON)>.
	raw, ok := strings.CutPrefix(s.VSCodeLink, "vscode:mcp/install?")
	if !ok || strings.ContainsAny(raw, " +{\"") {
		t.Fatalf("vscode link: %s", s.VSCodeLink)
	}
	decoded, err := url.PathUnescape(raw)
	var link struct {
		vscodeServer
		Name string `json:"name"`
	}
	if err != nil || json.Unmarshal([]byte(decoded), &link) != nil || link.Name != "mattermost" || link.URL != testURL || link.Headers["Authorization"] != "Bearer "+token {
		t.Errorf("vscode link decodes to %s (%v)", decoded, err)
	}

	// The Cursor link's config is the server entry in base64.
	u, err := url.Parse(s.CursorLink)
	if err != nil || u.Scheme != "cursor" || u.Host != "anysphere.cursor-deeplink" || u.Path != "/mcp/install" || u.Query().Get("name") != "mattermost" {
		t.Fatalf("cursor link: %s (%v)", s.CursorLink, err)
	}
	cfg, err := base64.StdEncoding.DecodeString(u.Query().Get("config"))
	var entry struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	if err != nil || json.Unmarshal(cfg, &entry) != nil || entry.URL != testURL || entry.Headers["Authorization"] != "Bearer "+token {
		t.Errorf("cursor config %s (%v)", cfg, err)
	}
}

func TestWithoutOAuthOrTokenVSCodeAsksForTheTokenAndCursorGetsNoLink(t *testing.T) {
	s := SetupFor(testURL, "", false)
	if s.CursorLink != "" {
		t.Errorf("a Cursor link that would install a placeholder: %s", s.CursorLink)
	}
	if !strings.Contains(s.ClaudeCode, TokenPlaceholder) || !strings.Contains(s.Cursor, TokenPlaceholder) {
		t.Errorf("no placeholder to replace: %s / %s", s.ClaudeCode, s.Cursor)
	}
	var vscode struct {
		Servers map[string]vscodeServer `json:"servers"`
		Inputs  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Password bool   `json:"password"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(s.VSCode), &vscode); err != nil || len(vscode.Inputs) != 1 || !vscode.Inputs[0].Password ||
		vscode.Servers["mattermost"].Headers["Authorization"] != "Bearer ${input:"+vscode.Inputs[0].ID+"}" {
		t.Errorf("vscode: %v %s", err, s.VSCode)
	}
}

func TestAURLWithShellCharactersIsQuotedForTheShell(t *testing.T) {
	s := SetupFor("https://chat.example.com/a b/plugins/mcp-server/mcp?x=it's", "", true)
	if !strings.Contains(s.ClaudeCode, `'https://chat.example.com/a b/plugins/mcp-server/mcp?x=it'\''s'`) {
		t.Errorf("claude code: %s", s.ClaudeCode)
	}
}

// fakeListSize stands for the plugin's measure of tools/list: a size per
// preset query that no two presets share.
func fakeListSize(query string) (int, error) {
	return map[string]int{"": 54_268, "read_only=true": 31_000, "toolsets=light": 11_500}[query], nil
}

func TestEveryPresetHasItsURLItsSizeAndSetupsAndLinksThatCarryTheURL(t *testing.T) {
	s, _, _, _ := newTestService(t)
	o, err := s.Overview(alice)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.MakeToken(alice)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, url string
		bytes   int
	}{
		{PresetEverything, testURL, 54_268},
		{PresetReadOnly, testURL + "?read_only=true", 31_000},
		{PresetLight, testURL + "?toolsets=light", 11_500},
	}
	for token, presets := range map[string][]Preset{"": o.Presets, tok.Token: tok.Presets} {
		if len(presets) != len(want) {
			t.Fatalf("%d presets: %+v", len(presets), presets)
		}
		for i, w := range want {
			p := presets[i]
			if p.ID != w.id || p.URL != w.url || p.Bytes != w.bytes || p.Name == "" || p.Text == "" {
				t.Errorf("preset %d: %+v, want %s at %s of %d bytes", i, p, w.id, w.url, w.bytes)
			}
			if p.Setup != SetupFor(w.url, token, false) {
				t.Errorf("preset %s: its setup is not the setup of its URL: %+v", p.ID, p.Setup)
			}
			if !strings.Contains(p.Setup.ClaudeCode, shellQuote(w.url)) || !strings.Contains(p.Setup.Cursor, `"`+w.url+`"`) || !strings.Contains(p.Setup.VSCode, `"`+w.url+`"`) {
				t.Errorf("preset %s: a snippet misses its URL: %+v", p.ID, p.Setup)
			}
		}
	}
	if o.Setup != o.Presets[0].Setup || tok.Setup != tok.Presets[0].Setup {
		t.Error("the setup shown first is not the everything preset's")
	}
}

func TestAPresetThatCannotBeMeasuredFailsTheOverviewAndMakesNoToken(t *testing.T) {
	s, mm, _, _ := newTestService(t)
	s.opts.ListSize = func(string) (int, error) { return 0, errors.New("no catalogue") }
	if _, err := s.Overview(alice); err == nil {
		t.Error("an overview without the presets' sizes")
	}
	if _, err := s.MakeToken(alice); err == nil || mm.made != 0 {
		t.Errorf("a token made (%v) while its presets could not be measured: %v", mm.made, err)
	}
}
