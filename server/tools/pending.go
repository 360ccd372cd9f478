package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/confirm"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

const (
	// confirmWait is how long a posting call waits for the person's answer
	// in Mattermost: long enough to read the question, short enough for a
	// client's request timeout.
	confirmWait = 60 * time.Second
	// confirmPoll is how often the call reads the record again. The answer
	// can arrive on any node, so it is read from the KV store, never
	// waited for in memory.
	confirmPoll = 300 * time.Millisecond
	titleRunes  = 60
	// progressEvery keeps a client that asked for progress from timing the
	// call out while the person reads the question.
	progressEvery = 5 * time.Second
)

// progress tells a client that sent a progress token that the call waits
// for the person. A client that cannot take the notification loses only it.
func (d Deps) progress(ctx context.Context, started time.Time, id string) {
	tok := catalogue.ProgressToken(ctx)
	srv := server.ServerFromContext(ctx)
	if tok == nil || srv == nil {
		return
	}
	err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
		"progressToken": tok,
		"progress":      int(time.Since(started).Seconds()),
		"total":         int(confirmWait.Seconds()),
		"message":       "Waiting for the person to accept or decline the post in Mattermost: " + d.confirmURL(id),
	})
	if err != nil {
		d.MM.Log().Debug("A progress notification was not delivered", "error", err.Error())
	}
}

