package tools

import (
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
)

// The catalogue's list of tools lives apart from the ground every tool
// stands on (tools.go), so that naming a tool does not make every tool
// file depend on every other.

// All is the whole catalogue, offered or not.
func All(d Deps) []catalogue.Tool {
	tools := []catalogue.Tool{
		getMe(d),
		listTeams(d),
		listChannels(d),
		getChannel(d),
		searchChannels(d),
		readChannel(d),
		readThread(d),
		waitForReply(d),
		searchPosts(d),
		listUnreads(d),
		readUnread(d),
		listMentions(d),
		listThreads(d),
		getUser(d),
		searchUsers(d),
		listPinnedPosts(d),
		listSaved(d),
		getChannelMembers(d),
		getStatus(d),
		listEmoji(d),
		listDrafts(d),
		listTeamChannels(d),
	}
	tools = append(tools, researchTools(d)...)
	tools = append(tools, fileTools(d)...)
	tools = append(tools, writeTools(d)...)
	// The tools that change only the person's own view, in this order.
	for _, own := range [][]catalogue.Tool{draftTools(d), savedPostTools(d), followTools(d), markReadTools(d), reminderTools(d)} {
		tools = append(tools, own...)
	}
	tools = append(tools, getPending(d))
	tools = append(tools, workspaceTools(d)...)
	for i := range tools {
		tools[i].Light = slices.Contains(lightStart, tools[i].Name)
	}
	return tools
}

// lightStart is the everyday reading core a connection may start with
// (?toolsets=light), beside get_me, find_tools and load_tools: catching up
// (list_unreads, read_unread, list_mentions), reading a channel or a
// thread (read_channel, read_thread; read_channel takes a channel's name
// or link, so no listing is needed first), searching (search_posts) and reading a file
// (read_file; search_posts answers with the attachments). Everything else
// is one load_tools away. Its tools/list stays under maxLightToolList.
var lightStart = []string{"list_unreads", "read_unread", "list_mentions", "read_channel", "read_thread", "search_posts", "read_file"}
