package mattermost

import (
	"fmt"
	"sort"

	"github.com/mattermost/mattermost/server/public/model"
)

// ChannelPosts is up to n posts of a channel the caller can read, newest
// first, older than the post before (or the newest when before is empty).
// A before post that is not in that channel is not found.
func (c *Caller) ChannelPosts(channelID, before string, n int) ([]*model.Post, error) {
	if _, err := c.Channel(channelID); err != nil {
		return nil, err
	}
	var list *model.PostList
	var err error
	if before == "" {
		list, err = c.g.api.Post.GetPostsForChannel(channelID, 0, n)
	} else {
		anchor, aerr := c.Post(before)
		if aerr != nil {
			return nil, aerr
		}
		if anchor.ChannelId != channelID {
			return nil, ErrNotFound
		}
		list, err = c.g.api.Post.GetPostsBefore(channelID, before, 0, n)
	}
	if err != nil {
		return nil, notFoundOr(err, "read channel posts")
	}
	return ordered(list), nil
}

// Thread is the thread a post the caller can read belongs to: the root
// first, then the replies oldest first.
func (c *Caller) Thread(postID string) ([]*model.Post, error) {
	p, err := c.Post(postID)
	if err != nil {
		return nil, err
	}
	rootID := p.Id
	if p.RootId != "" {
		rootID = p.RootId
	}
	list, err := c.g.api.Post.GetPostThread(rootID)
	if err != nil {
		return nil, notFoundOr(err, "read thread")
	}
	var out []*model.Post
	for _, q := range list.Posts {
		if q.DeleteAt == 0 && q.ChannelId == p.ChannelId && (q.Id == rootID || q.RootId == rootID) {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Id == rootID) != (out[j].Id == rootID) {
			return out[i].Id == rootID
		}
		if out[i].CreateAt != out[j].CreateAt {
			return out[i].CreateAt < out[j].CreateAt
		}
		return out[i].Id < out[j].Id
	})
	return out, nil
}

// SearchPosts runs Mattermost's post search (its own syntax: from:, in:,
// before:, after:, on:, quotes, -exclusions) as the caller in one of their
// teams, dates in UTC. Each hit is checked again: only posts the caller can
// read come back, newest first.
func (c *Caller) SearchPosts(teamID, terms string, page, perPage int) ([]*model.Post, error) {
	return c.search(teamID, terms, false, page, perPage)
}

// search is SearchPosts, matching any of the terms when anyTerm is set.
func (c *Caller) search(teamID, terms string, anyTerm bool, page, perPage int) ([]*model.Post, error) {
	if _, err := c.myTeam(teamID); err != nil {
		return nil, err
	}
	utc := 0
	// Archived channels are searched as the webapp searches them: when the
	// server lets people view archived channels.
	archived := c.policy().viewArchived
	res, appErr := c.g.raw.SearchPostsInTeamForUser(teamID, c.userID, model.SearchParameter{
		Terms: &terms, IsOrSearch: &anyTerm, TimeZoneOffset: &utc, Page: &page, PerPage: &perPage, IncludeDeletedChannels: &archived,
	})
	if appErr != nil {
		return nil, fmt.Errorf("search posts: %w", appErr)
	}
	if res == nil || res.PostList == nil {
		return nil, nil
	}
	canRead := c.readCheck()
	var out []*model.Post
	for _, p := range ordered(res.PostList) {
		if canRead(p.ChannelId) {
			out = append(out, p)
		}
	}
	return out, nil
}

// PostFiles are the attachments of a post the caller has already read
// through this Caller, in the post's order. Deleted ones are left out.
func (c *Caller) PostFiles(p *model.Post) ([]*model.FileInfo, error) {
	var out []*model.FileInfo
	for _, id := range p.FileIds {
		info, err := c.g.api.File.GetInfo(id)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("read file info: %w", err)
		}
		if info.DeleteAt != 0 || info.PostId != p.Id {
			continue
		}
		out = append(out, info)
	}
	return out, nil
}

// ordered is a post list in its own order, without deleted posts.
func ordered(list *model.PostList) []*model.Post {
	if list == nil {
		return nil
	}
	out := make([]*model.Post, 0, len(list.Order))
	for _, id := range list.Order {
		if p, ok := list.Posts[id]; ok && p.DeleteAt == 0 {
			out = append(out, p)
		}
	}
	return out
}

// Authors are the accounts of people whose posts the caller has read through
// this Caller, by id, as Mattermost shows them to the caller. Unknown ids,
// and people a restricted caller may not see, are left out.
func (c *Caller) Authors(ids []string) (map[string]*model.User, error) {
	out := make(map[string]*model.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	users, err := c.g.api.User.ListByUserIDs(ids)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("read post authors: %w", err)
	}
	for _, u := range users {
		out[u.Id] = u
	}
	if err := c.visibleOnly(out); err != nil {
		return nil, err
	}
	for id, u := range out {
		out[id] = c.shown(u)
	}
	return out, nil
}
