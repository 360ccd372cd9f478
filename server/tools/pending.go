package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

func pendingOf(o approval.Outcome) WriteResult {
	r := o.Record
	return WriteResult{ID: r.ID, State: r.State, URL: o.PageURL, Outcome: r.Outcome, Action: actionName(o.Plan.Action), Emoji: approval.EmojiOf(o.Plan),
		PostID: r.PostID, ChannelID: r.ChannelID, Permalink: r.Permalink}
}

// outcomeAnswer words where a write stands for the model, from what the
// approval flow answered (asked is its error); atOnce, when set, words a
// write done at once.
func outcomeAnswer(o approval.Outcome, asked error, atOnce func(approval.Outcome) catalogue.Result[WriteResult]) (res catalogue.Result[WriteResult], err error) {
	if asked != nil {
		return res, notFoundAs(asked, o.Plan.Dest)
	}
	if q := o.Question; q != nil {
		return catalogue.Result[WriteResult]{Question: &catalogue.Question{ID: approval.AnswerInputID, State: q.State, Params: q.Params}}, nil
	}
	out := pendingOf(o)
	rec := o.Record
	switch {
	case rec.ID == "" && rec.State == approval.StateDone:
		// Done at once: the admin leaves writes to the client's approval.
		if atOnce != nil {
			return atOnce(o), nil
		}
		return answer(approval.ToldDone(o.Plan, rec.Permalink), out)
	case o.DeclinedInClient:
		out.State = approval.StateDeclined
		return notDone("The person did not accept; nothing was uploaded, posted or changed. Do not try again unless the person asks you to.", out)
	case rec.State == approval.StateDone:
		return answer("The person accepted. "+approval.ToldDone(o.Plan, rec.Permalink), out)
	case rec.State == approval.StateDeclined:
		return notDone("The person declined in Mattermost; nothing was sent.", out)
	case rec.State == approval.StateFailed:
		return notDone(rec.Outcome, out)
	case rec.State == approval.StateExecuting:
		return answer(fmt.Sprintf("The person accepted; it is being done now. Call get_pending with id %s to learn the outcome.", rec.ID), out)
	case rec.State == approval.StateWithdrawn:
		return notDone("The call that asked for this write was cancelled by the client, so the write was withdrawn: nothing was sent, and the person can no longer accept it. Call the tool again if the person still wants it.", out)
	}
	res, err = answer(fmt.Sprintf("The write is waiting for the person to accept it in Mattermost at %s (it expires in %d minutes). Nothing is sent until they do. Call get_pending with id %s to learn the outcome.",
		out.URL, int(approval.PendingLifetime.Minutes()), rec.ID), out)
	res.Meta = map[string]any{PreviewMetaKey: previewOf(o)}
	return res, err
}

// PreviewMetaKey names, in a waiting write's result _meta, what the
// pending view shows (ui://mattermost/pending): kept out of the
// structured content so the output schema of every write stays as it is.
const PreviewMetaKey = "mattermost/pending"

// Preview is the waiting write as the person will see it in Mattermost.
type Preview struct {
	Place   string        `json:"place,omitempty"`
	Message string        `json:"message,omitempty"`
	Files   []PreviewFile `json:"files,omitempty"`
	Notes   []string      `json:"notes,omitempty"`
	// NotesHeading heads Notes as the page and the modal head them.
	NotesHeading string `json:"notes_heading,omitempty"`
	ExpiresAt    string `json:"expires_at,omitempty"`
}

// PreviewFile is a file of a waiting write: its name, size and type
// (no content: the view shows no thumbnail it would have to fetch).
type PreviewFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type,omitempty"`
}

func previewOf(o approval.Outcome) Preview {
	p := Preview{Place: o.Record.Place, Message: o.Plan.Message, Notes: o.Plan.Notes}
	if len(p.Notes) > 0 {
		p.NotesHeading = approval.NotesHeading(o.Plan)
	}
	if p.Place == "" {
		p.Place = o.Plan.Dest.Place
	}
	if !o.Record.CreatedAt.IsZero() {
		p.ExpiresAt = o.Record.CreatedAt.Add(approval.PendingLifetime).UTC().Format(time.RFC3339)
	}
	for _, f := range o.Plan.Files {
		p.Files = append(p.Files, PreviewFile{Name: f.Name, Size: f.Size, Type: f.Detected})
	}
	return p
}

