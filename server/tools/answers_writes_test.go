package tools

import (
	"errors"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

var otherTownDest = posting.Destination{ChannelID: "ch-town-id", Label: `~town-square "Town Square" (public, team Town (town), id ch-town-id)`,
	Place: "Town Square, Town", Where: "~town-square, a public channel of team Town"}

func otherPinPlan() posting.Plan {
	return posting.Plan{CallerID: "u-alice", Action: approval.ActionPin, Dest: otherTownDest, PostID: "post-pinned-id"}
}

// otherAnswerGolden writes a write tool's answer with whether it is a
// tool error (not done) before the text.
func otherAnswerGolden(t *testing.T, name string, res catalogue.Result[WriteResult]) {
	t.Helper()
	state := "done or waiting"
	if res.NotDone {
		state = "not done (tool error)"
	}
	otherGoldenAnswer(t, name, "["+state+"]\n"+res.Text, res.Data)
}

func TestAWriteAnswerSaysWhereTheWriteStandsInEachState(t *testing.T) {
	rec := func(state, outcome string) approval.Record {
		return approval.Record{ID: "pw-42", UserID: "u-alice", State: state, Title: "Pin a post in Town Square, Town", Action: approval.ActionPin,
			Outcome: outcome, PostID: "post-pinned-id", ChannelID: "ch-town-id", Permalink: "https://chat.example.com/town/pl/post-pinned-id"}
	}
	page := "https://chat.example.com/plugins/mcp-server/pending/pw-42"
	for _, tc := range []struct {
		name string
		o    approval.Outcome
	}{
		{"done_at_once", approval.Outcome{Plan: otherPinPlan(), Record: approval.Record{State: approval.StateDone, Permalink: "https://chat.example.com/town/pl/post-pinned-id"}}},
		{"declined_in_client", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StatePending, ""), DeclinedInClient: true}},
		{"pending", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StatePending, ""), PageURL: page}},
		{"accepted_and_done", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StateDone, "Pinned.")}},
		{"declined_in_mattermost", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StateDeclined, "")}},
		{"failed", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StateFailed, "Mattermost refused: the post was deleted meanwhile; nothing was pinned.")}},
		{"being_done", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StateExecuting, "")}},
		{"withdrawn", approval.Outcome{Plan: otherPinPlan(), Record: rec(approval.StateWithdrawn, "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := outcomeAnswer(tc.o, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			otherAnswerGolden(t, "write_"+tc.name, res)
		})
	}
}

func TestAWriteToAPlaceThatIsGoneIsRefusedByItsLabel(t *testing.T) {
	_, err := outcomeAnswer(approval.Outcome{Plan: otherPinPlan()}, mattermost.ErrNotFound, nil)
	golden(t, "write_not_found", []byte(err.Error()+"\n"))
	other := errors.New("the KV store is unavailable")
	if _, err := outcomeAnswer(approval.Outcome{Plan: otherPinPlan()}, other, nil); !errors.Is(err, other) {
		t.Fatalf("another error passes as it is: %v", err)
	}
}

func TestAPostSentAtOnceNamesItsLinkItsFilesAndItsNotes(t *testing.T) {
	plan := posting.Plan{CallerID: "u-alice", Dest: otherTownDest, Message: "Quarterly report attached",
		Notes: []string{"@bob is mentioned and notified."},
		Files: []posting.Staged{{Kind: "workspace", Name: "report\u202e.pdf", Size: 48213, SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			Detected: "application/pdf", Origin: "workspace file reports/q3.pdf"}}}
	o := approval.Outcome{Plan: plan, Record: approval.Record{State: approval.StateDone, PostID: "post-new-id", Permalink: "https://chat.example.com/town/pl/post-new-id"},
		FileIDs: []string{"file-new-id"}, ChannelID: "ch-town-id"}
	otherAnswerGolden(t, "write_post_sent_at_once", Deps{}.posted(o))
}

func TestGetPendingListsEachWriteOnALineOrSaysThereIsNone(t *testing.T) {
	all := []approval.Outcome{
		{Plan: otherPinPlan(), PageURL: "https://chat.example.com/plugins/mcp-server/pending/pw-1",
			Record: approval.Record{ID: "pw-1", State: approval.StatePending, Title: "Pin a post in Town\u202e Square", Action: approval.ActionPin}},
		{Record: approval.Record{ID: "pw-2", State: approval.StateDone, Title: "Post in Town Square, Town",
			PostID: "post-new-id", ChannelID: "ch-town-id", Permalink: "https://chat.example.com/town/pl/post-new-id"}},
	}
	for _, tc := range []struct {
		name string
		all  []approval.Outcome
	}{{"none", nil}, {"two", all}} {
		t.Run(tc.name, func(t *testing.T) {
			text, list := pendingListAnswer(tc.all)
			otherGoldenAnswer(t, "get_pending_"+tc.name, text, list)
		})
	}
	res, err := pendingOneAnswer(approval.Outcome{Plan: otherPinPlan(), Record: approval.Record{ID: "pw-3", State: approval.StateDeclined}})
	if err != nil {
		t.Fatal(err)
	}
	otherGoldenAnswer(t, "get_pending_one_declined", res.Text, res.Data)
}
