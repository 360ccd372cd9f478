package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mattermost/mattermost/server/public/plugin"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// fileView is read_file's view, its script (webapp/dist/views/file.js)
// read once from the bundle like the thread view's.
func fileView(api plugin.API) resources.Template {
	script := sync.OnceValues(func() ([]byte, error) {
		dir, err := api.GetBundlePath()
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(dir, "webapp", "dist", "views", "file.js"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		js, err := io.ReadAll(io.LimitReader(f, resources.MaxViewScriptBytes+1))
		if err == nil && len(js) > resources.MaxViewScriptBytes {
			err = fmt.Errorf("the script is over %d bytes", resources.MaxViewScriptBytes)
		}
		return js, err
	})
	return resources.View(resources.FileView, "file_view", "Mattermost file",
		"The view of read_file for clients that show MCP Apps: the image, the text or PDF window, or the archive's entries.",
		"read_file", script)
}
