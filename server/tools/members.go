package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
)

// Bounds of get_channel_members: 50 people is about 2k tokens.
const (
	defaultMembers = 50
	maxMembers     = 200
)

type getChannelMembersArgs struct {
	Channel string `json:"channel" jsonschema:"Id (best), ~name, display name, DM @username or link."`
	Team    string `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Limit   int    `json:"limit,omitempty" jsonschema:"People per page, 1-200; default 50."`
	Cursor  string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

// ChannelMemberInfo is a member of a channel in structured answers.
type ChannelMemberInfo struct {
	User UserInfo `json:"user"`
	// Role is admin or member: the person's role in the channel.
	Role  string `json:"role"`
	Guest bool   `json:"guest"`
}

// MemberList is get_channel_members' structured answer.
type MemberList struct {
	Channel ChannelInfo         `json:"channel"`
	Members []ChannelMemberInfo `json:"members"`
	// Total is the channel's member count.
	Total int64 `json:"total"`
	// Hidden counts members of this page the privacy settings hide from you.
	Hidden     int    `json:"hidden"`
	NextCursor string `json:"next_cursor,omitempty"`
	Complete   bool   `json:"complete"`
}

func getChannelMembers(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "get_channel_members",
		Title:       "List the members of a channel",
		Description: "Lists the members of a channel you can read, with their channel role and whether each is a guest or a bot, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
	}, d.getChannelMembers)
}

func (d Deps) getChannelMembers(ctx context.Context, args getChannelMembersArgs) (res catalogue.Result[MemberList], err error) {
	limit, err := limitOf(args.Limit, defaultMembers, maxMembers)
	if err != nil {
		return res, err
	}
	keyArgs := args
	keyArgs.Cursor = ""
	pc, offset, err := openOffset("get_channel_members", args, keyArgs, args.Cursor)
	if err != nil {
		return res, err
	}
	c, view, err := d.channelOf(ctx, args.Channel, args.Team)
	if err != nil {
		return res, err
	}
	total, err := c.MemberCount(view.ch.Id)
	if err != nil {
		return res, err
	}
	members, hidden, err := c.ChannelMembers(view.ch.Id, offset/limit, limit)
	if err != nil {
		return res, err
	}
	out := MemberList{Channel: view.info(), Members: []ChannelMemberInfo{}, Total: total, Hidden: hidden}
	var b strings.Builder
	end := offset + len(members) + hidden
	fmt.Fprintf(&b, "Channel %s has %d members. ", view.shown(), total)
	if len(members)+hidden == 0 {
		b.WriteString("No members past the previous page.")
	} else {
		fmt.Fprintf(&b, "Members %d to %d by username:\n", offset+1, end)
	}
	for _, m := range members {
		info := ChannelMemberInfo{User: userInfo(m.User), Role: "member", Guest: m.Guest}
		if m.Admin {
			info.Role = "admin"
		}
		out.Members = append(out.Members, info)
		fmt.Fprintf(&b, "- %s, channel %s", userLine(info.User), info.Role)
		if info.Guest {
			b.WriteString(", guest")
		}
		b.WriteString("\n")
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "%d members of this page are not shown: the server's privacy settings hide them from you.\n", hidden)
	}
	if len(members)+hidden == limit && int64(end) < total {
		if out.NextCursor, err = pc.next(strconv.Itoa(offset + limit)); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "More members: %s", pc.nextCall(out.NextCursor))
	} else {
		out.Complete = true
		b.WriteString("These are all the members.")
	}
	return answer(strings.TrimSpace(b.String()), out)
}
