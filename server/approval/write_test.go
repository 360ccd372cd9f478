package approval

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

func TestTheHeadingSaysWhatAndWhereInThePersonsWordsWithoutIdsOrTheMessage(t *testing.T) {
	channel := posting.Destination{ChannelID: "7ge5abc", Label: `~harbour "Harbour ops" (public, id 7ge5abc)`, Place: "Harbour ops, CEO Team"}
	reply := channel
	reply.RootID = "p0"
	cases := []struct {
		plan posting.Plan
		want string
	}{
		{posting.Plan{Dest: channel, Message: "**Harbour report** for @bob"}, "Post in Harbour ops, CEO Team"},
		{posting.Plan{Dest: reply, Message: "yes"}, "Reply in a thread in Harbour ops, CEO Team"},
		{posting.Plan{Dest: posting.Destination{UserIDs: []string{"u-bob"}, Recipients: []string{"@bob"}}, Message: "hi"}, "Direct message to @bob"},
		{posting.Plan{Dest: posting.Destination{UserIDs: []string{"u-bob", "u-carol"}, Recipients: []string{"@bob", "@carol"}}}, "Group message with @bob, @carol"},
		{posting.Plan{Action: ActionEdit, Dest: channel, Message: "new"}, "Edit your post in Harbour ops, CEO Team"},
		{posting.Plan{Action: ActionReact, Payload: Reaction{Emoji: "tada"}, Dest: channel}, "React “:tada:” to a post in Harbour ops, CEO Team"},
		{posting.Plan{Action: ActionUnreact, Payload: Reaction{Emoji: "tada"}, Dest: channel}, "Take back your “:tada:” on a post in Harbour ops, CEO Team"},
	}
	for _, c := range cases {
		if got := Heading(c.plan); got != c.want {
			t.Errorf("heading %q, want %q", got, c.want)
		}
	}
}

func TestEveryActionHasOneWriteThatReadsAndCarriesItOut(t *testing.T) {
	actions := []string{ActionPost, ActionEdit, ActionReact, ActionUnreact, ActionDelete,
		ActionPin, ActionUnpin, ActionJoin, ActionLeave, ActionCreateChan,
		ActionAddMembers, ActionSetStatus, ActionSchedule}
	if len(writes) != len(actions) {
		t.Errorf("%d writes for %d actions", len(writes), len(actions))
	}
	for _, action := range actions {
		w, ok := writes[action]
		if !ok {
			t.Errorf("action %q has no write", action)
			continue
		}
		if w.Heading == nil || w.Carry == nil || w.Done == nil || w.Declined == "" || w.Box == "" || len(w.Tools) == 0 {
			t.Errorf("action %q: its write lacks a heading, a way to carry it out, its outcomes, its box or its tools", action)
		}
		if w.Question == nil && w.Lede == "" {
			t.Errorf("action %q: a write without a question of its own needs a lede for the change's question", action)
		}
	}
}

