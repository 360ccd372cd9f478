// Package resources offers what a person can attach to a conversation as MCP
// resources: an attachment, a channel's recent posts, a thread and a
// workspace file. Like the tools, they are data (Template), read through the
// very tools that read the same thing (the same converters, windows, bounds
// and access rules), and offered exactly while that tool is offered
// (catalogue.Offered): a toolset switched off hides its templates too.
package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// The templates' URIs. Completion and prompts name the same variables.
const (
	// FileTemplate is an attachment, by the file_id posts list.
	FileTemplate = "mattermost://file/{file_id}"
	// ThumbnailTemplate is a small picture of an image attachment, for a
	// view to draw: never the file itself.
	ThumbnailTemplate = "mattermost://file/{file_id}/thumbnail"
	// ChannelTemplate is a channel's recent posts: team and channel by name,
	// as in Mattermost's URLs (/<team>/channels/<channel>). A direct or group
	// message belongs to no team: its team is NoTeam and its channel the
	// channel's id (or, for a direct message, the other person's @username).
	ChannelTemplate = "mattermost://channel/{team}/{channel}"
	// ThreadTemplate is a whole thread, from any of its posts.
	ThreadTemplate = "mattermost://thread/{post_id}"
	// WorkspaceTemplate is a file of the person's own workspace.
	WorkspaceTemplate = "mattermost://workspace/{name}"

	// NoTeam stands for the team of a direct or group message.
	NoTeam = "-"
)

// Answer is what a reading tool answered: its text and any further content
// (images, audio, embedded files), as catalogue.Result holds them.
type Answer struct {
	Text string
	More []mcp.Content
	// Meta, when set, is this answer's _meta in place of the template's
	// (a view whose CSP names the site's origin, read when it is read).
	Meta map[string]any
}

// Template is one resource template.
type Template struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	// MIMEType is set only when every resource of the template has it.
	MIMEType string
	// Meta is the _meta of what Read answers (a view's CSP); nil for none.
	Meta map[string]any
	// Priority is the annotation clients may order attachments by.
	Priority float64
	// Tool reads the same thing: the template is offered exactly while the
	// configuration offers this tool (Offered).
	Tool string
	// Read reads what the URI's variables name, as the signed-in person
	// (through Tool's own handler code). A refusal or ErrNotFound is a
	// resource the person cannot read.
	Read func(ctx context.Context, vars map[string]string) (Answer, error)
	// Watch, for a resource whose content changes with new posts (a
	// channel, a thread), resolves its variables as the signed-in person
	// to what a subscription watches; nil: it cannot be subscribed to.
	Watch func(ctx context.Context, vars map[string]string) (Target, error)

	parsed mcp.ResourceTemplate
}

// Vars are the variables each template needs, in its URI's order.
func (t Template) Vars() []string { return t.parsed.URITemplate.Varnames() }

// MCP renders the template as resources/templates/list gives it.
func (t Template) MCP() mcp.ResourceTemplate { return t.parsed }

// ErrNotFound is a resource the signed-in person cannot read, or that is not
// there: the two are never told apart (as for tools).
var ErrNotFound = errors.New("resource not found")

// Set is every template, checked against the catalogue.
type Set struct {
	templates []Template
	tools     map[string]catalogue.Tool
	list      Lister
}

// Lister is the person's own resources for resources/list, bounded by the
// lister (see tools.ResourceList), in the order they are listed; it need not
// read what belongs to a template not offered.
type Lister func(ctx context.Context, offered func(uriTemplate string) bool) ([]mcp.Resource, error)

