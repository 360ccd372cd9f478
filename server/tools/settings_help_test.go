package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

var (
	manifestFile = filepath.Join("..", "..", "plugin.json")
	readmeFile   = filepath.Join("..", "..", "README.md")
)

// The write settings as plugin.json keys them and as the README's
// settings table names them.
const (
	allowKey     = "AllowWrites"
	confirmKey   = "WriteConfirmation"
	allowTitle   = "Allow tools that change Mattermost"
	confirmTitle = "Who confirms a write"
)

// TestTheWriteSettingsSayEveryWriteTheCatalogueOffers holds the System
// Console's help texts and the README's rows of the two write settings to
// what the catalogue's tools that write do (go test ./server/tools -run
// WriteSettings -update rewrites them), so an admin deciding on the
// switch is told all of it.
func TestTheWriteSettingsSayEveryWriteTheCatalogueOffers(t *testing.T) {
	all := All(Deps{Config: config.Defaults})
	said := catalogue.DescribeWrites(all)
	manifest, err := os.ReadFile(manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	wantManifest, err := setHelpText(manifest, allowKey, said.AllowHelp)
	if err == nil {
		wantManifest, err = setHelpText(wantManifest, confirmKey, said.ConfirmHelp)
	}
	if err != nil {
		t.Fatal(err)
	}
	wantReadme, err := setSettingRow(readme, allowTitle, said.AllowRow)
	if err == nil {
		wantReadme, err = setSettingRow(wantReadme, confirmTitle, said.ConfirmRow)
	}
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		for path, text := range map[string][]byte{manifestFile: wantManifest, readmeFile: wantReadme} {
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		manifest, readme = wantManifest, wantReadme
	}
	if !bytes.Equal(manifest, wantManifest) || !bytes.Equal(readme, wantReadme) {
		t.Errorf("the help texts of %q and %q in plugin.json, or their rows in README.md, are not what the catalogue's writes say.\n"+
			"Refresh them with: go test ./server/tools -run WriteSettings -update, and review the diff.\nplugin.json %s\nREADME.md %s",
			allowTitle, confirmTitle, firstDifference(manifest, wantManifest), firstDifference(readme, wantReadme))
	}

	// Every toolset that writes is named in both texts an admin reads, and
	// each whose writes others see in what the person confirms.
	var m struct {
		SettingsSchema struct {
			Settings []struct {
				Key      string `json:"key"`
				HelpText string `json:"help_text"`
			} `json:"settings"`
		} `json:"settings_schema"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	help := map[string]string{}
	for _, s := range m.SettingsSchema.Settings {
		help[s.Key] = s.HelpText
	}
	said = catalogue.WriteSettings{AllowHelp: help[allowKey], ConfirmHelp: help[confirmKey],
		AllowRow: settingRow(readme, allowTitle), ConfirmRow: settingRow(readme, confirmTitle)}
	writes, confirmed := map[config.Toolset]string{}, map[config.Toolset]string{}
	for _, tool := range all {
		if tool.Writes() {
			writes[tool.Toolset] = tool.Name
		}
		if tool.Effect == catalogue.ChangesMattermost {
			confirmed[tool.Toolset] = tool.Name
		}
	}
	for set, name := range writes {
		for where, text := range map[string]string{"the System Console": said.AllowHelp, "the README": said.AllowRow} {
			if !strings.Contains(text, set.DisplayName()+": ") {
				t.Errorf("%s does not say that %q allows the writes of toolset %q, such as %s", where, allowTitle, set.DisplayName(), name)
			}
		}
	}
	for set, name := range confirmed {
		for where, text := range map[string]string{"the System Console": said.ConfirmHelp, "the README": said.ConfirmRow} {
			if !strings.Contains(text, set.DisplayName()) {
				t.Errorf("%s's %q does not name %q, whose %s the person confirms", where, confirmTitle, set.DisplayName(), name)
			}
		}
	}
}

// settingRow is the line of the README's settings table for title.
func settingRow(readme []byte, title string) string {
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "| "+title+" |") {
			return line
		}
	}
	return ""
}

// setHelpText is plugin.json with the help text of the setting key
// replaced by text, every other byte as it was.
func setHelpText(manifest []byte, key, text string) ([]byte, error) {
	at := bytes.Index(manifest, []byte(`"key": "`+key+`"`))
	if at < 0 {
		return nil, fmt.Errorf("plugin.json has no setting %s", key)
	}
	field := regexp.MustCompile(`"help_text": ("(?:[^"\\]|\\.)*")`)
	loc := field.FindSubmatchIndex(manifest[at:])
	if loc == nil {
		return nil, fmt.Errorf("plugin.json's setting %s has no help_text", key)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(text); err != nil {
		return nil, err
	}
	start, end := at+loc[2], at+loc[3]
	return slicesConcat(manifest[:start], bytes.TrimRight(b.Bytes(), "\n"), manifest[end:]), nil
}

// setSettingRow is the README with the description cell of the settings
// table's row of title replaced by text.
func setSettingRow(readme []byte, title, text string) ([]byte, error) {
	row := regexp.MustCompile(`(?m)^(\| ` + regexp.QuoteMeta(title) + ` \| [^|\n]* \| )[^\n]*( \|)$`)
	loc := row.FindSubmatchIndex(readme)
	if loc == nil {
		return nil, fmt.Errorf("README.md's settings table has no row %q", title)
	}
	return slicesConcat(readme[:loc[3]], []byte(text), readme[loc[4]:]), nil
}

func slicesConcat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