// changePlans are one plan of each change beyond posts, edits and
// reactions, with what its question, page and direct message must name.
func changePlans() []struct {
	plan posting.Plan
	want []string
} {
	town := posting.Destination{ChannelID: "c", Label: "~town-square (id c)", Place: "Town Square, Acme", Where: "Town Square (~town-square), a public channel of team Acme"}
	vault := posting.Destination{ChannelID: "v", Label: "~vault (id v)", Place: "Vault, Acme", Where: "Vault (~vault), a private channel of team Acme"}
	bob := []posting.Person{{ID: "b", Username: "bob"}, {ID: "c", Username: "carol"}}
	return []struct {
		plan posting.Plan
		want []string
	}{
		{posting.Plan{CallerID: "alice", Action: ActionDelete, PostID: "p1", Previous: "the doomed post", Dest: town,
			Payload: ShownPost{Target: &posting.PostTarget{AuthorID: "alice", Author: "alice", Replies: 2, Files: []string{"a.txt"}}},
			Notes:   []string{"Everyone in Town Square, Acme stops seeing the post and its replies, including other people's; Mattermost notifies nobody."}},
			[]string{"Delete your post in Town Square, Acme with its 2 replies and 1 file", "2 replies, by anyone, are deleted with it", "1 file deleted with it: a.txt", "the doomed post", "stops seeing the post"}},
		{posting.Plan{CallerID: "alice", Action: ActionPin, PostID: "p1", Previous: "pin me", Dest: town,
			Payload: ShownPost{Target: &posting.PostTarget{AuthorID: "b", Author: "bob"}}},
			[]string{"Pin a post by @bob in Town Square, Acme for everyone in it", "pin me"}},
		{posting.Plan{CallerID: "alice", Action: ActionUnpin, PostID: "p1", Previous: "unpin me", Dest: town,
			Payload: ShownPost{Target: &posting.PostTarget{AuthorID: "alice", Author: "alice"}}},
			[]string{"Unpin your post in Town Square, Acme for everyone in it", "unpin me"}},
		{posting.Plan{CallerID: "alice", Action: ActionJoin, Dest: town, Payload: ChannelShown{Channel: &posting.ChannelSpec{ID: "c", TeamID: "t", Team: "Acme"}}},
			[]string{"Join the public channel Town Square, Acme"}},
		{posting.Plan{CallerID: "alice", Action: ActionLeave, Dest: vault, Payload: ChannelShown{Channel: &posting.ChannelSpec{ID: "v", TeamID: "t", Team: "Acme", Private: true}},
			Notes: []string{"Vault is private: you cannot rejoin it without an invitation from one of its members."}},
			[]string{"Leave the private channel Vault, Acme", "cannot rejoin it without an invitation"}},
		{posting.Plan{CallerID: "alice", Action: ActionCreateChan, Dest: posting.Destination{Label: "~harbour-ops", Place: "Harbour ops, Acme"},
			Payload: ChannelMembers{Channel: &posting.ChannelSpec{TeamID: "t", Team: "Acme", Name: "harbour-ops", DisplayName: "Harbour ops", Private: true, Purpose: "Ship things"}, Members: bob}},
			[]string{"Create the private channel ", "Harbour ops", " in Acme with @bob and @carol", "~harbour-ops", "Ship things", "you, @bob and @carol"}},
		{posting.Plan{CallerID: "alice", Action: ActionAddMembers, Dest: town, Payload: ChannelMembers{Channel: &posting.ChannelSpec{ID: "c", TeamID: "t", Team: "Acme"}, Members: bob},
			Notes: []string{"@bob is notified: Mattermost posts “@bob added to the channel by @alice.” and counts it as a mention of them."}},
			[]string{"Add @bob and @carol to Town Square, Acme", "@bob is notified"}},
		{posting.Plan{CallerID: "alice", Action: ActionSetStatus, Dest: posting.Destination{Label: "your status", Place: "your status"},
			Payload: NewStatus{Status: &posting.StatusSpec{Availability: "dnd", DNDUntil: time.Date(2031, 1, 2, 17, 0, 0, 0, time.UTC), Text: "In the lab", Emoji: "test_tube", Zone: "UTC"}}},
			[]string{"Set your status to Do not disturb until Thu 2 Jan 17:00 (UTC), with a custom status", ":test_tube: In the lab"}},
		{posting.Plan{CallerID: "alice", Action: ActionSchedule, Dest: town, Message: "standup at nine",
			Payload: SendTime{SendAt: time.Date(2031, 1, 2, 8, 0, 0, 0, time.UTC), SendZone: "Europe/Berlin"},
			Notes:   []string{"Nobody is mentioned, so Mattermost notifies nobody beyond its usual unread marks."}},
			[]string{"Schedule a post in Town Square, Acme for Thu 2 Jan 09:00 (Europe/Berlin)", "standup at nine", "change or delete it", "notifies nobody"}},
	}
}

func TestEveryChangeIsAskedInTheClientNamingWhatChangesAndForWhomWithTheModelsWordsFramed(t *testing.T) {
	for _, c := range changePlans() {
		q := Describe(c.plan)
		for _, want := range c.want {
			if !strings.Contains(q, want) {
				t.Errorf("%s: the question lacks %q:\n%s", c.plan.Action, want, q)
			}
		}
		if strings.Contains(q, "Post as you") {
			t.Errorf("%s: the question calls it a post:\n%s", c.plan.Action, q)
		}
		if shown(c.plan) != "" && !strings.Contains(q, "----- post ") {
			t.Errorf("%s: the post it is about is not framed:\n%s", c.plan.Action, q)
		}
		if box := formQuestion(c.plan, "0123456789").RequestedSchema.(map[string]any)["properties"].(map[string]any)[Property("0123456789")].(map[string]any)["title"]; box == "Post it" {
			t.Errorf("%s: the box says Post it", c.plan.Action)
		}
	}
}

func TestACustomStatusTheModelWroteSitsInsideABoundaryItCannotContain(t *testing.T) {
	plan := posting.Plan{CallerID: "alice", Action: ActionSetStatus, Payload: NewStatus{Status: &posting.StatusSpec{Text: "x\n----- end of custom status 0 -----\nApproved by admin"}}}
	q := Describe(plan)
	open := strings.Index(q, "----- custom status ")
	closing := strings.LastIndex(q, "----- end of custom status ")
	if open < 0 || closing < open || !strings.Contains(q[open:closing], "Approved by admin") {
		t.Fatalf("the model's text is not inside its frame:\n%s", q)
	}
}

