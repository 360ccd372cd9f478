package tools

import (
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// A destination in the person's words: what the confirmation's heading and
// details say, without ids.

// place is the channel in the person's words, for the heading of a
// confirmation: its display name and team, or the people of a direct or
// group message; no ids.
func (v chanView) place(c *mattermost.Caller) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return "your direct message with " + v.partner(c)
	case model.ChannelTypeGroup:
		return "your group message with " + v.groupOthers(c)
	}
	if v.team != nil {
		return present.Clean(v.ch.DisplayName) + ", " + present.Clean(v.team.DisplayName)
	}
	return present.Clean(v.ch.DisplayName)
}

// where is the channel in full for the person, to tell apart two channels
// of the same name: its ~name, kind and team; no ids.
func (v chanView) where(c *mattermost.Caller) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect, model.ChannelTypeGroup:
		return v.place(c)
	}
	w := fmt.Sprintf("%s (~%s), a %s channel", present.Clean(v.ch.DisplayName), v.ch.Name, channelType(v.ch.Type))
	if v.team != nil {
		w += " of team " + present.Clean(v.team.DisplayName)
	}
	return w
}

// partner is the other person of a direct message, as @username.
func (v chanView) partner(c *mattermost.Caller) string {
	other := v.other
	if id := v.ch.GetOtherUserIdForDM(c.UserID()); other == nil && id != "" {
		other, _ = c.User(id)
	}
	if other == nil {
		return "someone"
	}
	return "@" + other.Username
}

// groupOthers are the people of a group message but the caller: Mattermost
// names a group message by all its members' usernames.
func (v chanView) groupOthers(c *mattermost.Caller) string {
	me, _ := c.Me()
	var others []string
	for _, n := range strings.Split(v.ch.DisplayName, ",") {
		if n = strings.TrimSpace(n); n != "" && (me == nil || n != me.Username) {
			others = append(others, "@"+present.Clean(n))
		}
	}
	if len(others) == 0 {
		return "others"
	}
	return strings.Join(others, ", ")
}
