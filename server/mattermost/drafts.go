package mattermost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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
	type row struct {
		channelID, rootID, message, fileIDs string
		at                                  int64
	}
	var found []row
	err = queryRows(db, query, []any{c.userID, teamID, teamID}, 5, func(scan func(...any) error) error {
		var r row
		if err := scan(&r.channelID, &r.rootID, &r.message, &r.fileIDs, &r.at); err != nil {
			return err
		}
		found = append(found, r)
		return nil
	})
	if err != nil {
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

// Scheduled posts are Mattermost's own: kept by the server, sent by its
// scheduler at their time, and listed in the person's Scheduled view,
// where they can change or delete them before then. Mattermost refuses
// them without a licence or with ServiceSettings.ScheduledPosts off, and
// the plugin API has no method for them, so they are made through the REST
// API as the caller, like the own-view changes.

// ScheduledPostsOn reports whether ServiceSettings.ScheduledPosts is on
// (the licence is checked apart: the plugin API hands it over on its own).
func ScheduledPostsOn(cfg *model.Config) bool {
	return cfg != nil && Setting(cfg.ServiceSettings.ScheduledPosts)
}

// ScheduledPost is a post to send later: where, what, and when.
type ScheduledPost struct {
	ChannelID, RootID, Message string
	Props                      map[string]any
	At                         time.Time
}

// SchedulePost has Mattermost send a post as the caller at its time, after
// checking that the caller can still post in the channel (and that a
// thread root is in it). It answers the scheduled post's id.
func (c *Caller) SchedulePost(ctx context.Context, p ScheduledPost) (string, error) {
	post, _, err := c.MayPost(p.ChannelID)
	if err != nil {
		return "", err
	}
	if !post {
		return "", ErrCannotPost
	}
	if p.RootID != "" {
		root, err := c.Post(p.RootID)
		if err != nil {
			return "", err
		}
		if root.ChannelId != p.ChannelID {
			return "", ErrNotFound
		}
	}
	client, err := c.rest()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	sp := &model.ScheduledPost{Draft: model.Draft{UserId: c.userID, ChannelId: p.ChannelID, RootId: p.RootID, Message: p.Message},
		ScheduledAt: p.At.UnixMilli()}
	if len(p.Props) > 0 {
		sp.SetProps(p.Props)
	}
	created, resp, err := client.CreateScheduledPost(ctx, sp)
	var appErr *model.AppError
	if errors.As(err, &appErr) && (appErr.Id == "api.scheduled_posts.license_error" || appErr.Id == "api.scheduled_posts.feature_disabled") {
		return "", ErrTurnedOff
	}
	if err := restErr("schedule post", resp, err); err != nil {
		return "", err
	}
	return created.Id, nil
}

// SaveDraft puts message in the caller's message box of a channel they can
// post in (or of a thread there, rootID being any post of it), replacing
// the draft that was there. The caller sends it themselves.
func (v *OwnView) SaveDraft(ctx context.Context, channelID, rootID, message string) (*model.Draft, error) {
	if !v.c.DraftsSynced() {
		return nil, ErrDraftsOff
	}
	post, _, err := v.c.MayPost(channelID)
	if err != nil {
		return nil, err
	}
	if !post {
		return nil, ErrCannotPost
	}
	if rootID != "" {
		if rootID, err = v.threadIn(channelID, rootID); err != nil {
			return nil, err
		}
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	d, resp, err := client.UpsertDraft(ctx, &model.Draft{UserId: v.c.userID, ChannelId: channelID, RootId: rootID, Message: message})
	if err := restErr("save draft", resp, err); err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDraft empties the caller's message box of a channel they can read
// (or of a thread there). No draft there is not an error. It answers the
// thread's root id ("" for the channel's own box).
func (v *OwnView) DeleteDraft(ctx context.Context, channelID, rootID string) (string, error) {
	if !v.c.DraftsSynced() {
		return "", ErrDraftsOff
	}
	if _, err := v.c.Channel(channelID); err != nil {
		return "", err
	}
	var err error
	if rootID != "" {
		if rootID, err = v.threadIn(channelID, rootID); err != nil {
			return "", err
		}
	}
	client, err := v.rest()
	if err != nil {
		return "", err
	}
	route := "/users/" + v.c.userID + "/channels/" + channelID + "/drafts"
	if rootID != "" {
		route += "/" + rootID
	}
	r, err := client.DoAPIDelete(ctx, route)
	return rootID, closeResponse("delete draft", r, err)
}
