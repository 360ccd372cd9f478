package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// PendingResult is what a write tool answers when the write is not done
// (it waits for the person, or was declined or failed), and what
// get_pending answers.
type PendingResult struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	URL       string `json:"url,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	PostID    string `json:"post_id,omitempty"`
	Permalink string `json:"permalink,omitempty"`
}

func pendingOf(o approval.Outcome) PendingResult {
	r := o.Record
	return PendingResult{ID: r.ID, State: r.State, URL: o.PageURL, Outcome: r.Outcome, PostID: r.PostID, Permalink: r.Permalink}
}

// outcome words where a write stands for the model.
func (d Deps) outcome(c *mattermost.Caller, o approval.Outcome, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return refusalOr(err, o.Plan.Dest)
	}
	if q := o.Question; q != nil {
		return server.NewInputRequestBuilder(q.State).Elicit(approval.InputID, q.Params).ToolResult(), nil
	}
	out := pendingOf(o)
	rec := o.Record
	switch {
	case rec.ID == "" && rec.State == approval.StatePosted:
		// Done at once: the admin leaves writes to the client's approval.
		if o.Plan.Action == posting.ActionPost {
			return d.posted(o), nil
		}
		return structured(doneText(o.Plan, rec.Permalink), map[string]any{"post_id": rec.PostID, "action": actionName(o.Plan.Action), "permalink": rec.Permalink}), nil
	case o.DeclinedInClient:
		return refused("The person did not accept; nothing was uploaded, posted or changed. Do not try again unless the person asks you to.", out), nil
	case rec.State == approval.StatePosted:
		return structured("The person accepted. "+doneText(o.Plan, rec.Permalink), out), nil
	case rec.State == approval.StateDeclined:
		return refused("The person declined in Mattermost; nothing was sent.", out), nil
	case rec.State == approval.StateFailed:
		return refused(rec.Outcome, out), nil
	}
	return structured(fmt.Sprintf("The write is waiting for the person to accept it in Mattermost at %s (it expires in %d minutes). Nothing is sent until they do. Call get_pending with id %s to learn the outcome.",
		out.URL, int(approval.PendingLifetime.Minutes()), rec.ID), out), nil
}

func refused(text string, data any) *mcp.CallToolResult {
	res := structured(text, data)
	res.IsError = true
	return res
}

// posted words a post sent at once, with its files.
func (d Deps) posted(o approval.Outcome) *mcp.CallToolResult {
	plan := o.Plan
	out := PostResult{PostID: o.Record.PostID, ChannelID: o.ChannelID, Permalink: o.Record.Permalink, Notes: plan.Notes}
	var b strings.Builder
	fmt.Fprintf(&b, "Posted to %s: %s\n", plan.Dest.Label, out.Permalink)
	for i, f := range plan.Files {
		id := ""
		if i < len(o.FileIDs) {
			id = o.FileIDs[i]
		}
		out.Files = append(out.Files, PostedFile{FileID: id, Name: f.Name, Size: f.Size, SHA256: f.SHA256, Type: f.Detected, Origin: f.Origin})
		fmt.Fprintf(&b, "- %s (%s, %s, sha256 %s…, %s) file_id=%s\n", present.Clean(f.Name), present.Size(f.Size), f.Detected, f.SHA256[:12], f.Origin, id)
	}
	for _, n := range plan.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	return structured(b.String(), out)
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
	}, d.getPending)
}

func (d Deps) getPending(ctx context.Context, a getPendingArgs) (*mcp.CallToolResult, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return nil, err
	}
	if id := strings.TrimSpace(a.ID); id != "" {
		o, err := d.Approvals.Pending(c, id)
		if errors.Is(err, approval.ErrNotFound) {
			return mcp.NewToolResultError(fmt.Sprintf("No post %q is waiting or was answered in the last hour (or it expired unanswered: nothing was sent). Call get_pending without id to list them.", id)), nil
		}
		if err != nil {
			return nil, err
		}
		res, err := d.outcome(c, o, nil)
		if res != nil {
			res.IsError = false
		}
		return res, err
	}
	all, err := d.Approvals.List(c)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	list := []PendingResult{}
	for _, o := range all {
		pr := pendingOf(o)
		list = append(list, pr)
		fmt.Fprintf(&b, "- %s: %s, %s %s%s\n", pr.ID, present.Clean(o.Record.Title), pr.State, pr.URL, pr.Permalink)
	}
	if len(list) == 0 {
		b.WriteString("No post is waiting for the person, and none was answered in the last hour.")
	}
	return structured(b.String(), map[string]any{"pending": list}), nil
}
