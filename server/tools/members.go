package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
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
	paged
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetPeople,
	}, d.getChannelMembers)
}

func (d Deps) getChannelMembers(ctx context.Context, args getChannelMembersArgs) (res catalogue.Result[MemberList], err error) {
	limit, err := limitOf(args.Limit, defaultMembers, maxMembers)
	if err != nil {
		return res, err
	}
	pc, offset, err := openPageOffset("get_channel_members", args)
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
	return membersAnswer(membersFetched{pc: pc, channel: view, total: total, members: members, hidden: hidden, offset: offset, limit: limit})
}

// membersFetched is what get_channel_members read: the channel, its member
// count, one page of its members (and how many of that page are hidden),
// where the page starts and how long a page is.
type membersFetched struct {
	pc            pageCursor
	channel       place
	total         int64
	members       []mattermost.ChannelMember
	hidden        int
	offset, limit int
}

// membersAnswer writes get_channel_members' answer from what was read.
func membersAnswer(f membersFetched) (res catalogue.Result[MemberList], err error) {
	out := MemberList{Channel: f.channel.info(), Members: []ChannelMemberInfo{}, Total: f.total, Hidden: f.hidden}
	var b strings.Builder
	end := f.offset + len(f.members) + f.hidden
	fmt.Fprintf(&b, "Channel %s has %s. ", f.channel.shown(), present.Count(int(f.total), "member", "members"))
	if len(f.members)+f.hidden == 0 {
		b.WriteString("No members past the previous page. ")
	} else {
		fmt.Fprintf(&b, "Members %d to %d by username:\n", f.offset+1, end)
	}
	for _, m := range f.members {
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
	if f.hidden > 0 {
		hiddenNote := "%d members of this page are not shown: the server's privacy settings hide them from you.\n"
		if f.hidden == 1 {
			hiddenNote = "%d member of this page is not shown: the server's privacy settings hide them from you.\n"
		}
		fmt.Fprintf(&b, hiddenNote, f.hidden)
	}
	if len(f.members)+f.hidden == f.limit && int64(end) < f.total {
		if out.NextCursor, err = f.pc.next(strconv.Itoa(f.offset + f.limit)); err != nil {
			return res, err
		}
		fmt.Fprintf(&b, "More members: %s", f.pc.nextCall(out.NextCursor))
	} else {
		out.Complete = true
		b.WriteString("These are all the members.")
	}
	return answer(strings.TrimSpace(b.String()), out)
}

// add_channel_members: people a channel's members see added.

var (
	addHints = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	// maxNewMembers bounds the people one call brings into a channel: each
	// is named in the question, which must stay readable.
	maxNewMembers = 20
)

type addMembersArgs struct {
	Channel string   `json:"channel" jsonschema:"Id (best), ~name, display name or link."`
	Team    string   `json:"team,omitempty" jsonschema:"Team, if the channel name is ambiguous."`
	Users   []string `json:"users" jsonschema:"Up to 20 people of the team: @usernames or user ids."`
}

func addChannelMembersTool(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name: "add_channel_members", Title: "Add people to a channel", Hints: addHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetChannelChanges,
		Description: "Adds people of the channel's team to a channel, as the person; each person added is notified." + confirmationNote,
	}, d.addChannelMembers)
}

// minChannelName is the shortest ~name Mattermost's own app lets a person
// create (its model alone allows 1).
const minChannelName = 2

func (d Deps) addChannelMembers(ctx context.Context, a addMembersArgs) (res catalogue.Result[WriteResult], err error) {
	c, v, res, err := d.startChannelWrite(ctx, a.Channel, a.Team)
	if c == nil {
		return res, err
	}
	if !c.MayAddMembers(v.ch) {
		return res, refusal.New("The person's role does not let them add people to "+v.label()+".", "")
	}
	if len(a.Users) == 0 {
		return res, refusal.New("Give users: the @usernames to add.", "")
	}
	members, err := newMembers(c, v.ch.TeamId, v.ch.Id, a.Users)
	if err != nil {
		return res, err
	}
	base, spec := channelPlan(c, v)
	plan := approval.AddMembers.Plan(base, approval.ChannelMembers{Channel: spec, Members: members})
	plan.Notes = addedNotes(c, members, plan.Dest.Place)
	return d.write(ctx, c, plan)
}

// newMembers resolves the people to bring into a channel of a team: each
// one the caller can see, in the team, not the caller, and (for an existing
// channel) not in it yet.
func newMembers(c *mattermost.Caller, teamID, channelID string, refs []string) ([]posting.Person, error) {
	if len(refs) > maxNewMembers {
		return nil, refusal.New(fmt.Sprintf("%d people were given; one call adds at most %d.", len(refs), maxNewMembers), "Add the rest in another call.")
	}
	seen := map[string]bool{c.UserID(): true}
	var out []posting.Person
	for _, ref := range refs {
		u, err := c.User(ref)
		if errors.Is(err, mattermost.ErrNotFound) {
			return nil, refusal.Newf("Nobody called %q was found. Call search_users with part of their name.", ref)
		}
		if err != nil {
			return nil, err
		}
		if seen[u.Id] {
			continue
		}
		seen[u.Id] = true
		in, err := c.InTeam(teamID, u.Id)
		if err != nil {
			return nil, err
		}
		if !in || u.DeleteAt != 0 {
			return nil, refusal.New(fmt.Sprintf("@%s is not in the channel's team, so Mattermost cannot add them.", u.Username), "Ask a team admin to add them to the team first.")
		}
		if channelID != "" {
			if member, err := c.IsChannelMember(channelID, u.Id); err != nil || member {
				if err != nil {
					return nil, err
				}
				return nil, refusal.Newf("@%s is already in the channel; leave them out.", u.Username)
			}
		}
		out = append(out, posting.Person{ID: u.Id, Username: u.Username})
	}
	return out, nil
}

// addedNotes say how each added person learns of it: Mattermost posts that
// they were added, which counts as a mention of them.
func addedNotes(c *mattermost.Caller, members []posting.Person, place string) []string {
	me := "you"
	if u, err := c.Me(); err == nil {
		me = "@" + u.Username
	}
	notes := make([]string, 0, len(members))
	for _, m := range members {
		notes = append(notes, fmt.Sprintf("@%s is notified: Mattermost posts “@%s added to the channel by %s.” in %s, which counts as a mention of them.", m.Username, m.Username, me, place))
	}
	return notes
}
