package mattermost

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

// The plugin API (server/public v0.1.22, plugin/api.go) has no call for
// drafts: only model.Draft exists. Drafts are read from Mattermost's Drafts
// table the way its store lists them for the drafts view, and each draft's
// channel is checked like any other.

// maxDrafts bounds how many drafts one listing reads: Mattermost keeps
// one per channel and thread, and a person with more than this many should
// narrow by team.
const maxDrafts = 1000

// Draft is an unsent message of the caller's, in a channel they can read.
type Draft struct {
	Channel  *model.Channel
	RootID   string
	Message  string
	Files    []*model.FileInfo
	UpdateAt int64
}

// DraftsSynced reports whether the server keeps drafts
// (ServiceSettings.AllowSyncedDrafts); when it does not, drafts live only
// in each app.
func (c *Caller) DraftsSynced() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.ServiceSettings.AllowSyncedDrafts })
}

// Drafts are the caller's drafts, newest change first, in channels of the
// team teamID (one of theirs) and in direct and group messages, or in every
// channel when teamID is empty. Drafts in channels they can no longer read
// are left out. More reports that maxDrafts cut the list.
func (c *Caller) Drafts(teamID string) (drafts []Draft, more bool, err error) {
	if teamID != "" {
		if _, err := c.myTeam(teamID); err != nil {
			return nil, false, err
		}
	}
	p, err := placeholders(c.g.driverName(), 3)
	if err != nil {
		return nil, false, err
	}
	query := "SELECT d.ChannelId, d.RootId, d.Message, d.FileIds, d.UpdateAt FROM Drafts d JOIN Channels ch ON ch.Id = d.ChannelId" +
		" WHERE d.UserId = " + p[0] + " AND d.DeleteAt = 0 AND (" + p[1] + " = '' OR ch.TeamId = " + p[2] + " OR ch.TeamId = '')" +
		fmt.Sprintf(" ORDER BY d.UpdateAt DESC, d.ChannelId, d.RootId LIMIT %d", maxDrafts+1)
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, false, fmt.Errorf("database: %w", err)
	}
	rows, err := db.Query(query, c.userID, teamID, teamID)
	if err != nil {
		return nil, false, fmt.Errorf("list drafts: %w", err)
	}
	defer closeRows(rows)
	type row struct {
		channelID, rootID, message, fileIDs string
		at                                  int64
	}
	var found []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.channelID, &r.rootID, &r.message, &r.fileIDs, &r.at); err != nil {
			return nil, false, fmt.Errorf("list drafts: %w", err)
		}
		found = append(found, r)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("list drafts: %w", err)
	}
	if len(found) > maxDrafts {
		found, more = found[:maxDrafts], true
	}
	channels := map[string]*model.Channel{}
	for _, r := range found {
		ch, seen := channels[r.channelID]
		if !seen {
			ch, err = c.Channel(r.channelID)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return nil, false, err
			}
			if ch != nil && ch.DeleteAt != 0 {
				ch = nil
			}
			channels[r.channelID] = ch
		}
		if ch == nil {
			continue
		}
		files, err := c.draftFiles(r.fileIDs)
		if err != nil {
			return nil, false, err
		}
		if r.message == "" && len(files) == 0 {
			continue
		}
		drafts = append(drafts, Draft{Channel: ch, RootID: r.rootID, Message: r.message, Files: files, UpdateAt: r.at})
	}
	return drafts, more, nil
}

// draftFiles are a draft's attachments (a JSON list of ids) the caller can
// read: uploaded by them and not posted yet, or already posted where they
// can read.
func (c *Caller) draftFiles(raw string) ([]*model.FileInfo, error) {
	var ids []string
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &ids); err != nil {
			// Not a list Mattermost wrote: no file of it can be shown.
			return nil, nil //nolint:nilerr
		}
	}
	var out []*model.FileInfo
	for _, id := range ids {
		f, err := c.File(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f.Info())
	}
	return out, nil
}
