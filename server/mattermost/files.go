package mattermost

import (
	"fmt"
	"strings"

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

// FileQuery narrows search_files.
type FileQuery struct {
	NameContains string // case-insensitive substring of the file name
	Extension    string // without the dot, case-insensitive
	ChannelID    string // one channel the caller can read; empty for all of theirs
	Since        int64  // created at or after, Unix ms; 0 for any
	Before       int64  // created before, Unix ms; 0 for any
	// AnyWord, when set, keeps files whose name or text (as Mattermost
	// extracted it, FileSettings.ExtractContent) holds one of these
	// lower-case words.
	AnyWord []string
	Limit   int
}

const (
	// filePageSize is how many file infos one plugin API call returns.
	filePageSize = 200
	// fileScanPages bounds the scan for a name or extension filter, so a
	// search over a busy server answers in bounded time.
	fileScanPages = 10
)

// SearchFiles lists attachments in channels the caller is a member of,
// newest first. Scanned is false when the scan stopped at its bound before
// reaching the oldest file.
func (c *Caller) SearchFiles(q FileQuery) (found []*model.FileInfo, complete bool, err error) {
	var channelIDs []string
	if q.ChannelID != "" {
		if _, err := c.Channel(q.ChannelID); err != nil {
			return nil, false, err
		}
		channelIDs = []string{q.ChannelID}
	} else {
		channelIDs, err = c.memberChannelIDs()
		if err != nil {
			return nil, false, err
		}
		if len(channelIDs) == 0 {
			return nil, true, nil
		}
	}
	opts := &model.GetFileInfosOptions{ChannelIds: channelIDs, Since: q.Since, SortBy: model.FileinfoSortByCreated, SortDescending: true}
	name, ext := strings.ToLower(q.NameContains), strings.ToLower(strings.TrimPrefix(q.Extension, "."))
	for page := 0; page < fileScanPages; page++ {
		infos, appErr := c.g.raw.GetFileInfos(page, filePageSize, opts)
		if appErr != nil {
			return nil, false, fmt.Errorf("list files: %w", appErr)
		}
		for _, info := range infos {
			switch {
			case info.DeleteAt != 0 || info.PostId == "":
				continue
			case q.Before != 0 && info.CreateAt >= q.Before:
				continue
			case name != "" && !strings.Contains(strings.ToLower(info.Name), name):
				continue
			case ext != "" && strings.ToLower(info.Extension) != ext:
				continue
			case len(q.AnyWord) > 0 && !holdsAnyWord(info, q.AnyWord):
				continue
			}
			// Checked again one by one: the channel filter is Mattermost's,
			// the permission decision is ours.
			if _, err := c.File(info.Id); err != nil {
				continue
			}
			found = append(found, info)
			if len(found) >= q.Limit {
				return found, false, nil
			}
		}
		if len(infos) < filePageSize {
			return found, true, nil
		}
	}
	return found, false, nil
}

// holdsAnyWord reports whether a file's name or extracted text holds one
// of words (lower case).
func holdsAnyWord(info *model.FileInfo, words []string) bool {
	name, text := strings.ToLower(info.Name), strings.ToLower(info.Content)
	for _, w := range words {
		if strings.Contains(name, w) || strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// memberChannelIDs lists every channel the caller belongs to, across their
// teams, with direct and group messages once.
func (c *Caller) memberChannelIDs() ([]string, error) {
	teams, appErr := c.g.raw.GetTeamsForUser(c.userID)
	if appErr != nil {
		return nil, fmt.Errorf("list teams: %w", appErr)
	}
	seen := map[string]bool{}
	var ids []string
	for _, t := range teams {
		chans, err := c.g.api.Channel.ListForTeamForUser(t.Id, c.userID, false)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("list channels: %w", err)
		}
		for _, ch := range chans {
			if !seen[ch.Id] {
				seen[ch.Id] = true
				ids = append(ids, ch.Id)
			}
		}
	}
	return ids, nil
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
