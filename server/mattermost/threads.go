package mattermost

import (
	"context"
	"fmt"
	"sort"

	"github.com/mattermost/mattermost/server/public/model"
)

// The plugin API has no call for the threads a user follows (plugin.API
// offers GetPostThread, never thread memberships; PluginHTTP reaches only
// other plugins, not the REST API). Mattermost keeps them in its
// ThreadMemberships and Threads tables, which this reads the way
// Mattermost's own GET /users/{id}/teams/{team}/threads does
// (SqlThreadStore.GetThreadsForUser): followed, not deleted, unread replies
// counted after the membership's LastViewed.

// FollowedThread is a thread the caller follows, with Mattermost's own
// unread counts for them.
type FollowedThread struct {
	RootID         string
	ChannelID      string
	ReplyCount     int64
	LastReplyAt    int64
	LastViewedAt   int64
	UnreadReplies  int64
	UnreadMentions int64
}

// FollowedThreads are up to max threads the caller follows in channels they
// can still read: those with unread replies first, then by latest reply.
// more says whether the caller follows more threads than max.
func (c *Caller) FollowedThreads(max int) (threads []FollowedThread, more bool, err error) {
	p, err := placeholders(c.g.driverName(), 2)
	if err != nil {
		return nil, false, err
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, false, fmt.Errorf("database: %w", err)
	}
	err = queryRows(db, `SELECT Threads.PostId, Threads.ChannelId, Threads.ReplyCount, Threads.LastReplyAt,
		ThreadMemberships.LastViewed, ThreadMemberships.UnreadMentions,
		(SELECT COUNT(Posts.Id) FROM Posts WHERE Posts.RootId = ThreadMemberships.PostId
			AND Posts.CreateAt > ThreadMemberships.LastViewed AND Posts.DeleteAt = 0) AS UnreadReplies
		FROM Threads JOIN ThreadMemberships ON ThreadMemberships.PostId = Threads.PostId
		WHERE ThreadMemberships.UserId = `+p[0]+` AND ThreadMemberships.Following = true
			AND COALESCE(Threads.ThreadDeleteAt, 0) = 0
		ORDER BY Threads.LastReplyAt DESC LIMIT `+p[1], []any{c.userID, max + 1}, 7, func(scan func(...any) error) error {
		var t FollowedThread
		if err := scan(&t.RootID, &t.ChannelID, &t.ReplyCount, &t.LastReplyAt, &t.LastViewedAt, &t.UnreadMentions, &t.UnreadReplies); err != nil {
			return err
		}
		threads = append(threads, t)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("read followed threads: %w", err)
	}
	if len(threads) > max {
		threads, more = threads[:max], true
	}
	canRead := c.readCheck()
	out := threads[:0]
	for _, t := range threads {
		if canRead(t.ChannelID) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].UnreadReplies > 0 && out[j].UnreadReplies == 0
	})
	return out, more, nil
}

// threadIn is the root of the thread a post belongs to, in channelID; a
// post elsewhere is ErrNotFound.
func (v *OwnView) threadIn(channelID, postID string) (string, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return "", err
	}
	if p.ChannelId != channelID {
		return "", ErrNotFound
	}
	if p.RootId != "" {
		return p.RootId, nil
	}
	return p.Id, nil
}

// FollowThread makes the caller follow, or stop following, the thread of
// a post they can read. It answers the thread's root post.
func (v *OwnView) FollowThread(ctx context.Context, postID string, follow bool) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	if p.RootId != "" {
		if p, err = v.c.Post(p.RootId); err != nil {
			return nil, err
		}
	}
	teamID, err := v.teamOf(p.ChannelId)
	if err != nil {
		return nil, err
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	resp, err := client.UpdateThreadFollowForUser(ctx, v.c.userID, teamID, p.Id, follow)
	if err := restErr("follow thread", resp, err); err != nil {
		return nil, err
	}
	return p, nil
}
