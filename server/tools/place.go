package tools

import (
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// A place is a channel or a conversation (a direct or group message) with
// what naming it needs, and the one way every reader names it: label for
// the person's question (with ids), shown for the model, words and where
// for a confirmation's heading and details (no ids), name as a person says
// it, brief in a file's answer, destination for a write's plan.
type place struct {
	ch     *model.Channel
	team   *model.Team
	member *model.ChannelMember
	other  *model.User
}

// placeOfMine is one of the caller's channels as a place.
func placeOfMine(m mattermost.MyChannel) place {
	return place{ch: m.Channel, team: m.Team, member: m.Member, other: m.Other}
}

func channelType(t model.ChannelType) string {
	switch t {
	case model.ChannelTypeOpen:
		return "public"
	case model.ChannelTypePrivate:
		return "private"
	case model.ChannelTypeDirect:
		return "direct"
	case model.ChannelTypeGroup:
		return "group"
	}
	return string(t)
}

// name is how a person would name the channel: a direct message is
// the other person's @username.
func (v place) name() string {
	if v.ch.Type == model.ChannelTypeDirect {
		if v.other != nil {
			return "@" + v.other.Username
		}
		return "direct message"
	}
	return v.ch.DisplayName
}

func (v place) teamName() string {
	if v.team == nil {
		return ""
	}
	return v.team.Name
}

func (v place) info() ChannelInfo {
	ci := ChannelInfo{
		ID: v.ch.Id, Name: v.ch.Name, DisplayName: present.Name(v.name()), Type: channelType(v.ch.Type),
		Member: v.member != nil, Archived: v.ch.DeleteAt != 0,
	}
	if v.team != nil {
		ci.TeamID, ci.TeamName = v.team.Id, v.team.Name
	}
	if v.member != nil {
		mc := mattermost.MyChannel{Channel: v.ch, Member: v.member}
		ci.Unread, ci.UnreadRoot, ci.Mentions = mc.Unread(), mc.UnreadRoot(), v.member.MentionCount
	}
	if v.ch.LastPostAt > 0 {
		ci.LastPostAt = rfc3339(v.ch.LastPostAt)
	}
	return ci
}

// label is a channel in one line of text for the person's question (the
// write flow): names cleaned of controls, hidden text not decoded into it,
// where it could turn into markup.
func (v place) label() string { return v.labelWith(present.Clean) }

// shown is a channel in one line of text for the model: the characters
// Mattermost does not display in its names are made visible.
func (v place) shown() string { return v.labelWith(present.Name) }

func (v place) labelWith(name func(string) string) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return fmt.Sprintf("direct message with %s (id %s)", name(v.name()), v.ch.Id)
	case model.ChannelTypeGroup:
		return fmt.Sprintf("group message %q (id %s)", name(v.ch.DisplayName), v.ch.Id)
	}
	team := ""
	if v.team != nil {
		team = ", team " + name(v.team.DisplayName) + " (" + v.team.Name + ")"
	}
	return fmt.Sprintf("~%s %q (%s%s, id %s)", v.ch.Name, name(v.ch.DisplayName), channelType(v.ch.Type), team, v.ch.Id)
}

// placeOf is a channel with what names it: its team, and the other person
// of a direct message.
func placeOf(c *mattermost.Caller, ch *model.Channel) place {
	v := place{ch: ch}
	if ch.TeamId != "" {
		v.team, _ = c.Team(ch.TeamId)
	}
	if other := ch.GetOtherUserIdForDM(c.UserID()); ch.Type == model.ChannelTypeDirect && other != "" {
		v.other, _ = c.User(other)
	}
	return v
}

// destination is where a write to the place goes, as its plan keeps it:
// the label the model is told, and the place in the person's words, short
// and in full.
func (v place) destination(c *mattermost.Caller) posting.Destination {
	return posting.Destination{ChannelID: v.ch.Id, Label: v.label(), Place: v.words(c), Where: v.where(c)}
}

// brief is the place in a few words, for a file's answer: "a direct
// message", or the channel's ~name and display name.
func (v place) brief() string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return "a direct message"
	case model.ChannelTypeGroup:
		return "a group message"
	}
	return fmt.Sprintf("~%s (%s)", v.ch.Name, present.Name(v.ch.DisplayName))
}

// words is the channel in the person's words, for the heading of a
// confirmation: its display name and team, or the people of a direct or
// group message; no ids.
func (v place) words(c *mattermost.Caller) string {
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
func (v place) where(c *mattermost.Caller) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect, model.ChannelTypeGroup:
		return v.words(c)
	}
	w := fmt.Sprintf("%s (~%s), a %s channel", present.Clean(v.ch.DisplayName), v.ch.Name, channelType(v.ch.Type))
	if v.team != nil {
		w += " of team " + present.Clean(v.team.DisplayName)
	}
	return w
}

// partner is the other person of a direct message, as @username.
func (v place) partner(c *mattermost.Caller) string {
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
func (v place) groupOthers(c *mattermost.Caller) string {
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
