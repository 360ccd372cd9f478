package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tasks"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

// wait_for_reply: an agent that asked a person something in Mattermost
// waits for their answer instead of reading the thread again and again.
// A call holds at most the bound of every waiting call (ADR 0011) and then
// names the call that goes on waiting; a call as a task is followed by the
// client's host until the reply or the end of the wait, read from
// Mattermost at each look (FollowReply), so any node answers for it.

// Bounds of wait_for_reply.
const (
	// defaultReplyWait is how long a wait lasts when not told: a person at
	// their desk answers a direct question within a couple of minutes.
	defaultReplyWait = 2 * time.Minute
	// maxReplyWait bounds one wait: a task of it lives no longer, and a
	// longer silence is better told to the model than waited out.
	maxReplyWait = 10 * time.Minute
	// maxSinceAge is how far back a continued wait (since) may start:
	// replies older than the longest wait are read with read_thread.
	maxSinceAge = maxReplyWait
)

// The states of a wait, in ReplyResult.State.
const (
	stateReplied = "replied"
	stateNoReply = "no_reply"
)

type waitForReplyArgs struct {
	Post    string `json:"post" jsonschema:"Id or permalink of the post whose replies to wait for; in a DM, of any post."`
	Seconds int    `json:"seconds,omitempty" jsonschema:"Max 600; default 120."`
	Since   string `json:"since,omitempty" jsonschema:"From the last answer."`
}

// ReplyResult is wait_for_reply's structured answer. It holds no more
// (the post waited on, since): its text names the next call, and every
// listed byte weighs on tools/list.
type ReplyResult struct {
	// State is "replied" or "no_reply".
	State string `json:"state"`
	// Posts is the reply alone; empty with no_reply.
	Posts []PostView `json:"posts"`
}

func waitForReply(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "wait_for_reply",
		Title:       "Wait for a reply",
		Description: "Waits for someone else's first new reply to a post (id or link; in a DM, any new post); else answers no_reply and the next call.",
		Hints:       catalogue.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
		Effect:      catalogue.ReadsOnly, Toolset: config.ToolsetChannels, Waits: true,
	}, d.waitForReply)
}

func (d Deps) waitForReply(ctx context.Context, args waitForReplyArgs) (res catalogue.Result[ReplyResult], err error) {
	started, answerBy := approval.CallWindow(ctx)
	wait, err := replyWaitOf(args, started)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	post, err := watchedPost(c, wait.PostID, args.Post)
	if err != nil {
		return res, err
	}
	if task := transport.TaskOf(ctx); task != nil {
		// The host follows the task; FollowReply answers it.
		task.AwaitsReply(wait)
		return answer(fmt.Sprintf("Waiting for a reply to post %s until %s, as a task.", wait.PostID, wait.Until.UTC().Format(time.RFC3339)),
			ReplyResult{State: stateNoReply, Posts: []PostView{}})
	}
	release, _, held := transport.HoldWait(ctx)
	defer release()
	if !held {
		// Past the person's share: one look, then the answer to call again.
		if res, done, err := lookForReply(c, wait, args.Post, ""); done || err != nil {
			return res, err
		}
		return noReplyAnswer(wait, time.Now(), 0)
	}
	ctx, stop := transport.WatchCancel(ctx)
	defer stop()
	end := answerBy
	if wait.Until.Before(end) {
		end = wait.Until
	}
	deadline := time.NewTimer(time.Until(end))
	defer deadline.Stop()
	// Woken by a post in the channel on any node; a slow look besides,
	// for a wake that was lost.
	woken, done := d.wait(wake.Channel(post.ChannelId))
	defer done()
	safety := time.NewTicker(wake.SafetyLook)
	defer safety.Stop()
	progress := time.NewTicker(approval.ProgressEvery)
	defer progress.Stop()
	look, woke := true, ""
	for {
		if look {
			// A fresh caller each look: access is checked again every
			// time, never remembered from an earlier look.
			c, err := d.caller(ctx)
			if err != nil {
				return res, err
			}
			if res, done, err := lookForReply(c, wait, args.Post, woke); done || err != nil {
				return res, err
			}
		}
		look, woke = true, ""
		select {
		case <-ctx.Done():
			if transport.CancelledByClient(ctx) {
				transport.DropAnswer(ctx)
			}
			return res, ctx.Err()
		case <-progress.C:
			d.replyProgress(ctx, started, end, wait.PostID)
			look = false // nothing happened
		case woke = <-woken:
		case <-safety.C:
		case <-deadline.C:
			c, err := d.caller(ctx)
			if err != nil {
				return res, err
			}
			if res, done, err := lookForReply(c, wait, args.Post, ""); done || err != nil {
				return res, err
			}
			return noReplyAnswer(wait, time.Now(), answerBy.Sub(started))
		}
	}
}

