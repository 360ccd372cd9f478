package approval

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// settledFixture is approvals over an audited store whose page routes are
// its own, recording what Options.Settled hears and what the waiting call
// closed itself.
type settledFixture struct {
	*routesFixture
	a       *Approvals
	mu      sync.Mutex
	settled []Record
	closed  []string
}

func newSettledFixture(t *testing.T) *settledFixture {
	t.Helper()
	store, _ := auditedStore()
	f := &settledFixture{routesFixture: &routesFixture{store: store, router: mux.NewRouter()}}
	f.a = testApprovals(f.routesFixture)
	f.a.opts.Settled = func(rec Record) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.settled = append(f.settled, rec)
	}
	f.a.completed = func(_ context.Context, id string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.closed = append(f.closed, id)
	}
	(&Routes{Approvals: f.a, Log: nopLog{}, Session: testSession}).Register(f.router)
	return f
}

// askByURL is a write asked by MCP session mcp-s1 whose client opened the
// page, and whose call has left (nearly) all of its time: it waits until
// left, then answers.
func (f *settledFixture) askByURL(t *testing.T, left time.Duration) (Record, Outcome, error) {
	t.Helper()
	rec, err := f.store.CreateFor("alice", "t", dmPlan(), nil, Origin{Session: "mcp-s1", Tool: "create_post"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := transport.WithCall(context.Background(), "create_post", mcp.CallToolRequest{}, time.Now().Add(left-maxCallWait))
	o, err := f.a.settle(ctx, (*mattermost.Gateway)(nil).As("alice"), rec, ModeURL, answer(mcp.ElicitationResponseActionAccept, nil), "")
	return rec, o, err
}

// heard is what Settled heard about id, and whether it named a client to
// tell.
func (f *settledFixture) heard(id string) (Record, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.settled {
		if r.ID == id {
			return r, true
		}
	}
	return Record{}, false
}

func TestAURLQuestionLeftOpenByACallThatReturnedIsNamedForClosingWhenTheWriteEnds(t *testing.T) {
	cases := map[string]struct {
		end   func(t *testing.T, f *settledFixture, id string)
		state string
	}{
		"accepted on the page": {func(t *testing.T, f *settledFixture, id string) {
			if w := f.do(http.MethodPost, APIPath+"/"+id+"/accept", "alice"); w.Code != http.StatusOK {
				t.Fatalf("accept: %d %s", w.Code, w.Body)
			}
		}, StateDone},
		"declined on the page": {func(t *testing.T, f *settledFixture, id string) {
			if w := f.do(http.MethodPost, APIPath+"/"+id+"/decline", "alice"); w.Code != http.StatusOK {
				t.Fatalf("decline: %d %s", w.Code, w.Body)
			}
		}, StateDeclined},
		"withdrawn": {func(t *testing.T, f *settledFixture, id string) {
			done, err := f.store.Withdraw("alice", id)
			if err != nil {
				t.Fatal(err)
			}
			f.a.settled((*mattermost.Gateway)(nil).As("alice"), done)
		}, StateWithdrawn},
		"expired": {func(t *testing.T, f *settledFixture, id string) {
			if err := f.store.KV.Delete(key("alice", id)); err != nil {
				t.Fatal(err)
			}
			if n, err := f.a.ExpireWrites(time.Now()); err != nil || n != 1 {
				t.Fatalf("expired %d, %v", n, err)
			}
		}, StateExpired},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newSettledFixture(t)
			rec, o, err := f.askByURL(t, 50*time.Millisecond)
			if err != nil || o.Record.State != StatePending {
				t.Fatalf("the call answered %+v, %v, not that the write still waits", o.Record, err)
			}
			tc.end(t, f, rec.ID)
			got, ok := f.heard(rec.ID)
			if !ok || got.State != tc.state {
				t.Fatalf("Settled heard %+v (%v), want state %s", got, ok, tc.state)
			}
			if session, id, open := got.OpenQuestion(); !open || session != "mcp-s1" || id != rec.ID {
				t.Fatalf("the question to close is %q %q %v, want mcp-s1 %s", session, id, open, rec.ID)
			}
			if len(f.closed) != 0 {
				t.Fatalf("the call that returned closed %q too", f.closed)
			}
		})
	}
}

func TestAURLQuestionWhoseCallStillWaitsIsClosedByTheCallAlone(t *testing.T) {
	f := newSettledFixture(t)
	var rec Record
	var o Outcome
	var err error
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		rec, o, err = f.askByURL(t, maxCallWait)
	}()
	// The page answers while the call waits: the record is found by its
	// session, the only one of alice's.
	var id string
	for id == "" {
		recs, lerr := f.store.List("alice")
		if lerr != nil {
			t.Fatal(lerr)
		}
		if len(recs) == 1 {
			id = recs[0].ID
		}
	}
	if w := f.do(http.MethodPost, APIPath+"/"+id+"/accept", "alice"); w.Code != http.StatusOK {
		t.Fatalf("accept: %d %s", w.Code, w.Body)
	}
	<-waited
	if err != nil || o.Record.State != StateDone {
		t.Fatalf("the call answered %+v, %v", o.Record, err)
	}
	if len(f.closed) != 1 || f.closed[0] != rec.ID {
		t.Fatalf("the call closed %q, want once %s", f.closed, rec.ID)
	}
	if got, ok := f.heard(rec.ID); !ok {
		t.Fatal("Settled heard nothing of the answer")
	} else if _, _, open := got.OpenQuestion(); open {
		t.Fatal("a question the waiting call closes was named for closing again")
	}
}

func TestACallThatReturnsAsTheWriteIsAnsweredClosesTheQuestionItself(t *testing.T) {
	f := newSettledFixture(t)
	rec, err := f.store.CreateFor("alice", "t", dmPlan(), nil, Origin{Session: "mcp-s1"})
	if err != nil {
		t.Fatal(err)
	}
	if w := f.do(http.MethodPost, APIPath+"/"+rec.ID+"/decline", "alice"); w.Code != http.StatusOK {
		t.Fatalf("decline: %d %s", w.Code, w.Body)
	}
	// The call read the record just before the answer, and hands over now.
	o, err := f.a.handOver(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec, rec.ID)
	if err != nil || o.Record.State != StateDeclined {
		t.Fatalf("the call answered %+v, %v", o.Record, err)
	}
	if len(f.closed) != 1 || f.closed[0] != rec.ID {
		t.Fatalf("the call closed %q, want once %s", f.closed, rec.ID)
	}
	if got, _ := f.heard(rec.ID); got.QuestionOpen {
		t.Fatal("the answer named the question for closing too")
	}
}

func TestASessionlessClientsQuestionIsNotLeftOpen(t *testing.T) {
	f := newSettledFixture(t)
	rec, err := f.store.CreateFor("alice", "t", dmPlan(), nil, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.a.handOver(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec, rec.ID); err != nil {
		t.Fatal(err)
	}
	now, err := f.store.Load("alice", rec.ID)
	if err != nil || now.QuestionOpen {
		t.Fatalf("record %+v, %v: a question with no session to tell is left open", now, err)
	}
}
