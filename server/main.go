// Command plugin is the MCP Server plugin's server side, started by Mattermost.
package main

import "github.com/mattermost/mattermost/server/public/plugin"

func main() {
	plugin.ClientMain(&Plugin{})
}