// FollowReply is where a wait for a reply followed as a task stands, read
// as the person on any node: Working until the reply or the end of the
// wait, then Done with the result the call would have answered.
func (d Deps) FollowReply(_ context.Context, userID string, wait transport.ReplyWait) (tasks.Write, error) {
	c := d.MM.As(userID)
	res, done, err := lookForReply(c, wait, wait.PostID, "")
	if r, ok := refusal.As(err); ok {
		return tasks.Write{State: tasks.Done, Result: mcp.NewToolResultError(r.Error())}, nil
	}
	if err != nil {
		return tasks.Write{}, err
	}
	if done {
		return tasks.Write{State: tasks.Done, Result: res.ToolResult()}, nil
	}
	now := time.Now()
	if !now.Before(wait.Until) {
		res, err := noReplyAnswer(wait, now, 0)
		if err != nil {
			return tasks.Write{}, err
		}
		return tasks.Write{State: tasks.Done, Result: res.ToolResult()}, nil
	}
	return tasks.Write{State: tasks.Working, Message: fmt.Sprintf(
		"Waiting for a reply to post %s by someone other than you, until %s (%d s left).",
		wait.PostID, wait.Until.UTC().Format(time.RFC3339), secondsLeft(wait.Until, now))}, nil
}

// replyWaitOf reads the arguments into the wait a call begun at started
// makes, or refuses them with what to give instead.
func replyWaitOf(args waitForReplyArgs, started time.Time) (transport.ReplyWait, error) {
	postID := strings.TrimSpace(args.Post)
	if link, ok := parsePostLink(postID); ok {
		postID = link
	}
	if postID == "" {
		return transport.ReplyWait{}, refusal.New("Say which post:", "give post, its id or permalink (from read_thread, read_channel or the post you made).")
	}
	wait := defaultReplyWait
	if args.Seconds != 0 {
		if args.Seconds < 1 || time.Duration(args.Seconds)*time.Second > maxReplyWait {
			return transport.ReplyWait{}, refusal.New(fmt.Sprintf("seconds must be between 1 and %d (default %d).", int(maxReplyWait.Seconds()), int(defaultReplyWait.Seconds())),
				"Call again with seconds in that range.")
		}
		wait = time.Duration(args.Seconds) * time.Second
	}
	since := started
	if s := strings.TrimSpace(args.Since); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		switch {
		case err != nil:
			return transport.ReplyWait{}, refusal.New(fmt.Sprintf("since %q is not a time like 2026-01-02T15:04:05.000Z.", present.Name(s)),
				"Give since exactly as the last answer of wait_for_reply wrote it, or leave it out to count replies from now.")
		case t.After(started):
			return transport.ReplyWait{}, refusal.New("since is later than now.", "Give since exactly as the last answer of wait_for_reply wrote it, or leave it out.")
		case started.Sub(t) > maxSinceAge:
			return transport.ReplyWait{}, refusal.New(fmt.Sprintf("since is more than %d minutes ago.", int(maxSinceAge.Minutes())),
				fmt.Sprintf("Read what came meanwhile with read_thread(post=%q), then call wait_for_reply without since.", postID))
		}
		since = t
	}
	return transport.ReplyWait{PostID: postID, Since: since, Until: started.Add(wait)}, nil
}

// watchedPost is the post waited on, as read_thread finds it: one the
// caller cannot read is not found, as one that does not exist.
func watchedPost(c *mattermost.Caller, postID, asked string) (*model.Post, error) {
	p, err := c.Post(postID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return nil, postNotFound(asked)
	}
	return p, err
}

// postNotFound is the refusal for a post asked that the caller cannot
// read, worded as read_thread's.
func postNotFound(asked string) error {
	return refusal.New(fmt.Sprintf("No post %q found.", present.Name(asked)), "Give a post id or permalink from read_channel or search_posts.")
}

