package e2e

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// hostRegistry stands in for the Mattermost web app around the plugin: it
// records what the plugin registers, as Mattermost's registry does. The
// harness builds Mattermost without its web app, so the real bundle is run
// in a signed-in page of the real server with React from the webapp's own
// dependencies, and talks to the real plugin with the real cookies.
// Mattermost's web app provides React to plugins as a global, as here.
const hostRegistry = `
window.__host = {roots: [], ws: {}, sidebar: null, buttons: [], appBar: [], slashHooks: []};
window.registerPlugin = function(id, plugin) {
	window.__host.id = id;
	plugin.initialize({
		registerRootComponent: function(c) { window.__host.roots.push(c); return 'root'; },
		registerWebSocketEventHandler: function(e, h) { window.__host.ws[e] = h; },
		registerRightHandSidebarComponent: function(c) { window.__host.sidebar = c;
			return {id: 'rhs', showRHSPlugin: {type: 'show'}, hideRHSPlugin: {type: 'hide'}, toggleRHSPlugin: {type: 'toggle'}}; },
		registerChannelHeaderButtonAction: function(icon, action, text) { window.__host.buttons.push({text: text, action: action}); return 'button'; },
		registerAppBarComponent: function(icon, action, text) { window.__host.appBar.push({text: text, action: action}); return 'appbar'; },
		registerSlashCommandWillBePostedHook: function(hook) { window.__host.slashHooks.push(hook); return 'hook'; },
	}, {dispatch: function() {}, getState: function() { return {}; }});
};
`

const mountRoots = `
(function() {
	var el = document.createElement('div');
	el.id = 'host-root';
	document.body.appendChild(el);
	var kids = window.__host.roots.map(function(C, i) { return React.createElement(C, {key: i}); });
	ReactDOM.createRoot(el).render(React.createElement(React.Fragment, null, kids));
	return window.__host.roots.length;
})()
`

func readWebappFile(t *testing.T, rel string) string {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "webapp", rel))
	if err != nil {
		t.Fatalf("%s (make test builds the webapp before the e2e tests): %v", rel, err)
	}
	return string(b)
}

