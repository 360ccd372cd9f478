// Command mcp is the smallest Mattermost plugin that serves MCP: mcp-go's
// streamable HTTP server on the plugin's route, with the plugin API's client
// (bundlefloor weighs it).
package main

import (
	"net/http"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mattermost/mattermost/server/public/plugin"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

type mcpOnly struct {
	plugin.MattermostPlugin
	client  *pluginapi.Client
	handler http.Handler
}

func (p *mcpOnly) OnActivate() error {
	p.client = pluginapi.NewClient(p.API, p.Driver)
	p.handler = server.NewStreamableHTTPServer(server.NewMCPServer("floor", "1"))
	return nil
}

func (p *mcpOnly) ServeHTTP(_ *plugin.Context, w http.ResponseWriter, r *http.Request) {
	p.handler.ServeHTTP(w, r)
}

func main() { plugin.ClientMain(&mcpOnly{}) }