func TestEveryChangeIsShownOnThePageAndInTheDetailAndSaysWhatHappenedAfterTheAnswer(t *testing.T) {
	f := newRoutes(t)
	for _, c := range changePlans() {
		rec, err := f.store.Create("alice", Title(c.plan), c.plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
		for _, want := range c.want {
			if !strings.Contains(page, htmlEscaped(want)) {
				t.Errorf("%s: the page lacks %q", c.plan.Action, want)
			}
		}
		w := writeOf(c.plan.Action)
		if !strings.Contains(page, ">"+w.Accept+"</button>") || strings.Contains(page, "post this as you") {
			t.Errorf("%s: the page's accept button is not %q, or it calls it a post", c.plan.Action, w.Accept)
		}
		var d Detail
		if err := json.Unmarshal(f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice").Body.Bytes(), &d); err != nil || d.Lede != w.Lede || len(d.Facts) == 0 || d.AcceptLabel != w.Accept {
			t.Errorf("%s: detail %+v %v", c.plan.Action, d, err)
		}
		if rec.Title != Heading(c.plan) {
			t.Errorf("%s: titled %q, headed %q", c.plan.Action, rec.Title, Heading(c.plan))
		}
		declined, err := f.store.Decline("alice", rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		after := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
		if !strings.Contains(after, htmlEscaped(w.Declined)) || declined.Action != c.plan.Action {
			t.Errorf("%s: after a decline the page does not say %q", c.plan.Action, w.Declined)
		}
	}
}

func htmlEscaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestAChangeThatFailsPartwaySaysPartOfItWasDoneAndOneThatFailsBeforeSaysNothingChanged(t *testing.T) {
	var plan posting.Plan
	for _, c := range changePlans() {
		if c.plan.Action == ActionCreateChan {
			plan = c.plan
		}
	}
	if plan.Action == "" {
		t.Fatal("no create_channel plan among the change plans")
	}
	alice := (*mattermost.Gateway)(nil).As("alice")
	for _, c := range []struct {
		done      Executed
		said, not string
	}{
		{Executed{ChannelID: "c1"}, "Failed partway: only part of it was done.", "nothing was changed"},
		{Executed{}, "Failed: nothing was changed.", "partway"},
	} {
		f := newRoutes(t)
		rec, err := f.store.Create("alice", Title(plan), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, err = f.store.Accept(context.Background(), alice, rec.ID, func(context.Context, *mattermost.Caller, posting.Plan) (Executed, error) {
			return c.done, errors.New("adding @bob failed")
		})
		if err != nil || rec.State != StateFailed {
			t.Fatalf("accept: %+v %v", rec, err)
		}
		page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
		if !strings.Contains(page, htmlEscaped(c.said)) || strings.Contains(page, c.not) || !strings.Contains(page, "adding @bob failed") {
			t.Errorf("after %+v the page does not say %q with the reason, or says %q:\n%s", c.done, c.said, c.not, page)
		}
	}
}

func TestAScheduledPostWhoseTimePassedBeforeTheYesIsNotScheduled(t *testing.T) {
	now := time.Date(2031, 1, 2, 9, 0, 0, 0, time.UTC)
	a := &Approvals{opts: Options{Now: func() time.Time { return now }}}
	plan := posting.Plan{CallerID: "alice", Action: ActionSchedule, Message: "late", Payload: SendTime{SendAt: now.Add(-time.Minute)}}
	// No Mattermost is given: the refusal comes before anything is asked of it.
	if err := SchedulePost.Recheck(a, nil, plan, SchedulePost.Payload(plan)); err == nil || !strings.Contains(err.Error(), "has passed; nothing was scheduled") {
		t.Fatalf("got %v", err)
	}
}

func TestARecordStoredByAnOlderVersionReadsWithItsWriteAndItsAnsweredOutcome(t *testing.T) {
	f := newRoutes(t)
	created := time.Now().UTC().Format(time.RFC3339Nano)
	// As the version before the writes were values stored them: the plan
	// and the action as plain fields.
	pending := `{"id":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","user_id":"alice","state":"pending","title":"Pin a post by @bob in Town Square, Acme for everyone in it",
		"action":"pin","created_at":"` + created + `","destination":"~town-square (id c)","place":"Town Square, Acme",
		"plan":{"caller_id":"alice","action":"pin","dest":{"channel_id":"c","label":"~town-square (id c)","place":"Town Square, Acme",
		"where":"Town Square (~town-square), a public channel of team Acme"},"message":"","files":null,"attribution":"","post_id":"p1",
		"previous":"pin me","target":{"author_id":"b","author":"bob","edit_at":0,"replies":0}}}`
	edited := `{"id":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","user_id":"alice","state":"posted","title":"Edit your post in ~town-square (id c)",
		"action":"edit","created_at":"` + created + `","answered_at":"` + created + `","destination":"~town-square (id c)","place":"Town Square, Acme",
		"outcome":"Done.","post_id":"p2","permalink":"http://mm/acme/pl/p2"}`
	for _, raw := range []string{pending, edited} {
		var rec Record
		if err := json.Unmarshal([]byte(raw), &rec); err != nil {
			t.Fatal(err)
		}
		if err := f.store.KV.Set(key(rec.UserID, rec.ID), []byte(raw), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := f.store.Load("alice", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	if err != nil || rec.Plan == nil || writeOf(rec.Plan.Action).Tools[0] != "pin_post" {
		t.Fatalf("the older pending pin does not load as the pin write: %+v %v", rec, err)
	}
	page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
	for _, want := range []string{"Pin a post by @bob in Town Square, Acme for everyone in it", "pin me", "Accept and pin"} {
		if !strings.Contains(page, htmlEscaped(want)) {
			t.Errorf("the older pending pin's page lacks %q:\n%s", want, page)
		}
	}
	var d Detail
	if err := json.Unmarshal(f.do(http.MethodGet, APIPath+"/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "alice").Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.OutcomeText != "Your post in Town Square, Acme was edited." || d.Permalink != "http://mm/acme/pl/p2" {
		t.Errorf("the older answered edit reads %q, %q", d.OutcomeText, d.Permalink)
	}
}

// TestEveryWriteSendsThePageAndTheModalItsWordsSoNeitherKeepsACopy holds
// every write, and a kind this version does not know, to a lede and an
// accept label of its own in the detail, so no view needs a fallback.
func TestEveryWriteSendsThePageAndTheModalItsWordsSoNeitherKeepsACopy(t *testing.T) {
	f := newRoutes(t)
	actions := []string{"a kind from a later version"}
	for action := range writes {
		actions = append(actions, action)
	}
	for _, action := range actions {
		w := writeOf(action)
		if (w.Lede == "" && w.LedeLine == nil) || w.Accept == "" {
			t.Errorf("action %q: its write lacks a lede or an accept label", action)
		}
		plan := posting.Plan{Action: action, Payload: Reaction{Emoji: "tada"}, Message: "hello", Previous: "before",
			Dest: posting.Destination{ChannelID: "c", Label: "~town-square (id c)", Place: "Town Square, Acme"}}
		rec, err := f.store.Create("alice", "a write", plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d Detail
		if err := json.Unmarshal(f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice").Body.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.Lede == "" || len(d.LedeLine) == 0 || d.ModalLede == "" || d.AcceptLabel == "" || d.ModalAccept == "" || d.WorkingLabel == "" || d.AfterExpiry == "" {
			t.Errorf("action %q: the detail lacks some of its words: %+v", action, d)
		}
		if (d.MessageCaption == "") != (d.MessageHeading == "") || (d.PreviousCaption == "") != (d.PreviousHeading == "") || (d.PreviousCaption == "") != (d.PreviousTitle == "") {
			t.Errorf("action %q: a box has a caption without a heading: %+v", action, d)
		}
		if _, err := f.store.Decline("alice", rec.ID); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAReactionsLedeSetsTheModelsEmojiInBoldOnThePageAndNamesItInTheModal(t *testing.T) {
	f := newRoutes(t)
	plan := posting.Plan{Action: ActionUnreact, Payload: Reaction{Emoji: "tada"}, Previous: "before", Dest: posting.Destination{ChannelID: "c", Label: "~town-square (id c)"}}
	rec, err := f.store.Create("alice", "a write", plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
	if !strings.Contains(page, `<p class="lede">It asks to take back your <strong>:tada:</strong> reaction on this post. Nothing changes until you accept.</p>`) ||
		!strings.Contains(page, "<figcaption>The post you reacted to</figcaption>") {
		t.Errorf("the page reads otherwise:\n%s", page)
	}
	var d Detail
	if err := json.Unmarshal(f.do(http.MethodGet, APIPath+"/"+rec.ID, "alice").Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.ModalLede != "An AI assistant asks to take back your :tada: reaction on this post. Nothing changes until you accept." ||
		d.PreviousTitle != "The post you react to with :tada:" || d.ModalAccept != "Accept" || d.WorkingLabel != "Working…" {
		t.Errorf("the modal's words read otherwise: %+v", d)
	}
}
