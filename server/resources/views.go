package resources

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// MCP Apps views (the ext-apps extension): a tool names a ui:// resource in
// its _meta.ui.resourceUri; a client that renders apps reads the resource
// once and shows it in the conversation, handing it the tool's structured
// result. A client without apps ignores both.
const (
	// ThreadView shows the posts read_thread, read_channel and search_posts
	// answer, as Mattermost shows them.
	ThreadView = "ui://mattermost/thread"
	// FileView shows what read_file read: an image, a PDF's pages (or its
	// text), a text window, an archive's entries.
	FileView = "ui://mattermost/file"
	// PendingView shows a write waiting for the person: where it goes,
	// the message and files, until when, and the outcome once answered.
	PendingView = "ui://mattermost/pending"
	// UploadView is where the person gives the file request_file asks
	// for: what for, a drop zone and picker, progress, the sha256 and the
	// outcome. It alone may connect, to this Mattermost's origin only.
	UploadView = "ui://mattermost/upload"
	// ViewMIMEType is the MCP Apps profile of HTML.
	ViewMIMEType = "text/html;profile=mcp-app"
	// MaxViewScriptBytes bounds a view's script read from the bundle: the
	// thread view is about 570 KiB (the ext-apps SDK with its dependencies
	// and the emoji table),
	// the file view about 2 MiB (pdf.js too); a larger file is not ours.
	MaxViewScriptBytes = 4 << 20
	// MaxViewStyleBytes bounds a view's styles read from the bundle (about
	// 4 KiB each).
	MaxViewStyleBytes = 64 << 10
)

// ViewFiles is what the bundle holds of a view: its script and its styles.
type ViewFiles struct {
	Script, Style []byte
}

// Static reports a template without variables: one resource, listed in
// resources/list rather than as a template.
func (t Template) Static() bool { return len(t.Vars()) == 0 }

// Resource is a static template as resources/list lists it.
func (t Template) Resource() mcp.Resource {
	r := mcp.NewResource(t.URITemplate, t.Name, mcp.WithResourceDescription(t.Description), mcp.WithMIMEType(t.MIMEType))
	r.Title = t.Title
	return r
}

// View is the template of a view whose script and styles the plugin's
// bundle holds (files reads them; built by webapp/vite.views.config.ts),
// offered while tool is. The page loads nothing from outside: its CSP
// allows only its own inline script and style (each by hash), and images
// given as data.
func View(uri, name, title, description, tool string, files func() (ViewFiles, error)) Template {
	return ConnectingView(uri, name, title, description, tool, files, nil)
}

// ConnectingView is a View that may connect to one origin, the one
// connect names when the view is read (this Mattermost's, which an admin
// may change): the host is asked to allow it (connectDomains) and the
// page's own CSP allows it alone. nil: none, as View.
func ConnectingView(uri, name, title, description, tool string, files func() (ViewFiles, error), connect func() string) Template {
	return Template{
		URITemplate: uri, Name: name, Title: title, Description: description, Tool: tool,
		MIMEType: ViewMIMEType, Priority: 0.1,
		// No domains: the host allows no connection and no external load.
		Meta: viewMeta(""),
		Read: func(context.Context, map[string]string) (Answer, error) {
			f, err := files()
			if err != nil {
				return Answer{}, fmt.Errorf("the view %s is not in this plugin bundle (%w): reinstall the plugin built with `make dist`", uri, err)
			}
			if connect == nil {
				return Answer{Text: Page(title, f.Script, f.Style)}, nil
			}
			origin := connect()
			return Answer{Text: page(title, f.Script, f.Style, origin), Meta: viewMeta(origin)}, nil
		},
	}
}

// viewMeta is a view's _meta: what the host's CSP allows it (origin, or
// nothing when empty) and its border.
func viewMeta(origin string) map[string]any {
	connect := []string{}
	if origin != "" {
		connect = []string{origin}
	}
	return map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": connect, "resourceDomains": []string{}}, "prefersBorder": true}}
}

// Page is the HTML of a view: one inline script and one inline style,
// each allowed by its hash, and nothing else that runs or styles. Neither
// the views nor the ext-apps SDK set style attributes (CSSOM properties
// are not inline styles to the CSP), so no 'unsafe-inline' is needed.
func Page(title string, js, css []byte) string { return page(title, js, css, "") }

// page is Page whose script may connect to origin (none when empty).
func page(title string, js, css []byte, origin string) string {
	// Neither element can end itself early: the bundle never holds
	// "</script" or "</style", but a stray one would cut the page, so it is
	// escaped (in CSS, "\/" is "/").
	body := strings.ReplaceAll(string(js), "</script", `<\/script`)
	style := strings.ReplaceAll(string(css), "</style", `<\/style`)
	csp := "default-src 'none'; script-src " + hashSource(body) + "; style-src " + hashSource(style) +
		"; img-src data:; base-uri 'none'; form-action 'none'"
	if origin != "" {
		csp += "; connect-src " + origin
	}
	return `<!doctype html><html><head><meta charset="utf-8">` +
		`<meta http-equiv="Content-Security-Policy" content="` + csp + `">` +
		`<meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<title>` + htmlEscape(title) + `</title><style>` + style + `</style></head>` +
		`<body><main id="root"></main><script>` + body + `</script></body></html>`
}

// hashSource is the CSP source allowing an inline element of this text.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
