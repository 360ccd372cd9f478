package mattermost

import (
	"github.com/mattermost/mattermost/server/public/model"
)

// PostPlace is where a post lives, for permalinks and descriptions.
type PostPlace struct {
	Channel  *model.Channel
	TeamName string // empty for direct and group messages
}

// PlaceOf finds the channel and team of a file File cleared for the caller
// (so the channel's permission is not checked twice).
func (c *Caller) PlaceOf(f Readable) (PostPlace, error) {
	ch, err := c.channel(f.channelID)
	if err != nil {
		return PostPlace{}, notFoundOr(err, "read channel")
	}
	place := PostPlace{Channel: ch}
	if ch.TeamId != "" {
		team, ok := c.keptTeam(ch.TeamId)
		if ok {
			place.TeamName = team.Name
			return place, nil
		}
		team, err := c.team(ch.TeamId)
		if err != nil {
			return PostPlace{}, notFoundOr(err, "read team")
		}
		place.TeamName = team.Name
	}
	return place, nil
}

// StoredThumbnail is the thumbnail Mattermost wrote of an image attachment
// File has already cleared for the caller (already upright, a small JPEG or
// PNG).
// ok is false when there is none, it cannot be read (the file store answers
// a missing file as any other failure, and reading the image itself says
// which it was), or what is stored is over maxBytes and so none of
// Mattermost's.
func (c *Caller) StoredThumbnail(f Readable, maxBytes int) (data []byte, ok bool) {
	if f.info == nil || f.info.ThumbnailPath == "" {
		return nil, false
	}
	data, appErr := c.g.raw.ReadFile(f.info.ThumbnailPath)
	if appErr != nil || len(data) == 0 || len(data) > maxBytes {
		return nil, false
	}
	return data, true
}