// lookForReply reads, as c, whether the post has a reply for the wait:
// done with the answer when it has, not done when none came yet. The post
// and its channel are read again each time, so a caller who can no longer
// read them hears "not found" and never the reply. woke, when not empty,
// is the post whose change woke the wait: it alone is read, by its id, so
// a post made on another node is seen even where this node's caches of
// the channel have not heard of it yet.
func lookForReply(c *mattermost.Caller, wait transport.ReplyWait, asked, woke string) (res catalogue.Result[ReplyResult], done bool, err error) {
	p, err := watchedPost(c, wait.PostID, asked)
	if err != nil {
		return res, false, err
	}
	ch, err := c.Channel(p.ChannelId)
	if errors.Is(err, mattermost.ErrNotFound) {
		return res, false, postNotFound(asked)
	}
	if err != nil {
		return res, false, err
	}
	since := wait.Since.UnixMilli()
	var posts []*model.Post
	if woke != "" {
		changed, err := c.Post(woke)
		if errors.Is(err, mattermost.ErrNotFound) {
			return res, false, nil // deleted, or somewhere the caller cannot read
		}
		if err != nil {
			return res, false, err
		}
		posts = []*model.Post{changed}
	} else if posts, err = c.PostsSince(p.ChannelId, since); err != nil {
		return res, false, err
	}
	reply := firstReply(posts, p, ch.Type == model.ChannelTypeDirect, c.UserID(), since, wait.Until.UnixMilli())
	if reply == nil {
		return res, false, nil
	}
	w, err := newPostWriter(c, []*model.Post{reply})
	if err != nil {
		return res, false, err
	}
	v, err := w.view(reply)
	if err != nil {
		return res, false, err
	}
	res, err = repliedAnswer(wait, v)
	return res, true, err
}

// firstReply is the first post among posts (the channel's, made since)
// that answers post for the caller: made by until (a task looked at late
// answers as its call would have), in its thread, or in a direct message
// anywhere in the channel, by someone other than the caller, and not a
// system message (a join, a header change). Nil when none does.
func firstReply(posts []*model.Post, post *model.Post, direct bool, callerID string, since, until int64) *model.Post {
	root := post.Id
	if post.RootId != "" {
		root = post.RootId
	}
	var found []*model.Post
	for _, p := range posts {
		switch {
		case p.Id == post.Id, p.ChannelId != post.ChannelId, p.DeleteAt != 0, p.CreateAt < since, p.CreateAt > until,
			p.UserId == callerID, p.IsSystemMessage():
			continue
		case direct, p.RootId == root:
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].CreateAt != found[j].CreateAt {
			return found[i].CreateAt < found[j].CreateAt
		}
		return found[i].Id < found[j].Id
	})
	return found[0]
}

// repliedAnswer is wait_for_reply's answer with the reply v.
func repliedAnswer(wait transport.ReplyWait, v PostView) (catalogue.Result[ReplyResult], error) {
	var b strings.Builder
	fmt.Fprintf(&b, "A reply to post %s came: the first since %s by someone other than you.", wait.PostID, sinceText(wait.Since))
	postText(&b, v)
	thread := v.RootID
	if thread == "" {
		thread = v.ID
	}
	fmt.Fprintf(&b, "\nThe whole thread: read_thread(post=%q).", thread)
	return answerLinked(b.String(), ReplyResult{State: stateReplied, Posts: []PostView{v}}, postLinks(v))
}

// noReplyAnswer is wait_for_reply's answer at now when no reply came: the
// wait is over, or (before wait.Until) the call's bound held is, and the
// answer names the call that goes on waiting without missing a reply.
func noReplyAnswer(wait transport.ReplyWait, now time.Time, held time.Duration) (catalogue.Result[ReplyResult], error) {
	since := sinceText(wait.Since)
	out := ReplyResult{State: stateNoReply, Posts: []PostView{}}
	left := secondsLeft(wait.Until, now)
	if left == 0 {
		return answer(fmt.Sprintf("No reply to post %s by anyone but you since %s: the wait is over. "+
			"To wait longer, call wait_for_reply(post=%q, since=%q); read_thread(post=%q) reads the thread.",
			wait.PostID, since, wait.PostID, since, wait.PostID), out)
	}
	return answer(fmt.Sprintf("No reply yet to post %s by anyone but you since %s. A call holds at most %d s, and %d s of the wait are left: "+
		"to go on waiting without missing a reply, call wait_for_reply(post=%q, seconds=%d, since=%q), or call it as a task, which your client follows until the reply.",
		wait.PostID, since, int(held.Seconds()), left, wait.PostID, left, since), out)
}

// secondsLeft is the whole seconds from now until, rounded up; 0 once
// until has come.
func secondsLeft(until, now time.Time) int {
	d := until.Sub(now)
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// sinceText is a wait's since as the model gives it back: to the
// millisecond, as Mattermost stamps posts.
func sinceText(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// replyProgress tells a client that sent a progress token that the call
// still waits, as a waiting write's call does: progress counts the seconds
// of the call out of the most it holds.
func (d Deps) replyProgress(ctx context.Context, started, end time.Time, postID string) {
	total := int(end.Sub(started).Seconds())
	err := transport.Progress(ctx, int(time.Since(started).Seconds()), total, fmt.Sprintf("Waiting for a reply to post %s (at most %d s in this call).", postID, total))
	if err != nil {
		// A client that cannot take it loses only the notice.
		d.MM.Log().Debug("A progress notification was not delivered", "error", err.Error())
	}
}
