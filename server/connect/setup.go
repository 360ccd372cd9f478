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
	var headers map[string]string
	if !oauth {
		headers = map[string]string{"Authorization": "Bearer " + tokenOr(token)}
	}

	s.ClaudeCode = "claude mcp add --transport http " + ServerName + " " + shellQuote(mcpURL)
	if headers != nil {
		s.ClaudeCode += " --header " + shellQuote("Authorization: "+headers["Authorization"])
	}

	cursor := cursorEntry{URL: mcpURL, Headers: headers}
	s.Cursor = encode(map[string]any{"mcpServers": map[string]any{ServerName: cursor}}, true)
	if oauth || token != "" {
		s.CursorLink = "cursor://anysphere.cursor-deeplink/mcp/install?name=" + url.QueryEscape(ServerName) +
			"&config=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(encode(cursor, false))))
	}

	vscode := vscodeEntry{Type: "http", URL: mcpURL, Headers: headers}
	var inputs []vscodeInput
	if !oauth && token == "" {
		vscode.Headers = map[string]string{"Authorization": "Bearer ${input:" + vscodeTokenInput + "}"}
		inputs = []vscodeInput{{Type: "promptString", ID: vscodeTokenInput, Description: "Mattermost personal access token", Password: true}}
	}
	s.VSCode = encode(vscodeFile{Inputs: inputs, Servers: map[string]vscodeEntry{ServerName: vscode}}, true)
	link := vscode
	link.Name, link.Inputs = ServerName, inputs
	s.VSCodeLink = "vscode:mcp/install?" + uriComponent(encode(link, false))
	return s
}

// cursorEntry is a server in Cursor's mcp.json; a remote server is its URL.
type cursorEntry struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// vscodeEntry is a server in VS Code's mcp.json; the install link takes
// the same with its name and inputs.
type vscodeEntry struct {
	Name    string            `json:"name,omitempty"`
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Inputs  []vscodeInput     `json:"inputs,omitempty"`
}

type vscodeInput struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Password    bool   `json:"password"`
}

type vscodeFile struct {
	Inputs  []vscodeInput          `json:"inputs,omitempty"`
	Servers map[string]vscodeEntry `json:"servers"`
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

// encode is v as JSON as a person reads it: without escaping <, > and &
// (a placeholder stays readable), indented when pretty.
func encode(v any, pretty bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	_ = enc.Encode(v) // strings and maps of strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}
