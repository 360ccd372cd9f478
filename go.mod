module github.com/mcp-server/mattermost-plugin-mcp

go 1.26.0

require (
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/mattermost/mattermost/server/public v0.1.22 // indirect
	golang.org/x/image v0.48.0 // indirect
)
