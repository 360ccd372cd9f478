package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/plugin/plugintest"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// bundleWith is a plugin API whose bundle holds the given view files.
func bundleWith(t *testing.T, files map[string][]byte) *plugintest.API {
	t.Helper()
	dir := t.TempDir()
	views := filepath.Join(dir, "webapp", "dist", "views")
	if err := os.MkdirAll(views, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(views, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	api := &plugintest.API{}
	api.On("GetBundlePath").Return(dir, nil)
	return api
}

func TestAViewIsReadFromTheBundleAsItsScriptAndItsStyles(t *testing.T) {
	api := bundleWith(t, map[string][]byte{"file.js": []byte("run()"), "file.css": []byte("body{margin:0}")})
	got, err := bundleView(api, "file")()
	if err != nil || string(got.Script) != "run()" || string(got.Style) != "body{margin:0}" {
		t.Fatalf("read %q %q, %v", got.Script, got.Style, err)
	}
}

func TestAViewWithoutItsStylesOrWithStylesOverTheCapIsNotServed(t *testing.T) {
	if _, err := bundleView(bundleWith(t, map[string][]byte{"file.js": []byte("run()")}), "file")(); err == nil {
		t.Error("a view without its styles was read")
	}
	big := []byte(strings.Repeat("a", resources.MaxViewStyleBytes+1))
	_, err := bundleView(bundleWith(t, map[string][]byte{"file.js": []byte("run()"), "file.css": big}), "file")()
	if err == nil || !strings.Contains(err.Error(), "file.css is over") {
		t.Errorf("styles over the cap: %v", err)
	}
}