// notDone answers a well-formed write that did not happen: a tool error
// that still carries where it stands.
func notDone(text string, out WriteResult) (catalogue.Result[WriteResult], error) {
	return catalogue.Result[WriteResult]{Text: text, Data: out, NotDone: true}, nil
}

// posted words a post sent at once, with its files; it reads nothing (a
// method only so the post tools can hand it to ask).
func (d Deps) posted(o approval.Outcome) catalogue.Result[WriteResult] {
	plan := o.Plan
	out := WriteResult{State: approval.StateDone, Action: actionName(plan.Action), PostID: o.Record.PostID, ChannelID: o.ChannelID,
		Permalink: o.Record.Permalink, Notes: plan.Notes}
	var b strings.Builder
	fmt.Fprintf(&b, "Posted to %s: %s\n", plan.Dest.Label, out.Permalink)
	for i, f := range plan.Files {
		id := ""
		if i < len(o.FileIDs) {
			id = o.FileIDs[i]
		}
		out.Files = append(out.Files, PostedFile{FileID: id, Name: f.Name, Size: f.Size, SHA256: f.SHA256, Type: f.Detected, Origin: f.Origin})
		fmt.Fprintf(&b, "- %s (%s, %s, sha256 %s…, %s) file_id=%s\n", present.Name(f.Name), present.Size(f.Size), f.Detected, f.SHA256[:12], f.Origin, id)
	}
	for _, n := range plan.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	return catalogue.Result[WriteResult]{Text: b.String(), Data: out}
}

// PendingList is get_pending's structured answer: the one write asked
// about, or every pending and recently answered one.
type PendingList struct {
	Pending []WriteResult `json:"pending"`
}

type getPendingArgs struct {
	ID string `json:"id,omitempty" jsonschema:"The id a write tool answered; left out: list all."`
}

func getPending(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name: "get_pending", Title: "Check a post waiting for confirmation", Hints: readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetPosting,
		View:        resources.PendingView,
		Description: "What became of a write waiting for the person: pending (with its page), done, declined, failed or withdrawn (call cancelled); without id, lists pending and the past hour's.",
	}, d.getPending)
}

func (d Deps) getPending(ctx context.Context, a getPendingArgs) (res catalogue.Result[PendingList], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	if id := strings.TrimSpace(a.ID); id != "" {
		o, err := d.Approvals.Pending(c, id)
		if errors.Is(err, approval.ErrNotFound) {
			return res, refusal.New(fmt.Sprintf("No post %q is waiting or was answered in the last hour (or it expired unanswered: nothing was sent).", id),
				"Call get_pending without id to list them.")
		}
		if err != nil {
			return res, err
		}
		return pendingOneAnswer(o)
	}
	all, err := d.Approvals.List(c)
	if err != nil {
		return res, err
	}
	return answer(pendingListAnswer(all))
}

// pendingOneAnswer words the one write get_pending was asked about: a
// declined or failed write is a fact to report here, not an error.
func pendingOneAnswer(o approval.Outcome) (catalogue.Result[PendingList], error) {
	one, err := outcomeAnswer(o, nil, nil)
	return catalogue.Result[PendingList]{Text: one.Text, Data: PendingList{Pending: []WriteResult{one.Data}}, Meta: one.Meta}, err
}

// pendingListAnswer lists the person's pending and recently answered
// writes, a line each.
func pendingListAnswer(all []approval.Outcome) (string, PendingList) {
	var b strings.Builder
	list := []WriteResult{}
	for _, o := range all {
		pr := pendingOf(o)
		list = append(list, pr)
		fmt.Fprintf(&b, "- %s: %s, %s %s%s\n", pr.ID, present.Name(o.Record.Title), pr.State, pr.URL, pr.Permalink)
	}
	if len(list) == 0 {
		b.WriteString("No post is waiting for the person, and none was answered in the last hour.")
	}
	return b.String(), PendingList{Pending: list}
}
