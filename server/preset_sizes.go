package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// lightStandIn is the light start's reading core (catching up, reading a
// thread, searching, reading a file) until the catalogue marks its own
// (issue 33, item 2, config.PresetLight): then the sizes read the
// catalogue's choice instead, and this goes.
var lightStandIn = []string{"list_unreads", "read_unread", "list_mentions", "read_channel", "read_thread", "search_posts", "read_file"}

// listSizes measures the tools/list a connection loads, for the connect
// dialog's presets, from the catalogue and the admin's settings of the
// moment, the way tools/list sends it (catalogue.ListSize).
type listSizes struct {
	cat     *catalogue.Catalogue
	current func() config.Configuration
}

// size is the size in bytes of the tools/list a client loads whose MCP URL
// carries query (read_only, and toolsets by name or the light start).
func (s *listSizes) size(query string) (int, error) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return 0, err
	}
	readOnly := q.Get("read_only") == "true"
	var sets config.Toolset
	var light bool
	named := strings.FieldsFunc(q.Get("toolsets"), func(r rune) bool { return r == ',' })
	for _, name := range named {
		i := slices.IndexFunc(config.Toolsets(), func(t config.Toolset) bool { return t.Name() == name })
		switch {
		case name == "light":
			light = true
		case i < 0:
			return 0, fmt.Errorf("no toolset is called %q", name)
		default:
			sets |= config.Toolsets()[i]
		}
	}
	cfg := s.current()
	var listed []catalogue.Tool
	for _, t := range s.cat.All() {
		loaded := len(named) == 0 || t.Toolset == 0 || sets&t.Toolset != 0 || light && slices.Contains(lightStandIn, t.Name)
		if loaded && catalogue.Offered(t, cfg) && !(readOnly && t.Writes()) {
			listed = append(listed, t)
		}
	}
	return catalogue.ListSize(listed)
}
