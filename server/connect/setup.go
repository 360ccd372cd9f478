// Package connect is how a person connects an AI client to Mattermost and
// sees and disconnects the clients they connected: the MCP URL, the
// ready-to-paste setup of the common clients and their install links, a
// personal access token made for MCP when the server signs no client in
// with OAuth, and the person's connected clients, read from their MCP
// sessions. What belongs to the person (a token made, a client
// disconnected) is taken only from their own interactive session.
package connect

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// ServerName is the name every setup gives this server in the client.
const ServerName = "mattermost"

// TokenPlaceholder stands for the person's token in a setup made before
// they have one.
const TokenPlaceholder = "<your-personal-access-token>"

// vscodeTokenInput is the VS Code input that asks for the token when VS
// Code starts the server, so the token is kept in VS Code's secret storage
// rather than in mcp.json.
const vscodeTokenInput = "mattermost-token"

// Setup is what the person pastes into each client, or clicks. Links are
// empty where the client cannot take this setup by link.
type Setup struct {
	// ClaudeCode is a shell command.
	ClaudeCode string `json:"claude_code"`
	// Cursor is ~/.cursor/mcp.json (or a project's .cursor/mcp.json).
	Cursor string `json:"cursor"`
	// VSCode is .vscode/mcp.json, or the user configuration's "mcp" entry.
	VSCode string `json:"vscode"`
	// VSCodeLink is VS Code's install link (vscode:mcp/install?<JSON>).
	VSCodeLink string `json:"vscode_link"`
	// CursorLink is Cursor's install deeplink (config is base64 JSON).
	CursorLink string `json:"cursor_link,omitempty"`
}

// SetupFor is the setup of every client for the MCP endpoint at mcpURL.
// With OAuth the clients sign in themselves and carry no header. Without
// it they send token; without a token yet, Claude Code and Cursor show
// TokenPlaceholder to replace, VS Code asks for the token at start, and
// Cursor gets no link (it would install a placeholder).
func SetupFor(mcpURL, token string, oauth bool) Setup {
	var s Setup
	bearer := ""
	if !oauth {
		bearer = "Bearer " + tokenOr(token)
	}

	s.ClaudeCode = "claude mcp add --transport http " + ServerName + " " + shellQuote(mcpURL)
	if bearer != "" {
		s.ClaudeCode += " --header " + shellQuote("Authorization: "+bearer)
	}

	cursor := map[string]any{"url": mcpURL}
	if bearer != "" {
		cursor["headers"] = map[string]string{"Authorization": bearer}
	}
	s.Cursor = pretty(map[string]any{"mcpServers": map[string]any{ServerName: cursor}})
	if oauth || token != "" {
		s.CursorLink = "cursor://anysphere.cursor-deeplink/mcp/install?name=" + url.QueryEscape(ServerName) +
			"&config=" + url.QueryEscape(base64.StdEncoding.EncodeToString(compact(cursor)))
	}

	vscode := map[string]any{"type": "http", "url": mcpURL}
	var inputs []map[string]any
	if !oauth {
		if token == "" {
			vscode["headers"] = map[string]string{"Authorization": "Bearer ${input:" + vscodeTokenInput + "}"}
			inputs = []map[string]any{{"type": "promptString", "id": vscodeTokenInput,
				"description": "Mattermost personal access token", "password": true}}
		} else {
			vscode["headers"] = map[string]string{"Authorization": bearer}
		}
	}
	file := map[string]any{"servers": map[string]any{ServerName: vscode}}
	if inputs != nil {
		file["inputs"] = inputs
	}
	s.VSCode = pretty(file)
	link := map[string]any{"name": ServerName}
	for k, v := range vscode {
		link[k] = v
	}
	if inputs != nil {
		link["inputs"] = inputs
	}
	s.VSCodeLink = "vscode:mcp/install?" + uriComponent(string(compact(link)))
	return s
}

// uriComponent escapes as JavaScript's encodeURIComponent does, which VS
// Code's documentation uses for its install links: a space is %20, never +.
func uriComponent(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func tokenOr(token string) string {
	if token == "" {
		return TokenPlaceholder
	}
	return token
}

// shellQuote quotes a word for POSIX shells (and for PowerShell, which
// takes single quotes alike) unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func pretty(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ") // maps of strings always encode
	return string(b)
}

func compact(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
