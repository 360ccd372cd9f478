package main

import (
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
)

// fileTransfer is file transfer over the catalogue's tools: which take the
// files of a post and which give a file, as each tool's data says.
func fileTransfer(cat *catalogue.Catalogue, backend filetransfer.Backend) *filetransfer.Service {
	uses := func(use catalogue.FileUse) func(string) bool {
		return func(name string) bool {
			t, ok := cat.Tool(name)
			return ok && t.Files == use
		}
	}
	return &filetransfer.Service{Backend: backend, TakesFiles: uses(catalogue.TakesFiles), GivesFiles: uses(catalogue.GivesFile)}
}
