package approval

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

func TestTheClientsURLQuestionIsClosedOnceWithItsIDWhenThePageIsAnsweredOrTheWriteEnds(t *testing.T) {
	cases := map[string]struct {
		// end ends the write the call waits on, as the page, the store's
		// expiry or another node would.
		end   func(t *testing.T, f *routesFixture, id string)
		state string // the call's outcome; "" for the expiry refusal
	}{
		"accepted on the page": {func(t *testing.T, f *routesFixture, id string) {
			if w := f.do(http.MethodPost, APIPath+"/"+id+"/accept", "alice"); w.Code != http.StatusOK {
				t.Fatalf("accept: %d %s", w.Code, w.Body)
			}
		}, StateDone},
		"declined on the page": {func(t *testing.T, f *routesFixture, id string) {
			if w := f.do(http.MethodPost, APIPath+"/"+id+"/decline", "alice"); w.Code != http.StatusOK {
				t.Fatalf("decline: %d %s", w.Code, w.Body)
			}
		}, StateDeclined},
		"expired": {func(t *testing.T, f *routesFixture, id string) {
			if err := f.store.KV.Delete(key("alice", id)); err != nil {
				t.Fatal(err)
			}
		}, ""},
		"withdrawn": {func(t *testing.T, f *routesFixture, id string) {
			if _, err := f.store.Withdraw("alice", id); err != nil {
				t.Fatal(err)
			}
		}, StateWithdrawn},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newRoutes(t)
			a := testApprovals(f)
			var closed []string
			a.completed = func(_ context.Context, id string) { closed = append(closed, id) }
			rec, err := f.store.Create("alice", "t", dmPlan(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if q := a.questionParams(ModeURL, rec); q.ElicitationID != rec.ID {
				t.Fatalf("the question carries elicitation id %q, the write is %q", q.ElicitationID, rec.ID)
			}
			tc.end(t, f, rec.ID)
			// The client said it opened the page; the call waits for the
			// page's answer and learns it from the store.
			o, err := a.settle(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec, ModeURL, answer(mcp.ElicitationResponseActionAccept, nil), "")
			var ref *refusal.Error
			switch {
			case tc.state == "" && !errors.As(err, &ref):
				t.Fatalf("the call answered %+v, %v, not the expiry", o.Record, err)
			case tc.state != "" && (err != nil || o.Record.State != tc.state):
				t.Fatalf("the call answered %+v, %v, not %s", o.Record, err, tc.state)
			}
			if len(closed) != 1 || closed[0] != rec.ID {
				t.Fatalf("the client was told the questions %q were over, not once %q", closed, rec.ID)
			}
		})
	}
}

func TestAURLQuestionTheClientDeclinedIsNotClosedAgain(t *testing.T) {
	f := newRoutes(t)
	a := testApprovals(f)
	var closed []string
	a.completed = func(_ context.Context, id string) { closed = append(closed, id) }
	rec, err := f.store.Create("alice", "t", dmPlan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.settle(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec, ModeURL, answer(mcp.ElicitationResponseActionDecline, nil), "")
	if err != nil || o.Record.State != StateDeclined {
		t.Fatalf("the call answered %+v, %v", o.Record, err)
	}
	if len(closed) != 0 {
		t.Fatalf("the client that closed its own prompt was told %q", closed)
	}
}
