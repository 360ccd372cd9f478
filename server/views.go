package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
		"read_thread", bundleView(api, "thread"))
}

// fileView is read_file's view.
func fileView(api plugin.API) resources.Template {
	return resources.View(resources.FileView, "file_view", "Mattermost file",
		"The view of read_file for clients that show MCP Apps: the image, a PDF's pages, the text window, or the archive's entries.",
		"read_file", bundleView(api, "file"))
}

// pendingView is the view of a write waiting for the person.
func pendingView(api plugin.API) resources.Template {
	return resources.View(resources.PendingView, "pending_view", "A write waiting for you",
		"The view of a write that waits (create_post, get_pending) for clients that show MCP Apps: where it goes, the message, its files, until when, and the outcome.",
		"get_pending", bundleView(api, "pending"))
}

// uploadView is request_file's view: the person gives the file in the
// chat, and the view sends it to the request's drop URL on this
// Mattermost, the one origin it may connect to.
func uploadView(api plugin.API, siteURL func() string) resources.Template {
	return resources.ConnectingView(resources.UploadView, "upload_view", "Give a file",
		"The view of request_file for clients that show MCP Apps: what the assistant asked for, a drop zone and file picker, progress, and the file's sha256 once given.",
		"request_file", bundleView(api, "upload"), func() string { return siteOrigin(siteURL()) })
}

// siteOrigin is the origin of Mattermost's Site URL as a CSP names it;
// empty when the Site URL is not a plain http(s) URL.
func siteOrigin(siteURL string) string {
	u, err := url.Parse(siteURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// bundleView reads a view's script and styles from the bundle once,
// bounded.
func bundleView(api plugin.API, name string) func() (resources.ViewFiles, error) {
	return sync.OnceValues(func() (resources.ViewFiles, error) {
		dir, err := api.GetBundlePath()
		if err != nil {
			return resources.ViewFiles{}, err
		}
		dir = filepath.Join(dir, "webapp", "dist", "views")
		js, err := readBounded(filepath.Join(dir, name+".js"), resources.MaxViewScriptBytes)
		if err != nil {
			return resources.ViewFiles{}, err
		}
		css, err := readBounded(filepath.Join(dir, name+".css"), resources.MaxViewStyleBytes)
		return resources.ViewFiles{Script: js, Style: css}, err
	})
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err == nil && len(b) > limit {
		err = fmt.Errorf("%s is over %d bytes", filepath.Base(path), limit)
	}
	return b, err
}
