package approval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

// The records in testdata/records-3f07963.jsonl are one pending record of
// every kind exactly as the version before typed kinds (commit 3f07963)
// wrote them into the KV store, one a line; records-3f07963.words is what
// that version worded each as (its title and its question).

// storedBefore reads the records as the KV store holds them.
func storedBefore(t *testing.T) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/records-3f07963.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}()
	var out [][]byte
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		out = append(out, bytes.Clone(lines.Bytes()))
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(writes)+1 {
		t.Fatalf("%d stored records for %d kinds (and a direct message): one kind has no record of the version before", len(out), len(writes))
	}
	return out
}

func TestARecordStoredBeforeTypedKindsReadsInTheSameWordsAndWritesBackTheSameFields(t *testing.T) {
	var words strings.Builder
	for _, raw := range storedBefore(t) {
		var rec Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatal(err)
		}
		plan := *rec.Plan
		words.WriteString("== " + rec.ID + " " + rec.Action + "\n" + Title(plan) + "\n" + Describe(plan) + "\n")
		if got := EmojiOf(plan); got != rec.Emoji {
			t.Errorf("%s: the emoji reads %q, the record keeps %q", rec.Action, got, rec.Emoji)
		}
		if got := writeTargets(plan); (len(got) > 0 || len(rec.Targets) > 0) && !reflect.DeepEqual(got, rec.Targets) {
			t.Errorf("%s: the plan touches %v, the record names %v", rec.Action, got, rec.Targets)
		}
		// Written again as it waits (claimed, its question left open), the
		// record keeps every field it had.
		again, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, again, raw) {
			t.Errorf("%s: written back as\n%s\nstored as\n%s", rec.Action, again, raw)
		}
	}
	want, err := os.ReadFile("testdata/records-3f07963.words")
	if err != nil {
		t.Fatal(err)
	}
	if words.String() != string(want) {
		t.Errorf("the records read\n%s\nthe version that stored them read\n%s", words.String(), want)
	}
}

func TestARecordStoredBeforeTypedKindsIsAnsweredWithThePayloadItWasAskedWith(t *testing.T) {
	asked := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	target := &posting.PostTarget{AuthorID: "u2", Author: "bob", Replies: 2, Files: []string{"a.txt"}}
	channel := &posting.ChannelSpec{ID: "ch1", TeamID: "t1", Team: "Ops", Name: "town-square", DisplayName: "Town Square", Purpose: "chat"}
	people := []posting.Person{{ID: "u2", Username: "bob"}, {ID: "u3", Username: "carol"}}
	want := map[string]any{
		ActionPost:       Nothing{},
		ActionEdit:       Nothing{},
		ActionReact:      Reaction{Emoji: "tada"},
		ActionUnreact:    Reaction{Emoji: "tada"},
		ActionDelete:     ShownPost{Target: &posting.PostTarget{AuthorID: "u1", Author: "alice", EditAt: 5, Replies: 2, Files: []string{"a.txt"}}},
		ActionPin:        ShownPost{Target: target},
		ActionUnpin:      ShownPost{Target: target},
		ActionJoin:       ChannelShown{Channel: channel},
		ActionLeave:      ChannelShown{Channel: channel},
		ActionCreateChan: ChannelMembers{Channel: &posting.ChannelSpec{TeamID: "t1", Team: "Ops", Name: "launch", DisplayName: "Launch", Private: true, Purpose: "the launch", Header: "go"}, Members: people},
		ActionAddMembers: ChannelMembers{Channel: channel, Members: people},
		ActionSetStatus:  NewStatus{Status: &posting.StatusSpec{Availability: "dnd", DNDUntil: asked, Text: "in a meeting", Emoji: "calendar", ExpiresAt: asked, Zone: "Europe/Paris"}},
		ActionSchedule:   SendTime{SendAt: asked, SendZone: "Europe/Paris"},
	}
	for i, raw := range storedBefore(t) {
		f := newRoutes(t)
		f.store.Now = func() time.Time { return asked.Add(time.Minute) }
		a := &Approvals{opts: Options{Now: func() time.Time { return asked.Add(-time.Hour) }}}
		// The stored id is a short name; the store takes only ids it makes.
		id := fmt.Sprintf("%032x", i+1)
		var named struct{ ID string }
		if err := json.Unmarshal(raw, &named); err != nil {
			t.Fatal(err)
		}
		raw = bytes.Replace(raw, []byte(`"id":"`+named.ID+`"`), []byte(`"id":"`+id+`"`), 1)
		if err := f.store.KV.Set(key("u1", id), raw, PendingLifetime); err != nil {
			t.Fatal(err)
		}
		var action string
		var got any
		var recheck error
		done, err := f.store.Accept(context.Background(), (*mattermost.Gateway)(nil).As("u1"), id, func(_ context.Context, _ *mattermost.Caller, plan posting.Plan) (Executed, error) {
			// What the store kept while it carries the write out is what is
			// carried out.
			kept, err := f.store.Load("u1", id)
			if err != nil || kept.Plan == nil {
				return Executed{}, fmt.Errorf("the claimed record: %+v %v", kept, err)
			}
			w := writeOf(kept.Plan.Action)
			action, got = kept.Plan.Action, w.Payload(*kept.Plan)
			if action == ActionSchedule || action == ActionSetStatus {
				// Their rechecks ask nothing of Mattermost: the times the
				// person was shown are still ahead.
				recheck = w.Recheck(a, nil, plan)
			}
			return Executed{}, nil
		})
		if err != nil || done.State != StateDone {
			t.Fatalf("record %d: accepted as %+v, %v", i, done, err)
		}
		if !reflect.DeepEqual(got, want[action]) {
			t.Errorf("%q is carried out with %#v, asked with %#v", action, got, want[action])
		}
		if recheck != nil {
			t.Errorf("%q: %v", action, recheck)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
