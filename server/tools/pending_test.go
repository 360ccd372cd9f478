package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

func TestAWithdrawnWriteIsNotDoneAndSaysTheCallWasCancelledAndAnAcceptedOneIsBeingDone(t *testing.T) {
	res, err := outcomeAnswer(approval.Outcome{Record: approval.Record{ID: "r1", State: approval.StateWithdrawn}}, nil, nil)
	if err != nil || !res.NotDone || res.Data.State != approval.StateWithdrawn || !strings.Contains(res.Text, "withdrawn") ||
		!strings.Contains(res.Text, "cancelled") || !strings.Contains(res.Text, "nothing was sent") {
		t.Fatalf("a withdrawn write: %+v %v", res, err)
	}
	res, err = outcomeAnswer(approval.Outcome{Record: approval.Record{ID: "r2", State: approval.StateExecuting}}, nil, nil)
	if err != nil || res.NotDone || strings.Contains(res.Text, "waiting for the person") || !strings.Contains(res.Text, "get_pending with id r2") {
		t.Fatalf("an accepted write being done: %+v %v", res, err)
	}
}

func TestAWaitingWriteCarriesItsPreviewInTheResultMetaAndAnAnsweredOneNone(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := approval.Outcome{
		Record: approval.Record{ID: "w1", State: approval.StatePending, Title: "Post in Town Square", Place: "Town Square, Harbour", CreatedAt: created},
		Plan: posting.Plan{Message: "we **ship**", Notes: []string{"@bob is mentioned"},
			Files: []posting.Staged{{Name: "plan.pdf", Size: 2048, Detected: "application/pdf"}}},
		PageURL: "https://mm.example/plugins/mcp-server/confirm/w1",
	}
	res, err := outcomeAnswer(o, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := res.Meta[PreviewMetaKey].(Preview)
	want := Preview{Place: "Town Square, Harbour", Message: "we **ship**", Notes: []string{"@bob is mentioned"}, NotesHeading: "Who is notified",
		Files: []PreviewFile{{Name: "plan.pdf", Size: 2048, Type: "application/pdf"}}, ExpiresAt: "2026-01-02T03:14:05Z"}
	if !ok || fmt.Sprint(p) != fmt.Sprint(want) {
		t.Fatalf("the preview is %+v, want %+v", res.Meta, want)
	}
	one, err := pendingOneAnswer(o)
	if err != nil || one.Meta[PreviewMetaKey] == nil {
		t.Fatalf("get_pending of a waiting write lost its preview: %+v %v", one.Meta, err)
	}
	o.Record.State = approval.StateDone
	if res, _ := outcomeAnswer(o, nil, nil); res.Meta != nil {
		t.Fatalf("an answered write still carries a preview: %+v", res.Meta)
	}
}

func TestAWaitingWritesPreviewHeadsItsNotesAsThePageDoes(t *testing.T) {
	for _, c := range []struct {
		action, notes, heading string
	}{
		{approval.ActionPost, "@bob is mentioned", "Who is notified"},
		{approval.ActionPin, "Everyone in the channel sees it pinned", "Who sees it"},
		{approval.ActionLeave, "You stop seeing new posts", "What it means"},
		{approval.ActionPin, "", ""},
	} {
		o := approval.Outcome{Record: approval.Record{ID: "w1", State: approval.StatePending}, Plan: posting.Plan{Action: c.action}}
		if c.notes != "" {
			o.Plan.Notes = []string{c.notes}
		}
		if got := previewOf(o).NotesHeading; got != c.heading {
			t.Errorf("%q with notes %q: the preview heads them %q, want %q (the page's)", c.action, c.notes, got, c.heading)
		}
	}
}
