package mattermost

import (
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// What Mattermost shows around a post's message that the plugin API does
// not hand a plugin with the post: its reactions (posts come without
// metadata), its thread's reply count and latest reply
// (filled only on collapsed-threads reads), and whether the caller reads channels with
// collapsed reply threads.

// ReactionGroup is one emoji's reactions to a post: how many, and who
// reacted first, in the order they reacted.
type ReactionGroup struct {
	Emoji   string
	Count   int
	UserIDs []string
}

// PostReactions are the reactions to posts the caller has read, by post id:
// each post's emoji in the order they were first used (as Mattermost lists
// them), each with its count and its first perEmoji people. Posts that
// carry their metadata answer from it; the others, when they have
// reactions, from one database query for all of them (the plugin API reads
// one post's reactions per call), or one call each without the database.
func (c *Caller) PostReactions(posts []*model.Post, perEmoji int) (map[string][]ReactionGroup, error) {
	out := map[string][]ReactionGroup{}
	var ask []string
	for _, p := range posts {
		switch {
		case p.Metadata != nil && len(p.Metadata.Reactions) > 0:
			out[p.Id] = groupReactions(p.Metadata.Reactions, perEmoji)
		case p.HasReactions:
			ask = append(ask, p.Id)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	if !c.g.hasDB {
		for _, id := range ask {
			rs, appErr := c.g.raw.GetReactions(id)
			if appErr != nil {
				return nil, fmt.Errorf("read reactions: %w", appErr)
			}
			if len(rs) > 0 {
				out[id] = groupReactions(rs, perEmoji)
			}
		}
		return out, nil
	}
	q, err := reactionsQuery(c.g.driverName(), len(ask))
	if err != nil {
		return nil, err
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	args := make([]any, 0, len(ask)+1)
	for _, id := range ask {
		args = append(args, id)
	}
	args = append(args, perEmoji)
	err = queryRows(db, q, args, 4, func(scan func(...any) error) error {
		var postID, emoji, userID string
		var count int
		if err := scan(&postID, &emoji, &userID, &count); err != nil {
			return err
		}
		groups := out[postID]
		i := len(groups) - 1
		for ; i >= 0 && groups[i].Emoji != emoji; i-- {
		}
		if i < 0 {
			groups = append(groups, ReactionGroup{Emoji: emoji, Count: count})
			i = len(groups) - 1
		}
		groups[i].UserIDs = append(groups[i].UserIDs, userID)
		out[postID] = groups
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read reactions: %w", err)
	}
	return out, nil
}

// reactionsQuery reads the first reactors of each emoji of n posts with
// the emoji's count, in the order of reacting: its arguments are the n
// post ids, then how many reactors per emoji.
func reactionsQuery(driver string, n int) (string, error) {
	p, err := placeholders(driver, n+1)
	if err != nil {
		return "", err
	}
	return `SELECT PostId, EmojiName, UserId, n FROM (
		SELECT PostId, EmojiName, UserId, CreateAt,
			ROW_NUMBER() OVER (PARTITION BY PostId, EmojiName ORDER BY CreateAt, UserId) AS rn,
			COUNT(*) OVER (PARTITION BY PostId, EmojiName) AS n
		FROM Reactions WHERE PostId IN (` + strings.Join(p[:n], ", ") + `) AND DeleteAt = 0) r
		WHERE rn <= ` + p[n] + ` ORDER BY PostId, CreateAt, UserId`, nil
}

// groupReactions groups reactions by emoji in the order each emoji was
// first used, keeping the first perEmoji people of each.
func groupReactions(rs []*model.Reaction, perEmoji int) []ReactionGroup {
	sorted := make([]*model.Reaction, 0, len(rs))
	for _, r := range rs {
		if r != nil && r.DeleteAt == 0 {
			sorted = append(sorted, r)
		}
	}
	sortReactions(sorted)
	var out []ReactionGroup
	at := map[string]int{}
	for _, r := range sorted {
		i, ok := at[r.EmojiName]
		if !ok {
			i = len(out)
			at[r.EmojiName] = i
			out = append(out, ReactionGroup{Emoji: r.EmojiName})
		}
		out[i].Count++
		if len(out[i].UserIDs) < perEmoji {
			out[i].UserIDs = append(out[i].UserIDs, r.UserId)
		}
	}
	return out
}

func sortReactions(rs []*model.Reaction) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && reactedBefore(rs[j], rs[j-1]); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func reactedBefore(a, b *model.Reaction) bool {
	if a.CreateAt != b.CreateAt {
		return a.CreateAt < b.CreateAt
	}
	return a.UserId < b.UserId
}

// Thread is what Mattermost keeps of a thread for collapsed reply threads.
type Thread struct {
	ReplyCount  int64
	LastReplyAt int64
}

// Threads are the threads of the given roots (posts the caller has read),
// by root id, from Mattermost's Threads table: what its API answers with
// collapsed threads on (the plugin API's first page of a channel comes
// without reply counts). Roots without a thread are left out, and so is
// everything on a gateway without the database.
func (c *Caller) Threads(rootIDs []string) (map[string]Thread, error) {
	out := map[string]Thread{}
	if len(rootIDs) == 0 || !c.g.hasDB {
		return out, nil
	}
	if kept, ok := c.keptThreads(rootIDs); ok {
		return kept, nil // read with the roots' priority (PostMeta)
	}
	p, err := placeholders(c.g.driverName(), len(rootIDs))
	if err != nil {
		return nil, err
	}
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	args := make([]any, len(rootIDs))
	for i, id := range rootIDs {
		args[i] = id
	}
	err = queryRows(db, `SELECT PostId, ReplyCount, LastReplyAt FROM Threads WHERE PostId IN (`+strings.Join(p, ", ")+`)`, args, 3, func(scan func(...any) error) error {
		var id string
		var t Thread
		if err := scan(&id, &t.ReplyCount, &t.LastReplyAt); err != nil {
			return err
		}
		out[id] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read threads: %w", err)
	}
	return out, nil
}

// CollapsedThreads reports whether the caller reads channels with
// collapsed reply threads, decided as Mattermost decides it
// (App.IsCRTEnabledForUser).
func (c *Caller) CollapsedThreads() bool {
	setting := ""
	if cfg := c.g.config(); cfg != nil && cfg.ServiceSettings.CollapsedThreads != nil {
		setting = *cfg.ServiceSettings.CollapsedThreads
	}
	choice := ""
	if setting == model.CollapsedThreadsDefaultOn || setting == model.CollapsedThreadsDefaultOff {
		pref, appErr := c.g.raw.GetPreferenceForUser(c.userID, model.PreferenceCategoryDisplaySettings, model.PreferenceNameCollapsedThreadsEnabled)
		if appErr == nil {
			choice = pref.Value
		}
	}
	return collapsedFor(setting, choice)
}

// collapsedFor is Mattermost's decision: ServiceSettings.CollapsedThreads
// (always_on, default_on, default_off, disabled; a server without the
// setting has no collapsed threads), then, where the server lets people
// choose, the person's own display setting ("on" or "off"; "" for none).
func collapsedFor(setting, choice string) bool {
	switch setting {
	case model.CollapsedThreadsAlwaysOn:
		return true
	case model.CollapsedThreadsDefaultOn, model.CollapsedThreadsDefaultOff:
		if choice != "" {
			return choice == "on"
		}
		return setting == model.CollapsedThreadsDefaultOn
	}
	return false
}

// keepThreads keeps, for this call, the thread rows read for roots.
func (c *Caller) keepThreads(roots []any, threads map[string]Thread) {
	c.memo.mu.Lock()
	defer c.memo.mu.Unlock()
	c.memo.fresh()
	c.memo.threads, c.memo.threadsOf = threads, make(map[string]bool, len(roots))
	for _, r := range roots {
		if id, ok := r.(string); ok {
			c.memo.threadsOf[id] = true
		}
	}
}

// keptThreads answers Threads from what keepThreads kept, when it was read
// for every one of rootIDs.
func (c *Caller) keptThreads(rootIDs []string) (map[string]Thread, bool) {
	c.memo.mu.Lock()
	defer c.memo.mu.Unlock()
	c.memo.fresh()
	if c.memo.threadsOf == nil {
		return nil, false
	}
	out := make(map[string]Thread, len(rootIDs))
	for _, id := range rootIDs {
		if !c.memo.threadsOf[id] {
			return nil, false
		}
		if t, ok := c.memo.threads[id]; ok {
			out[id] = t
		}
	}
	return out, true
}
