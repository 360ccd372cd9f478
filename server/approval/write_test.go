package approval

import (
	"testing"

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
		{posting.Plan{Action: posting.ActionEdit, Dest: channel, Message: "new"}, "Edit your post in Harbour ops, CEO Team"},
		{posting.Plan{Action: posting.ActionReact, Emoji: "tada", Dest: channel}, "React “:tada:” to a post in Harbour ops, CEO Team"},
		{posting.Plan{Action: posting.ActionUnreact, Emoji: "tada", Dest: channel}, "Take back your “:tada:” on a post in Harbour ops, CEO Team"},
	}
	for _, c := range cases {
		if got := Heading(c.plan); got != c.want {
			t.Errorf("heading %q, want %q", got, c.want)
		}
	}
}

func TestEveryActionHasOneWriteThatReadsAndCarriesItOut(t *testing.T) {
	actions := []string{posting.ActionPost, posting.ActionEdit, posting.ActionReact, posting.ActionUnreact, posting.ActionDelete,
		posting.ActionPin, posting.ActionUnpin, posting.ActionJoin, posting.ActionLeave, posting.ActionCreateChan,
		posting.ActionAddMembers, posting.ActionSetStatus, posting.ActionSchedule}
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
		if (w.Lede == "") != (w.Question != nil) {
			t.Errorf("action %q: a write has either a lede (and the change's question) or a question of its own", action)
		}
	}
}
