package connect

import (
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// Trigger is the slash command: /mcp.
const Trigger = "mcp"

// Command is the /mcp slash command as Mattermost registers it.
func Command() *model.Command {
	return &model.Command{
		Trigger:          Trigger,
		DisplayName:      "Connect an AI client",
		Description:      "Connect an AI client (Claude Code, Cursor, VS Code...) to your Mattermost over MCP.",
		AutoComplete:     true,
		AutoCompleteDesc: "Connect an AI client to Mattermost: the MCP URL and ready-to-paste setup",
		AutoCompleteHint: "[clients|help]",
	}
}

// Execute answers /mcp for the person, as an ephemeral post: in the web and
// desktop app the webapp opens the dialog instead, so this is what the
// mobile app shows.
func (s *Service) Execute(userID, args string) *model.CommandResponse {
	fields := strings.Fields(args)
	sub := ""
	if len(fields) > 1 {
		sub = strings.ToLower(fields[1])
	}
	var text string
	switch sub {
	case "", "connect", "setup":
		text = s.setupText(userID)
	case "clients":
		text = s.clientsText(userID)
	case "help":
		text = helpText
	default:
		// The word typed is not repeated: the answer holds only the
		// plugin's own words.
		text = "That is not a subcommand of `/mcp`.\n\n" + helpText
	}
	return &model.CommandResponse{ResponseType: model.CommandResponseTypeEphemeral, Text: text}
}

const helpText = "**/mcp** connects an AI client (Claude Code, Cursor, VS Code, Claude Desktop...) to your Mattermost over MCP.\n\n" +
	"- `/mcp`: the MCP URL and the setup to paste into your client (in the web and desktop app it opens the Connect dialog)\n" +
	"- `/mcp clients`: your connected clients\n" +
	"- `/mcp help`: this help\n\n" +
	"To make a personal access token or disconnect a client, open the Connect dialog in the web or desktop app (the AI client button in the channel header, or `/mcp`)."

func (s *Service) setupText(userID string) string {
	oauth, reason := s.opts.OAuth()
	url := s.opts.MCPURL()
	setup := SetupFor(url, "", oauth)
	var b strings.Builder
	fmt.Fprintf(&b, "#### Connect an AI client to Mattermost\n**MCP URL:** `%s`\n\n", url)
	if oauth {
		b.WriteString("This server signs AI clients in with your Mattermost account (OAuth): add the URL to the client and it opens Mattermost for you to allow it.\n\n")
	} else {
		b.WriteString("This server does not sign AI clients in with OAuth: the client sends a personal access token as `Authorization: Bearer <token>`. ")
		if ok, why := s.opts.MM.MayCreateAccessTokens(userID); ok {
			b.WriteString("Make one in the Connect dialog of the web or desktop app (`/mcp` there), which fills it into the setup below, or in **Profile > Security > Personal Access Tokens**; then replace `" + TokenPlaceholder + "` with it.\n\n")
		} else {
			b.WriteString(why + "\n\n")
		}
	}
	fmt.Fprintf(&b, "**Claude Code** (in a terminal):\n```\n%s\n```\n", setup.ClaudeCode)
	fmt.Fprintf(&b, "**Cursor** (`~/.cursor/mcp.json`):\n```json\n%s\n```\n", setup.Cursor)
	fmt.Fprintf(&b, "**VS Code** (`.vscode/mcp.json`):\n```json\n%s\n```\n", setup.VSCode)
	b.WriteString("**ChatGPT, claude.ai and Claude Desktop** add the URL above as a connector and sign in with OAuth; the Connect dialog has their steps.")
	if hosts := HostsFor(url, oauth, reason); len(hosts) > 0 && len(hosts[0].Blocked) > 0 {
		b.WriteString(" They cannot connect to this server yet:")
		for _, why := range hosts[0].Blocked {
			b.WriteString("\n- " + why)
		}
	}
	b.WriteString("\n\nOther clients: add a remote MCP server of type Streamable HTTP with the URL above.")
	return b.String()
}

func (s *Service) clientsText(userID string) string {
	clients, more, err := s.Clients(userID)
	if err != nil {
		return "Mattermost could not list your connected clients just now; try again in a moment."
	}
	return clientsMessage(clients, more)
}

// clientsMessage lists clients: their names are the clients' own and an
// OAuth app's name is whoever registered it, so the list is one fenced
// block (present.Fenced), shown as text by every Mattermost app.
func clientsMessage(clients []Client, more int) string {
	if len(clients) == 0 {
		return "No AI client is connected to your Mattermost. `/mcp` tells how to connect one."
	}
	lines := make([]string, 0, 2*len(clients)+1)
	for _, c := range clients {
		name := c.Name
		if c.Version != "" {
			name += " " + c.Version
		}
		lines = append(lines, present.ShownLine(name),
			"  last used "+c.LastUsed.UTC().Format(time.DateTime+" UTC")+", signed in with "+present.ShownLine(lowerFirst(c.SignInText)))
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", more))
	}
	return "#### Your connected AI clients\n" + present.Fenced(lines) + "\nDisconnect a client in the Connect dialog of the web or desktop app."
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || strings.HasPrefix(s, "OAuth") {
		return s
	}
	return string(s[0]-'A'+'a') + s[1:]
}

// ClientsMessage is the answer of /mcp clients for clients and more left
// out, for the tests that render it with Mattermost's own renderers.
func ClientsMessage(clients []Client, more int) string {
	return clientsMessage(clients, more)
}
