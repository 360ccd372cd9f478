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

// The MCP Apps views. Their scripts are built with the webapp
// (webapp/dist/views/<name>.js) and shipped beside it in the bundle rather
// than embedded, so the server builds and tests without them; each is read
// once, bounded.

// threadView is the view of read_thread, read_channel and search_posts.
func threadView(api plugin.API) resources.Template {
	return resources.View(resources.ThreadView, "thread_view", "Mattermost posts",
		"The view of read_thread, read_channel and search_posts for clients that show MCP Apps: posts as Mattermost shows them.",
		"read_thread", bundleScript(api, "thread.js"))
}

// fileView is read_file's view.
func fileView(api plugin.API) resources.Template {
	return resources.View(resources.FileView, "file_view", "Mattermost file",
		"The view of read_file for clients that show MCP Apps: the image, the text or PDF window, or the archive's entries.",
		"read_file", bundleScript(api, "file.js"))
}

// pendingView is the view of a write waiting for the person.
func pendingView(api plugin.API) resources.Template {
	return resources.View(resources.PendingView, "pending_view", "A write waiting for you",
		"The view of a write that waits (create_post, get_pending) for clients that show MCP Apps: where it goes, the message, its files, until when, and the outcome.",
		"get_pending", bundleScript(api, "pending.js"))
}

// bundleScript reads a view's script from the bundle once, bounded.
func bundleScript(api plugin.API, name string) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) {
		dir, err := api.GetBundlePath()
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(dir, "webapp", "dist", "views", name))
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
}