// New checks every template reads through a tool of the catalogue and has
// what a client shows; a malformed set is a programming error caught by
// tests, reported as an error.
func New(cat *catalogue.Catalogue, templates []Template, list Lister) (*Set, error) {
	s := &Set{tools: map[string]catalogue.Tool{}, list: list}
	for _, t := range cat.All() {
		s.tools[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range templates {
		switch {
		case t.URITemplate == "" || t.Name == "" || t.Title == "" || t.Description == "" || t.Read == nil:
			return nil, fmt.Errorf("resource template %q needs a URI template, a name, a title, a description and Read", t.Name)
		case seen[t.Name]:
			return nil, fmt.Errorf("resource template %q is defined twice", t.Name)
		}
		tool, ok := s.tools[t.Tool]
		if !ok || tool.Toolset == 0 || tool.Writes() {
			return nil, fmt.Errorf("resource template %q must read through a tool of a toolset that only reads; %q is none", t.Name, t.Tool)
		}
		seen[t.Name] = true
		opts := []mcp.ResourceTemplateOption{mcp.WithTemplateTitle(t.Title), mcp.WithTemplateDescription(t.Description),
			mcp.WithTemplateAnnotations([]mcp.Role{mcp.RoleUser, mcp.RoleAssistant}, t.Priority, "")}
		if t.MIMEType != "" {
			opts = append(opts, mcp.WithTemplateMIMEType(t.MIMEType))
		}
		t.parsed = mcp.NewResourceTemplate(t.URITemplate, t.Name, opts...)
		s.templates = append(s.templates, t)
	}
	return s, nil
}

// Templates is every template, offered or not.
func (s *Set) Templates() []Template { return append([]Template(nil), s.templates...) }

// Offered is the one rule of whether a configuration offers a template to
// a connection that chose ch: it offers the tool that reads the same thing
// (catalogue.OfferedTo; package paths).
func (s *Set) Offered(t Template, c config.Configuration, ch config.Choice) bool {
	return catalogue.OfferedTo(s.tools[t.Tool], c, ch)
}

// withheld is the refusal of a template not offered: why its tool is not,
// and the next step.
func (s *Set) withheld(uri string, t Template, c config.Configuration, ch config.Choice) error {
	why := catalogue.NotOfferedTo(s.tools[t.Tool], c, ch)
	return notFound(uri, fmt.Sprintf("what reads it (the tool %s) is withheld: %s", t.Tool, strings.TrimSuffix(why.What, ".")), why.Next)
}

// match is the template uri belongs to and its variables, every one given.
func (s *Set) match(uri string) (Template, map[string]string, bool) {
	for _, t := range s.templates {
		if !t.parsed.URITemplate.Regexp().MatchString(uri) {
			continue
		}
		vars := map[string]string{}
		for name, v := range t.parsed.URITemplate.Match(uri) {
			vars[name] = strings.TrimSpace(v.String())
		}
		for _, name := range t.Vars() {
			if vars[name] == "" {
				return t, nil, false
			}
		}
		return t, vars, true
	}
	return Template{}, nil, false
}

// maxURIBytes bounds a URI a client asks for: every resource's URI is far
// shorter (a workspace name is at most a few hundred bytes, escaped), and
// the refusal quotes it.
const maxURIBytes = 2048

// Read reads uri as the signed-in person of ctx under configuration c. What
// the person cannot read, a template not offered and a URI of no template
// are all ErrNotFound, worded with the next step.
func (s *Set) Read(ctx context.Context, uri string, c config.Configuration, ch config.Choice) ([]mcp.ResourceContents, error) {
	if len(uri) > maxURIBytes {
		return nil, notFound(uri[:64]+"…", fmt.Sprintf("it is longer than the %d bytes of any resource here", maxURIBytes), "resources/list lists yours.")
	}
	t, vars, ok := s.match(uri)
	if !ok {
		return nil, notFound(uri, "it is no resource of this server", "Resources are "+s.forms()+"; resources/list lists yours.")
	}
	if !s.Offered(t, c, ch) {
		return nil, s.withheld(uri, t, c, ch)
	}
	a, err := t.Read(ctx, vars)
	if r, isRefusal := refusal.As(err); isRefusal {
		return nil, notFound(uri, r.What, r.Next)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, notFound(uri, "it is not there, or you cannot read it", "resources/list lists what you can read.")
	}
	if err != nil {
		return nil, err
	}
	out := Contents(uri, a)
	if tc, ok := out[0].(mcp.TextResourceContents); ok && t.MIMEType != "" {
		tc.MIMEType, tc.Meta = t.MIMEType, t.Meta
		if a.Meta != nil {
			tc.Meta = a.Meta
		}
		out[0] = tc
	}
	return out, nil
}

func (s *Set) forms() string {
	var forms []string
	for _, t := range s.templates {
		forms = append(forms, t.URITemplate)
	}
	return strings.Join(forms, ", ")
}

// notFound is the resource-not-found error, saying why and what to do.
func notFound(uri, why, next string) error {
	msg := fmt.Sprintf("%s was not found: %s.", uri, strings.TrimRight(why, ". "))
	if next != "" {
		msg += " " + next
	}
	return &transport.ResourceNotFound{Message: msg}
}

// Contents turns a reading tool's answer into the contents of uri: its text
// as a text resource, and images, audio and embedded media (already within
// read_file's caps, images upright and scaled) as blob resources; an answer
// without text (a thumbnail) is its blobs alone. Resource
// links an answer carries are left out: the text lists the same files.
func Contents(uri string, a Answer) []mcp.ResourceContents {
	var out []mcp.ResourceContents
	if a.Text != "" || len(a.More) == 0 {
		out = append(out, mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: a.Text})
	}
	for _, c := range a.More {
		switch m := c.(type) {
		case mcp.ImageContent:
			out = append(out, mcp.BlobResourceContents{URI: uri, MIMEType: m.MIMEType, Blob: m.Data})
		case mcp.AudioContent:
			out = append(out, mcp.BlobResourceContents{URI: uri, MIMEType: m.MIMEType, Blob: m.Data})
		case mcp.EmbeddedResource:
			if b, ok := m.Resource.(mcp.BlobResourceContents); ok {
				out = append(out, mcp.BlobResourceContents{URI: uri, MIMEType: b.MIMEType, Blob: b.Blob})
			}
		}
	}
	return out
}

// Register adds every template to the MCP server. The transport reads (and
// refuses) before mcp-go answers (transport.Resources), so each handler
// hands over what the transport read.
func (s *Set) Register(m *server.MCPServer) {
	for _, t := range s.templates {
		m.AddResourceTemplate(t.parsed, transport.ReadResource)
	}
}

// Links is the tool middleware that drops the resource links of an answer
// whose template the configuration does not offer now: a link the client
// could not read is noise.
func (s *Set) Links(current func() config.Configuration) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if err != nil || res == nil {
				return res, err
			}
			var cfg *config.Configuration
			kept := res.Content[:0:0]
			for _, c := range res.Content {
				if l, ok := c.(mcp.ResourceLink); ok {
					if cfg == nil {
						c := current()
						cfg = &c
					}
					if t, _, ok := s.match(l.URI); !ok || !s.Offered(t, *cfg, transport.ChoiceOf(ctx)) {
						continue
					}
				}
				kept = append(kept, c)
			}
			res.Content = kept
			return res, nil
		}
	}
}