// bundledWebapp is the webapp script inside the bundle the tests installed.
func bundledWebapp(t *testing.T) string {
	t.Helper()
	f, err := os.Open(os.Getenv("MCP_PLUGIN_BUNDLE"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no webapp/dist/main.js in the bundle: %v", err)
		}
		if h.Name == "mcp-server/webapp/dist/main.js" {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
}

// webappAs is a signed-in page of the server running the plugin's webapp
// inside the stand-in host, its root components mounted.
func webappAs(t *testing.T, u harness.User) context.Context {
	t.Helper()
	tab := chromeAs(t, u)
	for _, script := range []string{
		readWebappFile(t, "node_modules/react/umd/react.production.min.js"),
		readWebappFile(t, "node_modules/react-dom/umd/react-dom.production.min.js"),
		hostRegistry,
		bundledWebapp(t),
	} {
		evalJS[any](t, tab, script+"\n;true")
	}
	// The confirmation modal and the Connect dialog.
	if n := evalJS[int](t, tab, mountRoots); n != 2 {
		t.Fatalf("the plugin registered %d root components", n)
	}
	return tab
}

// clickButton clicks the button with this text inside the element matched
// by scope, as a person's click does (a DOM click event).
func clickButton(t *testing.T, tab context.Context, scope, label string) {
	t.Helper()
	js := fmt.Sprintf(`(function() { var b = Array.from(document.querySelectorAll(%q)).find(function(b) { return b.textContent.trim() === %q; });
		if (!b) { return false; } b.click(); return true; })()`, scope+" button", label)
	if !evalJS[bool](t, tab, js) {
		t.Fatalf("no %q button in %s", label, scope)
	}
}

func TestTheWebappModalOpensOnTheEventAndAcceptsARealPendingPost(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "modal")
	note := "first line\nsecond line\n"
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker + " **from the modal**",
		"files": []map[string]any{{"name": marker + ".txt", "content": note}}})
	id := waitPending(t, alice, marker)

	tab := webappAs(t, alice)
	if id := evalJS[string](t, tab, `window.__host.id`); id != harness.PluginID {
		t.Fatalf("registered as %q", id)
	}
	if evalJS[int](t, tab, `window.__host.buttons.length`) != 2 || !evalJS[bool](t, tab, `!!window.__host.sidebar`) {
		t.Fatal("no channel header button or sidebar was registered")
	}

	// Mattermost delivers the plugin's websocket event to its handler.
	evalJS[any](t, tab, fmt.Sprintf(`window.__host.ws['custom_mcp-server_pending_confirmation']({event: 'custom_mcp-server_pending_confirmation',
		data: {confirmations: [{id: %q, title: 'From the event'}]}}); true`, id))
	dialog := pollJS[string](t, tab, "the modal shows the pending post",
		fmt.Sprintf(`(function() { var d = document.querySelector('[role=dialog]'); return d && d.textContent.indexOf(%q) >= 0 && d.textContent.indexOf('second line') >= 0 ? d.textContent : ''; })()`, marker+".txt"))
	for _, want := range []string{marker, "~town-square", "Accept", "Decline"} {
		if !strings.Contains(dialog, want) {
			t.Errorf("the modal does not show %q: %s", want, dialog)
		}
	}

	clickButton(t, tab, "[role=dialog]", "Accept")
	pollJS[bool](t, tab, "the modal shows the posted outcome",
		`!!Array.from(document.querySelectorAll('[role=dialog] a')).find(function(a) { return a.textContent === 'View the post'; })`)

	res, out := waitTool(t, done)
	if res.IsError || out.State != approval.StateDone {
		t.Fatalf("create_post answered %s", text(res))
	}
	post, files := postedFiles(t, out.PostID)
	if !strings.HasPrefix(post.Message, marker) || sum(files[marker+".txt"]) != sum([]byte(note)) {
		t.Fatalf("the post read back: %q with %d files", post.Message, len(files))
	}
}

func TestTheWebappSidebarListsAPendingPostAndItsModalDeclinesIt(t *testing.T) {
	allowWrites(t, config.ConfirmMattermost)
	alice := mm.Users[0]
	ch := townSquare(t)
	marker := uniq(t, "sidebar")
	done := postAsync(t, "create_post", map[string]any{"channel": ch.Id, "message": marker,
		"files": []map[string]any{{"name": marker + ".txt", "content": "never sent\n"}}})
	waitPending(t, alice, marker)

	tab := webappAs(t, alice)
	evalJS[any](t, tab, `(function() { var el = document.createElement('div'); el.id = 'sidebar'; document.body.appendChild(el);
		ReactDOM.createRoot(el).render(React.createElement(window.__host.sidebar)); return true; })()`)
	pollJS[bool](t, tab, "the sidebar lists the pending post",
		fmt.Sprintf(`document.querySelector('#sidebar').textContent.indexOf(%q) >= 0`, marker))
	clickButton(t, tab, "#sidebar li", "Open")
	pollJS[bool](t, tab, "Open shows the post in the modal",
		fmt.Sprintf(`!!document.querySelector('[role=dialog]') && document.querySelector('[role=dialog]').textContent.indexOf(%q) >= 0`, marker+".txt"))
	clickButton(t, tab, "[role=dialog]", "Decline")
	pollJS[bool](t, tab, "the modal shows the declined outcome",
		`document.querySelector('[role=dialog] [role=status]') && document.querySelector('[role=dialog] [role=status]').textContent === 'Declined: nothing was posted.'`)

	if res, out := waitTool(t, done); !res.IsError || out.State != approval.StateDeclined {
		t.Fatalf("create_post answered %s", text(res))
	}
	if n := postsWith(t, alice, ch.Id, marker); n != 0 {
		t.Fatalf("%d posts after a decline in the modal", n)
	}
	noFileNamed(t, marker)
}
