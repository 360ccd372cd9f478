package catalogue_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

type recorded []audit.Event

func (r *recorded) Record(ev audit.Event) { *r = append(*r, ev) }

func callThrough(t *testing.T, name string, args map[string]any, answer *mcp.CallToolResult, fail error) recorded {
	t.Helper()
	var r recorded
	mw := sample(t).Audited(&r, nil)
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	_, _ = mw(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return answer, fail })(context.Background(), req)
	return r
}

func TestAChangeToTheOwnViewIsRecordedWithTheIdsAmongItsArguments(t *testing.T) {
	post := strings.Repeat("p", 26)
	r := callThrough(t, "own_view_thing", map[string]any{"post_id": post, "message": "the zebra-word", "channel": "town-square"}, mcp.NewToolResultText("ok"), nil)
	if len(r) != 1 {
		t.Fatalf("%d entries", len(r))
	}
	e := r[0]
	if e.Kind != audit.KindOwnView || e.Tool != "own_view_thing" || e.Outcome != audit.OutcomeDone || len(e.Targets) != 1 || e.Targets["post_id"] != post {
		t.Fatalf("entry %+v", e)
	}
}

func TestAnOwnViewChangeThatIsRefusedOrFailsIsRecordedSo(t *testing.T) {
	if r := callThrough(t, "own_view_thing", nil, mcp.NewToolResultError("no"), nil); len(r) != 1 || r[0].Outcome != audit.OutcomeRefused {
		t.Fatalf("refused: %+v", r)
	}
	if r := callThrough(t, "own_view_thing", nil, nil, errors.New("down")); len(r) != 1 || r[0].Outcome != audit.OutcomeFailed {
		t.Fatalf("failed: %+v", r)
	}
}

func TestToolsThatDoNotChangeTheOwnViewAreNotRecordedByTheMiddleware(t *testing.T) {
	for _, name := range []string{"read_thing", "post_thing", "workspace_thing", "unknown"} {
		if r := callThrough(t, name, nil, mcp.NewToolResultText("ok"), nil); len(r) != 0 {
			t.Errorf("%s recorded %+v", name, r)
		}
	}
}
