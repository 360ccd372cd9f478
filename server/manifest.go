package main

// manifestID is the plugin id from plugin.json; routes and settings use it.
const manifestID = "mcp-server"
