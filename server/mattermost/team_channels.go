package mattermost

import (
	"errors"
	"fmt"
	"sort"

	"github.com/mattermost/mattermost/server/public/model"
)

// ViewArchivedChannels is TeamSettings.ExperimentalViewArchivedChannels:
// whether people may see and read archived channels at all.
// It is the value the read checks use (policy), so what list_team_channels
// and get_channel report is what they enforce.
func (c *Caller) ViewArchivedChannels() bool { return c.policy().viewArchived }

// TeamPublicChannels are a page of the public channels of one of the
// caller's teams that they may browse (and so join), in display name order,
// as Mattermost lists them in "Browse channels".
func (c *Caller) TeamPublicChannels(teamID string, page, perPage int) ([]*model.Channel, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	if !c.may("", teamID, model.PermissionListTeamChannels) {
		return nil, nil
	}
	list, err := c.g.api.Channel.ListPublicChannelsForTeam(teamID, page, perPage)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("list public channels: %w", err)
	}
	out := list[:0:0]
	for _, ch := range list {
		if ch.Type == model.ChannelTypeOpen && ch.DeleteAt == 0 && ch.TeamId == teamID {
			out = append(out, ch)
		}
	}
	return out, nil
}

// TeamArchivedChannels are the archived channels of one of the caller's
// teams that they can read, in display name order: none while the server
// hides archived channels (ViewArchivedChannels).
func (c *Caller) TeamArchivedChannels(teamID string) ([]*model.Channel, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	if !c.ViewArchivedChannels() {
		return nil, nil
	}
	mine, err := c.teamListed(teamID)
	if err != nil {
		return nil, err
	}
	var out []*model.Channel
	for _, ch := range mine {
		if ch.DeleteAt == 0 || ch.TeamId != teamID {
			continue
		}
		// Read through Channel, which decides who may read an archived
		// channel.
		if readable, err := c.Channel(ch.Id); err == nil {
			out = append(out, readable)
		} else if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DisplayName < out[j].DisplayName })
	return out, nil
}
