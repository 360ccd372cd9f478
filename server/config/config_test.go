package config

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestParseReadsWhatTheSystemConsoleSaves(t *testing.T) {
	cases := []struct {
		name     string
		settings map[string]any
		want     Configuration
	}{
		{"nothing saved yet means read-only defaults", nil, Defaults()},
		{"lower-cased keys as Mattermost stores them", map[string]any{"allowwrites": true, "writeconfirmation": "mattermost", "maxfilesizemib": float64(10)},
			with(func(c *Configuration) {
				c.AllowWrites, c.WriteConfirmation, c.MaxFileSizeMiB = true, ConfirmMattermost, 10
			})},
		{"keys as written in plugin.json", map[string]any{"AllowWrites": "true", "WriteConfirmation": "client_approval", "MaxFileSizeMiB": "7", "WorkspaceQuotaMiB": "300", "MaxWorkspaceFileMiB": float64(20), "NotifyByDM": false, "ConversionMemoryMiB": "512"},
			with(func(c *Configuration) {
				c.AllowWrites, c.WriteConfirmation, c.MaxFileSizeMiB, c.WorkspaceQuotaMiB = true, ConfirmClientApproval, 7, 300
				c.MaxWorkspaceFileMiB, c.NotifyByDM, c.ConversionMemoryMiB = 20, false, 512
			})},
		{"governance as the System Console saves it", map[string]any{"toolsetposting": false, "ToolsetFiles": "false", "toolsetpeople": nil,
			"excludedtools": "read_file, Search_Posts\nread_file", "connectaccess": "teams", "connectteams": "Sales;eng", "allowguests": false,
			"maxcallsperminute": float64(60), "auditretentiondays": "30"},
			with(func(c *Configuration) {
				c.Toolsets = AllToolsets &^ (ToolsetPosting | ToolsetFiles)
				c.ExcludedTools, c.ConnectAccess, c.ConnectTeams, c.AllowGuests = "read_file search_posts", ConnectTeams, "sales eng", false
				c.MaxCallsPerMinute, c.AuditRetentionDays = 60, 30
			})},
		{"governance not saved yet since an upgrade keeps everything open as before", map[string]any{"connectaccess": nil, "allowguests": nil,
			"maxcallsperminute": nil, "auditretentiondays": nil, "toolsetownview": nil}, Defaults()},
		{"the memory for reading files as the System Console saves it", map[string]any{"conversionmemorymib": float64(192)},
			withConversionMemory(Defaults(), 192)},
		{"a memory setting not saved yet keeps its default", map[string]any{"conversionmemorymib": nil}, Defaults()},
		{"a direct message setting not saved yet stays on", map[string]any{"notifybydm": nil}, Defaults()},
		{"unknown keys are ignored", map[string]any{"legacy": 3}, Defaults()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.settings)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func with(change func(*Configuration)) Configuration {
	c := Defaults()
	change(&c)
	return c
}

func withConversionMemory(c Configuration, mib int) Configuration {
	c.ConversionMemoryMiB = mib
	return c
}

func TestTheMemoryForReadingFilesDefaultsTo256MiBWithinItsBounds(t *testing.T) {
	c := Defaults()
	if c.ConversionMemoryMiB != 256 || c.ConversionMemoryBytes() != 256<<20 {
		t.Fatalf("default = %d MiB (%d bytes), want 256 MiB", c.ConversionMemoryMiB, c.ConversionMemoryBytes())
	}
	for _, mib := range []int{MinConversionMemoryMiB, LimitConversionMemoryMiB} {
		if err := withConversionMemory(c, mib).Validate(); err != nil {
			t.Errorf("%d MiB is refused: %v", mib, err)
		}
	}
}

func TestAnInvalidSettingIsRefusedNamingTheSetting(t *testing.T) {
	cases := []struct {
		settings map[string]any
		mention  string
	}{
		{map[string]any{"maxfilesizemib": float64(0)}, "Largest file the tools read"},
		{map[string]any{"maxfilesizemib": float64(4096)}, "from 1 to 1024"},
		{map[string]any{"maxfilesizemib": 2.5}, "not a whole number"},
		{map[string]any{"maxfilesizemib": "lots"}, "not a whole number"},
		{map[string]any{"writeconfirmation": "nobody"}, "Who confirms a write"},
		{map[string]any{"allowwrites": "perhaps"}, "not true or false"},
		{map[string]any{"workspacequotamib": float64(0)}, "Workspace quota per person"},
		{map[string]any{"workspacequotamib": float64(20000)}, "from 1 to 10240"},
		{map[string]any{"maxworkspacefilemib": float64(2000)}, "Largest workspace file"},
		{map[string]any{"maxworkspacefilemib": "big"}, "not a whole number"},
		{map[string]any{"workspacequotamib": float64(10), "maxworkspacefilemib": float64(50)}, "cannot be more than"},
		{map[string]any{"conversionmemorymib": float64(MinConversionMemoryMiB - 1)}, "Memory for reading files"},
		{map[string]any{"conversionmemorymib": float64(LimitConversionMemoryMiB + 1)}, "from 128 to 16384"},
		{map[string]any{"conversionmemorymib": "plenty"}, "not a whole number"},
		{map[string]any{"connectaccess": "friends"}, "Who may connect"},
		{map[string]any{"connectaccess": "teams"}, "lists none"},
		{map[string]any{"connectaccess": "groups", "connectteams": "sales"}, "Groups whose members may connect"},
		{map[string]any{"connectteams": strings.Repeat("t,", MaxConnectListed+1)}, "at most 100"},
		{map[string]any{"connectgroups": strings.Repeat("g", 65)}, "longer than any"},
		{map[string]any{"excludedtools": strings.Repeat("x ", MaxExcludedTools+1)}, "Tools to leave out"},
		{map[string]any{"toolsetposting": "sometimes"}, "not true or false"},
		{map[string]any{"maxcallsperminute": float64(MinMaxCallsPerMinute - 1)}, "Tool calls a minute per person"},
		{map[string]any{"maxcallsperminute": float64(LimitMaxCallsPerMinute + 1)}, "from 10 to 6000"},
		{map[string]any{"auditretentiondays": float64(0)}, "Keep the audit trail (days)"},
		{map[string]any{"auditretentiondays": float64(LimitAuditRetentionDays + 1)}, "from 1 to 3650"},
	}
	for _, tc := range cases {
		_, err := Parse(tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Parse(%v) = %v, want an error mentioning %q", tc.settings, err, tc.mention)
		}
	}
}

func TestTheStoreHandsOutCopiesSoReadersNeverSeeAHalfUpdate(t *testing.T) {
	s := NewStore()
	got := s.Get()
	got.AllowWrites = true
	if s.Get().AllowWrites {
		t.Fatal("changing a copy changed the stored configuration")
	}
	s.Set(Configuration{AllowWrites: true, WriteConfirmation: ConfirmMattermost, MaxFileSizeMiB: 1})
	if !s.Get().AllowWrites {
		t.Fatal("Set did not replace the configuration")
	}
}

func TestTheDefaultsInPluginJSONAreTheDefaultsOfTheSettings(t *testing.T) {
	raw, err := os.ReadFile("../../plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		SettingsSchema struct {
			Settings []struct {
				Key     string `json:"key"`
				Default any    `json:"default"`
			} `json:"settings"`
		} `json:"settings_schema"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	saved := map[string]any{}
	for _, s := range manifest.SettingsSchema.Settings {
		saved[s.Key] = s.Default
	}
	if _, ok := saved["ConversionMemoryMiB"]; !ok {
		t.Fatal("plugin.json has no ConversionMemoryMiB setting")
	}
	got, err := Parse(saved)
	if err != nil {
		t.Fatalf("the defaults of plugin.json are refused: %v", err)
	}
	if got != Defaults() {
		t.Fatalf("plugin.json's defaults give %+v, the code's are %+v", got, Defaults())
	}
}

func TestAllowedOriginsAreReadNormalizedFromCommasSpacesAndLines(t *testing.T) {
	c, err := Parse(map[string]any{"allowedorigins": "https://App.Example.com:443, http://localhost:6274\nhttps://[::1]:8443/\r\nhttps://app.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if c.AllowedOrigins != "https://app.example.com http://localhost:6274 https://[::1]:8443" {
		t.Fatalf("origins %q", c.AllowedOrigins)
	}
	for origin, want := range map[string]bool{"https://app.example.com": true, "http://localhost:6274": true, "https://[::1]:8443": true,
		"http://app.example.com": false, "https://evil.example": false, "": false} {
		if got := c.AllowsOrigin(origin); got != want {
			t.Errorf("AllowsOrigin(%q) = %v", origin, got)
		}
	}
	if c, err := Parse(map[string]any{"allowedorigins": nil}); err != nil || c.AllowedOrigins != "" {
		t.Fatalf("no list: %q %v", c.AllowedOrigins, err)
	}
}

func TestAnAllowedOriginThatIsNoOriginIsRefusedNamingTheFormItTakes(t *testing.T) {
	for _, bad := range []string{"app.example.com", "https://app.example.com/mcp", "ftp://files.example.com", "https://*.example.com",
		"https://user@app.example.com", "https://app.example.com?x=1", "*", "null"} {
		_, err := Parse(map[string]any{"AllowedOrigins": "https://ok.example.com, " + bad})
		if err == nil || !strings.Contains(err.Error(), "Allowed origins for browser-based MCP clients") || !strings.Contains(err.Error(), "scheme://host") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	many := strings.Repeat("https://a.example.com,", MaxAllowedOrigins+1)
	if _, err := Parse(map[string]any{"AllowedOrigins": many}); err == nil || !strings.Contains(err.Error(), "at most 50") {
		t.Errorf("too many origins: %v", err)
	}
}
