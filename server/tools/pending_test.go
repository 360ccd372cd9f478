package tools

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
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