// PendingResult is what a posting call answers when it asked in Mattermost,
// and what get_pending answers.
type PendingResult struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	URL       string `json:"url,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	PostID    string `json:"post_id,omitempty"`
	Permalink string `json:"permalink,omitempty"`
}

func (d Deps) confirmURL(id string) string {
	return d.URLs.PluginURL() + confirm.Path + "/" + id
}

func pendingTitle(plan posting.Plan) string {
	msg := []rune(strings.Join(strings.Fields(plan.Message), " "))
	if len(msg) > titleRunes {
		msg = append(msg[:titleRunes], '…')
	}
	t := "Post to " + plan.Dest.Label
	switch plan.Action {
	case posting.ActionEdit:
		t = "Edit your post in " + plan.Dest.Label
	case posting.ActionReact:
		return present.Clean(fmt.Sprintf("React :%s: to a post in %s", plan.Emoji, plan.Dest.Label))
	case posting.ActionUnreact:
		return present.Clean(fmt.Sprintf("Take back your :%s: on a post in %s", plan.Emoji, plan.Dest.Label))
	}
	if len(msg) > 0 {
		t += fmt.Sprintf(": %q", string(msg))
	}
	if n := len(plan.Files); n > 0 {
		t += fmt.Sprintf(" with %d file(s)", n)
	}
	return present.Clean(t)
}

// waitForAnswer waits a bounded time for the person's answer in Mattermost,
// keeping the client informed, and answers the outcome or that the post
// still waits.
func (d Deps) waitForAnswer(ctx context.Context, c *mattermost.Caller, rec confirm.Record) (*mcp.CallToolResult, error) {
	started := time.Now()
	d.progress(ctx, started, rec.ID)
	deadline := time.NewTimer(confirmWait)
	defer deadline.Stop()
	tick := time.NewTicker(confirmPoll)
	defer tick.Stop()
	progress := time.NewTicker(progressEvery)
	defer progress.Stop()
	for {
		select {
		case <-progress.C:
			d.progress(ctx, started, rec.ID)
		case <-ctx.Done():
			return d.pendingAnswer(rec), nil
		case <-deadline.C:
			return d.pendingAnswer(rec), nil
		case <-tick.C:
			now, err := d.Confirm.Load(c.UserID(), rec.ID)
			if errors.Is(err, confirm.ErrNotFound) {
				return mcp.NewToolResultError("The question expired without an answer; nothing was sent."), nil
			}
			if err != nil {
				return nil, err
			}
			switch now.State {
			case confirm.StatePosted, confirm.StateDeclined, confirm.StateFailed:
				return d.pendingAnswer(now), nil
			}
		}
	}
}

func (d Deps) pendingAnswer(rec confirm.Record) *mcp.CallToolResult {
	out := PendingResult{ID: rec.ID, State: rec.State, Outcome: rec.Outcome, PostID: rec.PostID, Permalink: rec.Permalink}
	switch rec.State {
	case confirm.StatePosted:
		return structured("The person accepted. "+doneText(planOf(rec), rec.Permalink), out)
	case confirm.StateDeclined:
		res := structured("The person declined in Mattermost; nothing was sent.", out)
		res.IsError = true
		return res
	case confirm.StateFailed:
		res := structured(rec.Outcome, out)
		res.IsError = true
		return res
	}
	out.URL = d.confirmURL(rec.ID)
	return structured(fmt.Sprintf("The post is waiting for the person to accept it in Mattermost at %s (it expires in %d minutes). Nothing is sent until they do. Call get_pending with id %s to learn the outcome.",
		out.URL, int(confirm.PendingLifetime.Minutes()), rec.ID), out)
}

// ExecutePlan carries out a write the person accepted, as them, if writes
// are still allowed.
func (d Deps) ExecutePlan(ctx context.Context, userID string, plan posting.Plan) (confirm.Executed, error) {
	if refusal := d.mayWrite(); refusal != "" {
		return confirm.Executed{}, posting.Refusal(refusal)
	}
	c := d.MM.As(userID)
	if userID != plan.CallerID {
		return confirm.Executed{}, posting.ErrNotFound
	}
	var err error
	switch plan.Action {
	case posting.ActionPost:
		done, err := posting.Execute(ctx, c, d.sources(), plan)
		if err != nil {
			return confirm.Executed{}, err
		}
		return confirm.Executed{PostID: done.Post.Id, Permalink: permalinkOf(c, done.Post.ChannelId, done.Post.Id)}, nil
	case posting.ActionEdit:
		_, err = c.EditOwnPost(plan.PostID, plan.Message, map[string]any{posting.PropFromMCP: true})
	case posting.ActionReact, posting.ActionUnreact:
		err = c.React(plan.PostID, plan.Emoji, plan.Action == posting.ActionUnreact)
	default:
		return confirm.Executed{}, posting.Refusal("This confirmation is of a kind this version does not know; nothing was changed.")
	}
	switch {
	case errors.Is(err, mattermost.ErrNotFound):
		return confirm.Executed{}, posting.Refusal(fmt.Sprintf("The post %s is gone or no longer readable; nothing was changed.", plan.PostID))
	case errors.Is(err, mattermost.ErrNotYours):
		return confirm.Executed{}, posting.Refusal("That post is not the person's own: only their own posts can be edited. Nothing was changed.")
	case err != nil && plan.Emoji != "":
		return confirm.Executed{}, posting.Refusal(fmt.Sprintf("Mattermost refused the reaction :%s: (%v). Check the emoji's name; nothing was changed.", plan.Emoji, err))
	case err != nil:
		return confirm.Executed{}, err
	}
	return confirm.Executed{PostID: plan.PostID, Permalink: permalinkOf(c, plan.Dest.ChannelID, plan.PostID)}, nil
}

// doneText says what an executed write did.
func doneText(plan posting.Plan, permalink string) string {
	switch plan.Action {
	case posting.ActionEdit:
		return "Edited the post: " + permalink
	case posting.ActionReact:
		return fmt.Sprintf("Added :%s: to the post: %s", plan.Emoji, permalink)
	case posting.ActionUnreact:
		return fmt.Sprintf("Removed :%s: from the post: %s", plan.Emoji, permalink)
	}
	return "Posted: " + permalink
}

type getPendingArgs struct {
	ID string `json:"id,omitempty" jsonschema:"The id a posting tool answered. Leave out to list the person's pending and recent posts."`
}

func getPending(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name: "get_pending", Title: "Check a post waiting for confirmation", Hints: readOnly, Effect: catalogue.ReadsOnly,
		Description: "Tells what became of a post that waits for the person's answer in Mattermost: pending (with the page to answer it), posted (with its link), declined, or failed. " +
			"Without id, lists the person's pending and recently answered posts. Answers are kept for an hour; a question unanswered for 10 minutes expires.",
	}, func(ctx context.Context, a getPendingArgs) (*mcp.CallToolResult, error) {
		c, err := d.caller(ctx)
		if err != nil {
			return nil, err
		}
		if d.Confirm == nil {
			return mcp.NewToolResultError("Confirmations are not available on this server."), nil
		}
		if id := strings.TrimSpace(a.ID); id != "" {
			rec, err := d.Confirm.Load(c.UserID(), id)
			if errors.Is(err, confirm.ErrNotFound) {
				return mcp.NewToolResultError(fmt.Sprintf("No post %q is waiting or was answered in the last hour (or it expired unanswered: nothing was sent). Call get_pending without id to list them.", id)), nil
			}
			if err != nil {
				return nil, err
			}
			res := d.pendingAnswer(rec)
			res.IsError = false
			return res, nil
		}
		recs, err := d.Confirm.List(c.UserID())
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		list := []PendingResult{}
		for _, r := range recs {
			pr := PendingResult{ID: r.ID, State: r.State, Outcome: r.Outcome, PostID: r.PostID, Permalink: r.Permalink}
			if r.State == confirm.StatePending {
				pr.URL = d.confirmURL(r.ID)
			}
			list = append(list, pr)
			fmt.Fprintf(&b, "- %s: %s, %s %s%s\n", r.ID, present.Clean(r.Title), r.State, pr.URL, r.Permalink)
		}
		if len(list) == 0 {
			b.WriteString("No post is waiting for the person, and none was answered in the last hour.")
		}
		return structured(b.String(), map[string]any{"pending": list}), nil
	})
}

// planOf is a record's plan; answered records keep none, so their action
// is taken from what is left.
func planOf(rec confirm.Record) posting.Plan {
	if rec.Plan != nil {
		return *rec.Plan
	}
	return posting.Plan{Action: rec.Action}
}
