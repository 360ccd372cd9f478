package resources

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// ListPage is how many resources one resources/list page holds: a client
// shows them in a picker, and a page of 50 is about 15 KiB.
const ListPage = 50

// listCursorKind binds a resources/list cursor to that listing (paging).
const listCursorKind = "resources/list"

// ErrBadCursor is a resources/list cursor this server did not make.
var ErrBadCursor = errors.New("this cursor is not one resources/list made: list again without cursor")

// List is the page of the person's resources at cursor ("" for the first)
// and the cursor of the next page ("" when none follows). Only resources of
// templates c offers are listed.
func (s *Set) List(ctx context.Context, cursor string, c config.Configuration, ch config.Choice) ([]mcp.Resource, string, error) {
	offset, err := listOffset(cursor)
	if err != nil {
		return nil, "", err
	}
	var all []mcp.Resource
	for _, t := range s.templates {
		if t.Static() && s.Offered(t, c, ch) {
			all = append(all, t.Resource())
		}
	}
	if s.list != nil {
		entries, err := s.list(ctx, func(uriTemplate string) bool {
			for _, t := range s.templates {
				if t.URITemplate == uriTemplate {
					return s.Offered(t, c, ch)
				}
			}
			return false
		})
		if err != nil {
			return nil, "", err
		}
		for _, r := range entries {
			if t, _, ok := s.match(r.URI); ok && s.Offered(t, c, ch) {
				all = append(all, r)
			}
		}
	}
	return pageOf(all, offset)
}

// pageOf cuts the page at offset out of every entry listed, with the cursor
// that continues after it.
func pageOf(all []mcp.Resource, offset int) ([]mcp.Resource, string, error) {
	end := min(offset+ListPage, len(all))
	page := append([]mcp.Resource{}, all[min(offset, len(all)):end]...)
	if end >= len(all) {
		return page, "", nil
	}
	next, err := paging.Encode(listCursorKind, "", strconv.Itoa(end))
	if err != nil {
		return nil, "", err
	}
	// mcp-go reads a list cursor as standard base64 before the transport's
	// page replaces its own (empty) list; this keeps it readable to it.
	return page, base64.StdEncoding.EncodeToString([]byte(next)), nil
}

func listOffset(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.StdEncoding.DecodeString(cursor)
	if err != nil {
		return 0, ErrBadCursor
	}
	at, err := paging.Decode(string(raw), listCursorKind, "")
	if err != nil {
		return 0, ErrBadCursor
	}
	n, err := paging.Offset(at)
	if err != nil {
		return 0, ErrBadCursor
	}
	return n, nil
}

// Serving is the set as the transport asks it, under the configuration of
// each request.
type Serving struct {
	set     *Set
	current func() config.Configuration
	used    func(userID, client string)
}

var _ transport.Resources = Serving{}

// Serve binds the set to the configuration each request reads; used hears
// of every read, as of every tool call, for the audit trail's count of who
// used MCP with which client (nil: not counted).
func (s *Set) Serve(current func() config.Configuration, used func(userID, client string)) Serving {
	return Serving{set: s, current: current, used: used}
}

// Read implements transport.Resources.
func (v Serving) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	if userID := transport.CallerID(ctx); v.used != nil && userID != "" {
		v.used(userID, transport.Client(ctx).Name)
	}
	return v.set.Read(ctx, uri, v.current(), transport.ChoiceOf(ctx))
}

// List implements transport.Resources.
func (v Serving) List(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	res, next, err := v.set.List(ctx, cursor, v.current(), transport.ChoiceOf(ctx))
	if errors.Is(err, ErrBadCursor) {
		return nil, "", fmt.Errorf("%w: %s", transport.ErrBadResourceCursor, err.Error())
	}
	return res, next, err
}

// Templates implements transport.Resources: the templates offered now to
// the connection of ctx.
func (v Serving) Templates(ctx context.Context) []string {
	cfg, ch := v.current(), transport.ChoiceOf(ctx)
	var offered []string
	for _, t := range v.set.templates {
		if v.set.Offered(t, cfg, ch) && !t.Static() {
			offered = append(offered, t.URITemplate)
		}
	}
	return offered
}

// TemplateOffered is whether the template uriTemplate (as listed) is
// offered to the connection of ctx now: what completes its variables
// reads what its tool would.
func (v Serving) TemplateOffered(ctx context.Context, uriTemplate string) bool {
	for _, t := range v.set.templates {
		if t.URITemplate == uriTemplate {
			return v.set.Offered(t, v.current(), transport.ChoiceOf(ctx))
		}
	}
	return false
}

// escape writes a value into a URI as RFC 6570 simple expansion does, so the
// URI matches its template: everything but unreserved characters is
// percent-encoded.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// FileURI is the resource of an attachment.
func FileURI(fileID string) string { return "mattermost://file/" + escape(fileID) }

// ThumbnailURI is the small picture of an image attachment.
func ThumbnailURI(fileID string) string { return FileURI(fileID) + "/thumbnail" }

// ChannelURI is the resource of a channel: team is its team's name, or ""
// for a direct or group message (then channel is its id).
func ChannelURI(team, channel string) string {
	if team == "" {
		team = NoTeam
	}
	return "mattermost://channel/" + escape(team) + "/" + escape(channel)
}

// ThreadURI is the resource of the thread of a post.
func ThreadURI(postID string) string { return "mattermost://thread/" + escape(postID) }

// WorkspaceURI is the resource of a workspace file.
func WorkspaceURI(name string) string { return "mattermost://workspace/" + escape(name) }
