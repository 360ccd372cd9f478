package approval

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// countingKV counts the writes that reach the store.
type countingKV struct {
	*memKV
	writes int
}

func (k *countingKV) CompareAndSet(key string, old, v []byte, ttl time.Duration) (bool, error) {
	k.writes++
	return k.memKV.CompareAndSet(key, old, v, ttl)
}

func TestASessionOfAnyMCPClientOfThePersonCannotAnswerTheirPendingWriteButTheirBrowserCan(t *testing.T) {
	f := newRoutes(t)
	a := testApprovals(f)
	// The write was asked by one client's session; another client of
	// alice's (or the same client signed in afresh) called /mcp with a
	// second session.
	rec, err := f.store.Create("alice", "Post", richPlan(t), []string{"mcp-asking"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.clients.note("alice", "mcp-other", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	other := Answerer{mattermost.Session{ID: "mcp-other", UserID: "alice", CSRF: testCSRF}, testCSRF}
	if _, err := a.Answer(context.Background(), other, rec.ID, "accept"); !errors.Is(err, ErrNotThePerson) {
		t.Fatalf("another MCP client's session answered: %v", err)
	}
	if got, _ := f.store.Load("alice", rec.ID); got.State != StatePending || f.executed != 0 {
		t.Fatalf("after the refused answer: %s, executed %d", got.State, f.executed)
	}
	browser := Answerer{mattermost.Session{ID: "web", UserID: "alice", CSRF: testCSRF}, testCSRF}
	if got, err := a.Answer(context.Background(), browser, rec.ID, "accept"); err != nil || got.State != StateDone {
		t.Fatalf("alice's browser: %+v %v", got, err)
	}
}

func TestANotedSessionIsWrittenOnceAndForgottenWhenItExpires(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	kv := &countingKV{memKV: newMemKV()}
	c := &clientSessions{kv: kv, now: func() time.Time { return now }}
	for range 3 {
		if err := c.note("alice", "s1", now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if kv.writes != 1 {
		t.Fatalf("a session noted three times wrote the store %d times", kv.writes)
	}
	// Another node, which has not noted it, reads the record and writes
	// nothing either.
	if err := (&clientSessions{kv: kv, now: c.now}).note("alice", "s1", now.Add(time.Hour)); err != nil || kv.writes != 1 {
		t.Fatalf("another node wrote a noted session again: %v, %d writes", err, kv.writes)
	}
	if ok, _ := c.has("alice", "s1"); !ok {
		t.Fatal("the noted session is not found")
	}
	if ok, _ := c.has("bob", "s1"); ok {
		t.Fatal("alice's session counts for bob")
	}
	now = now.Add(2 * time.Hour)
	if ok, _ := c.has("alice", "s1"); ok {
		t.Fatal("a session that ended is still noted")
	}
}

func TestAPersonsNotedSessionsAreBoundedInCountAndBytes(t *testing.T) {
	now := time.Now()
	kv := newMemKV()
	c := &clientSessions{kv: kv, now: func() time.Time { return now }}
	for i := range MaxClientSessions + 72 {
		// 26 characters, as Mattermost's ids.
		if err := c.note("alice", fmt.Sprintf("%026d", i), now.Add(time.Duration(i+1)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	rec, raw, err := c.load("alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Sessions) != MaxClientSessions || len(raw) > maxClientRecordBytes {
		t.Fatalf("%d sessions in %d bytes; at most %d in %d", len(rec.Sessions), len(raw), MaxClientSessions, maxClientRecordBytes)
	}
	newest := fmt.Sprintf("%026d", MaxClientSessions+71)
	if ok, _ := c.has("alice", newest); !ok {
		t.Fatal("the newest session was dropped for the cap")
	}
	if ok, _ := c.has("alice", fmt.Sprintf("%026d", 0)); ok {
		t.Fatal("the session that expires first should have left for the cap")
	}
}

func TestOnlyANewInteractiveSessionIsReadFromMattermostAndWrittenToTheStore(t *testing.T) {
	api := &plugintest.API{}
	human := &model.Session{Id: "human", UserId: "alice", ExpiresAt: time.Now().Add(time.Hour).UnixMilli()}
	pat := &model.Session{Id: "pat", UserId: "alice", ExpiresAt: time.Now().Add(time.Hour).UnixMilli(),
		Props: model.StringMap{model.SessionPropType: model.SessionTypeUserAccessToken}}
	api.On("GetSession", "human").Return(human, nil).Once()
	api.On("GetSession", "pat").Return(pat, nil).Once()
	kv := &countingKV{memKV: newMemKV()}
	a := &Approvals{opts: Options{MM: mattermost.NewGateway(api, nil)}, clients: &clientSessions{kv: kv, now: time.Now}}
	// Each session's requests, many of them: Mattermost is asked once per
	// session (the mock allows no second GetSession) and the store written
	// once, for the interactive one.
	for range 5 {
		for _, id := range []string{"human", "pat"} {
			if err := a.NoteClientSession("alice", id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if kv.writes != 1 {
		t.Fatalf("%d writes to the store, want 1", kv.writes)
	}
	if ok, _ := a.clients.has("alice", "human"); !ok {
		t.Fatal("the interactive session was not noted")
	}
	if ok, _ := a.clients.has("alice", "pat"); ok {
		t.Fatal("a personal access token's session was written: it is refused as an integration without a note")
	}
	api.AssertExpectations(t)
}
