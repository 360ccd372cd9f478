package main

import (
	"net/url"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

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
	known := func(name string) bool { _, ok := s.cat.Tool(name); return ok }
	ch, err := config.ParseChoice(q.Get("toolsets"), q.Get("tools"), q.Get("read_only"), known, func(string) []string { return nil })
	if err != nil {
		return 0, err
	}
	cfg := s.current()
	var listed []catalogue.Tool
	for _, t := range append(s.cat.All(), s.cat.Loaders()...) {
		if catalogue.OfferedTo(t, cfg, ch) {
			listed = append(listed, t)
		}
	}
	return catalogue.ListSize(listed)
}
