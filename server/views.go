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

// threadView is the thread view, its script read once from the bundle
// (webapp/dist/views/thread.js, built with the webapp): shipped beside the
// webapp rather than embedded, so the server builds and tests without it.
func threadView(api plugin.API) resources.Template {
	script := sync.OnceValues(func() ([]byte, error) {
		dir, err := api.GetBundlePath()
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(dir, "webapp", "dist", "views", "thread.js"))
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
	return resources.View(resources.ThreadView, "thread_view", "Mattermost posts",
		"The view of read_thread, read_channel and search_posts for clients that show MCP Apps: posts as Mattermost shows them.",
		"read_thread", script)
}
