package main

import (
	"sync/atomic"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// newConnect is the person's connect dialog and /mcp command, with the
// command registered. Without the command the dialog still works.
func (p *Plugin) newConnect(gw *mattermost.Gateway, t *transport.Transport, cat *catalogue.Catalogue, pluginURL func() string, rec audit.Recorder) *connect.Service {
	sizes := &listSizes{cat: cat, current: p.current}
	s := connect.New(connect.Options{MM: gw, Sessions: t, KV: gw.BytesKV(),
		Audit:    rec,
		ListSize: sizes.size,
		MCPURL:   func() string { return pluginURL() + transport.MCPPath },
		OAuth: func() (bool, string) {
			st := p.oauth.Load()
			if st == nil {
				return false, "the server configuration has not been read yet"
			}
			return st.ok, st.reason
		},
	})
	if err := gw.RegisterCommand(connect.Command()); err != nil {
		gw.Log().Error("The /mcp slash command could not be registered; the Connect dialog still works", "error", err.Error())
	}
	return s
}

// connectLate hands the transport's new sessions to the connect service,
// which is made after the transport it reads.
type connectLate struct {
	s atomic.Pointer[connect.Service]
}

func (c *connectLate) connected(rec transport.SessionRecord) {
	if s := c.s.Load(); s != nil {
		s.Connected(rec)
	}
}

// ExecuteCommand answers /mcp: in the mobile app (the web and desktop app
// open the Connect dialog instead) it carries the MCP URL and the setup.
func (p *Plugin) ExecuteCommand(_ *plugin.Context, args *model.CommandArgs) (*model.CommandResponse, *model.AppError) {
	s := p.connect.Load()
	if s == nil || args == nil {
		return &model.CommandResponse{ResponseType: model.CommandResponseTypeEphemeral, Text: "MCP Server is starting; try again in a moment."}, nil
	}
	return s.Execute(args.UserId, args.Command), nil
}
