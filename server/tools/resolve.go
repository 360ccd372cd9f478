package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ---- resolving a channel argument

// channelOf is the caller of the request and the channel ref names, as
// resolveChannel finds it.
func (d Deps) channelOf(ctx context.Context, ref, teamRef string) (*mattermost.Caller, place, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return nil, place{}, err
	}
	view, err := resolveChannel(c, ref, teamRef)
	return c, view, err
}

// resolveChannel finds the one channel the caller can read that ref names:
// an id, ~name, name, display name, @username of a direct message, or a
// channel URL or post permalink. A channel the caller cannot read is never
// told apart from one that does not exist.
func resolveChannel(c *mattermost.Caller, ref, teamRef string) (place, error) {
	ms, err := c.Teams()
	if err != nil {
		return place{}, err
	}
	team, err := pickTeam(ms, teamRef)
	if err != nil {
		return place{}, err
	}
	teams := map[string]*model.Team{}
	for _, m := range ms {
		teams[m.Team.Id] = m.Team
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return place{}, refusal.New("Give channel: an id, a ~name, a display name, a direct message's @username, or a channel link.", "Call list_channels to see yours.")
	}
	if model.IsValidId(ref) {
		// By id: that one channel and the caller's membership of it, not
		// every channel of theirs.
		ch, err := c.Channel(ref)
		if errors.Is(err, mattermost.ErrNotFound) {
			mine, err := c.MyChannels()
			if err != nil {
				return place{}, err
			}
			return place{}, noChannel(ref, mine)
		}
		if err != nil {
			return place{}, err
		}
		m, member, err := c.MyChannel(ch)
		if err != nil {
			return place{}, err
		}
		if member {
			return placeOfMine(m), nil
		}
		return place{ch: ch, team: teams[ch.TeamId]}, nil
	}
	mine, err := c.MyChannels()
	if err != nil {
		return place{}, err
	}
	byID := map[string]mattermost.MyChannel{}
	for _, m := range mine {
		byID[m.Channel.Id] = m
	}
	// found describes a channel the caller can read, member or not.
	found := func(ch *model.Channel) place {
		if m, ok := byID[ch.Id]; ok {
			return placeOfMine(m)
		}
		return place{ch: ch, team: teams[ch.TeamId]}
	}
	none := func() (place, error) { return place{}, noChannel(ref, mine) }
	if link, ok := names.ParseLink(ref); ok {
		return resolveLink(c, link, ms, mine, found, none)
	}
	var matches []mattermost.MyChannel
	for _, m := range mine {
		if team != nil && m.Channel.TeamId != "" && m.Channel.TeamId != team.Id {
			continue
		}
		v := placeOfMine(m)
		// The display name as listed (hidden characters shown) finds it too.
		if names.Same(ref, m.Channel.Name) || names.Same(ref, v.name()) || names.Same(ref, present.Name(v.name())) {
			matches = append(matches, m)
		}
	}
	switch len(matches) {
	case 1:
		return placeOfMine(matches[0]), nil
	case 0:
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "Several channels match %q:\n", present.Name(ref))
		for _, m := range matches {
			fmt.Fprintf(&b, "- %s\n", placeOfMine(m).shown())
		}
		return place{}, refusal.New(b.String(), "Call again with the channel's id (or give team).")
	}
	// A public channel the caller has not joined, by its exact name.
	urlName := strings.ToLower(strings.Join(strings.Fields(strings.TrimLeft(ref, "~")), "-"))
	var public []*model.Channel
	for _, m := range ms {
		if team != nil && m.Team.Id != team.Id {
			continue
		}
		ch, err := c.ChannelByName(m.Team.Id, urlName)
		if errors.Is(err, mattermost.ErrNotFound) {
			continue
		}
		if err != nil {
			return place{}, err
		}
		public = append(public, ch)
	}
	if len(public) == 1 {
		return found(public[0]), nil
	}
	if len(public) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "Several channels match %q:\n", present.Name(ref))
		for _, ch := range public {
			fmt.Fprintf(&b, "- %s\n", found(ch).shown())
		}
		return place{}, refusal.New(b.String(), "Call again with the channel's id (or give team).")
	}
	return none()
}

func resolveLink(c *mattermost.Caller, link names.Link, ms []mattermost.Membership, mine []mattermost.MyChannel,
	found func(*model.Channel) place, none func() (place, error)) (place, error) {
	switch {
	case link.Post != "":
		p, err := c.Post(link.Post)
		if errors.Is(err, mattermost.ErrNotFound) {
			return none()
		}
		if err != nil {
			return place{}, err
		}
		ch, err := c.Channel(p.ChannelId)
		if errors.Is(err, mattermost.ErrNotFound) {
			return none()
		}
		if err != nil {
			return place{}, err
		}
		return found(ch), nil
	case link.Channel != "":
		for _, m := range ms {
			if m.Team.Name != strings.ToLower(link.Team) {
				continue
			}
			ch, err := c.ChannelByName(m.Team.Id, link.Channel)
			if errors.Is(err, mattermost.ErrNotFound) {
				return none()
			}
			if err != nil {
				return place{}, err
			}
			return found(ch), nil
		}
	case link.Person != "":
		for _, m := range mine {
			if m.Channel.Type == model.ChannelTypeDirect && m.Other != nil && strings.EqualFold(m.Other.Username, link.Person) {
				return placeOfMine(m), nil
			}
		}
	case link.Group != "":
		for _, m := range mine {
			if m.Channel.Type == model.ChannelTypeGroup && m.Channel.Name == link.Group {
				return placeOfMine(m), nil
			}
		}
	}
	return none()
}

// noChannel is the refusal for a name that matches nothing the caller can
// read, with the closest of the caller's own channels.
func noChannel(ref string, mine []mattermost.MyChannel) error {
	cands := make([]names.Candidate, 0, len(mine))
	byID := map[string]mattermost.MyChannel{}
	for _, m := range mine {
		byID[m.Channel.Id] = m
		cands = append(cands, names.Candidate{Key: m.Channel.Id, Names: []string{m.Channel.Name, placeOfMine(m).name()}})
	}
	msg := fmt.Sprintf("No channel matches %q.", present.Name(ref))
	if closest := names.Closest(ref, cands, closestShown); len(closest) > 0 {
		var labels []string
		for _, id := range closest {
			labels = append(labels, placeOfMine(byID[id]).shown())
		}
		msg += " Closest: " + strings.Join(labels, "; ") + "."
	}
	return refusal.New(msg, "Call list_channels to see all your channels, or search_channels to find public ones.")
}
