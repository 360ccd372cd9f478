package completion

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

// person is a Mattermost (a test double of the plugin API behind the real
// gateway) where userID belongs to the teams "sales" and "eng" and to n
// channels spread over them, channel-0000 the newest.
func person(t testing.TB, userID string, n int) (*plugintest.API, *Provider) {
	t.Helper()
	api := &plugintest.API{}
	cfg := &model.Config{}
	cfg.SetDefaults()
	api.On("GetConfig").Return(cfg).Maybe()
	teams := []*model.Team{{Id: model.NewId(), Name: "sales", DisplayName: "Sales"}, {Id: model.NewId(), Name: "eng", DisplayName: "Engineering"}}
	api.On("GetTeamsForUser", userID).Return(teams, nil)
	for _, tm := range teams {
		api.On("GetTeamMember", tm.Id, userID).Return(&model.TeamMember{TeamId: tm.Id, UserId: userID}, nil)
	}
	var channels []*model.Channel
	var members []*model.ChannelMember
	for i := range n {
		ch := &model.Channel{Id: model.NewId(), TeamId: teams[i%2].Id, Type: model.ChannelTypeOpen,
			Name: fmt.Sprintf("channel-%04d", i), DisplayName: fmt.Sprintf("Project %04d", i), LastPostAt: int64(1_000_000 - i)}
		channels = append(channels, ch)
		members = append(members, &model.ChannelMember{ChannelId: ch.Id, UserId: userID})
	}
	api.On("GetChannelsForTeamForUser", "", userID, false).Return(channels, nil)
	for page := 0; page*200 <= n; page++ {
		end := min(n, (page+1)*200)
		api.On("GetChannelMembersForUser", "", userID, page, 200).Return(members[page*200:end], nil)
	}
	return api, &Provider{MM: mattermost.NewGateway(api, nil), callerOf: userOf}
}

type userKey struct{}

// as is a request of userID: the provider's callerOf reads it (the
// transport's own context is its business).
func as(userID string) context.Context {
	return context.WithValue(context.Background(), userKey{}, userID)
}

func userOf(ctx context.Context) string {
	id, _ := ctx.Value(userKey{}).(string)
	return id
}

func complete(t testing.TB, p *Provider, ctx context.Context, kind Kind, typed string, context map[string]string) *mcp.Completion {
	t.Helper()
	got, err := p.complete(ctx, kind, typed, context)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestChannelsCompleteByPrefixOfNameOrDisplayNameInAnyCaseAtMostOneHundredWithTheTotal(t *testing.T) {
	alice := model.NewId()
	_, p := person(t, alice, 1000)
	got := complete(t, p, as(alice), Channel, "CHANNEL-0", nil)
	if len(got.Values) != MaxValues || got.Total != 1000 || !got.HasMore {
		t.Fatalf("channel-0…: %d values, total %d, has more %v; want 100 of 1000, more", len(got.Values), got.Total, got.HasMore)
	}
	if got.Values[0] != "channel-0000" {
		t.Errorf("the newest channel comes first; got %q", got.Values[0])
	}
	got = complete(t, p, as(alice), Channel, "project 012", nil)
	if got.Total != 10 || got.HasMore || got.Values[0] != "channel-0120" {
		t.Errorf("by display name \"project 012\": %v (total %d), want the 10 channels 0120-0129", got.Values, got.Total)
	}
	got = complete(t, p, as(alice), TeamChannel, "~channel-012", map[string]string{"team": "eng"})
	if got.Total != 5 {
		t.Errorf("in team eng, channel-012…: %v, want the 5 of eng (odd numbers)", got.Values)
	}
	if got := complete(t, p, as(alice), Channel, "nothing-like-it", nil); len(got.Values) != 0 || got.Values == nil {
		t.Errorf("no match answers an empty list, got %#v", got.Values)
	}
}

func TestOnePersonsChannelsAreNeverAnsweredToAnother(t *testing.T) {
	alice, bob := model.NewId(), model.NewId()
	api, p := person(t, alice, 3)
	if got := complete(t, p, as(alice), Channel, "channel", nil); got.Total != 3 {
		t.Fatalf("alice's channels: %v", got.Values)
	}
	api.On("GetTeamsForUser", bob).Return([]*model.Team{}, nil)
	api.On("GetChannelsForTeamForUser", "", bob, false).Return([]*model.Channel{}, nil)
	api.On("GetChannelMembersForUser", "", bob, 0, 200).Return([]*model.ChannelMember{}, nil)
	if got := complete(t, p, as(bob), Channel, "channel", nil); got.Total != 0 {
		t.Errorf("bob was answered alice's channels: %v", got.Values)
	}
	if got := complete(t, p, context.Background(), Channel, "channel", nil); got.Total != 0 {
		t.Errorf("a request with nobody signed in was answered: %v", got.Values)
	}
}

func TestAPersonsChannelsAreReadOnceWhileTheyTypeAndAgainOnceTheCacheLapsed(t *testing.T) {
	alice := model.NewId()
	api, p := person(t, alice, 10)
	now := time.Unix(1_700_000_000, 0)
	p.now = func() time.Time { return now }
	for _, typed := range []string{"c", "ch", "cha", "chan"} {
		complete(t, p, as(alice), Channel, typed, nil)
	}
	api.AssertNumberOfCalls(t, "GetChannelsForTeamForUser", 1)
	now = now.Add(cacheFor)
	complete(t, p, as(alice), Channel, "chann", nil)
	api.AssertNumberOfCalls(t, "GetChannelsForTeamForUser", 2)
}

func TestTheCacheKeepsAtMostItsBoundOfPeople(t *testing.T) {
	var k cache
	now := time.Unix(1_700_000_000, 0)
	for i := range maxCachedPeople + 10 {
		k.put(fmt.Sprintf("user-%d", i), &personEntry{at: now.Add(time.Duration(i) * time.Millisecond)})
	}
	if len(k.people) != maxCachedPeople {
		t.Fatalf("%d people cached, bound %d", len(k.people), maxCachedPeople)
	}
	if k.get("user-0", now) != nil || k.get(fmt.Sprintf("user-%d", maxCachedPeople+9), now) == nil {
		t.Error("the stalest entries should have made room for the newest")
	}
}

func TestTeamsCompleteByNameOrDisplayName(t *testing.T) {
	alice := model.NewId()
	_, p := person(t, alice, 0)
	if got := complete(t, p, as(alice), Team, "ENGI", nil); len(got.Values) != 1 || got.Values[0] != "eng" {
		t.Errorf("\"ENGI\": %v, want [eng]", got.Values)
	}
	if got := complete(t, p, as(alice), Team, "", nil); got.Total != 2 {
		t.Errorf("nothing typed: %v, want both teams", got.Values)
	}
}

func TestSinceCompletesTodayAndTheDaysBeforeItByPrefix(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	got := days(now, "")
	if got[0] != "2026-12-01" || got[1] != "2026-11-30" || len(got) != len(pastDays) {
		t.Errorf("days: %v", got)
	}
	if got := days(now, "2026-12"); len(got) != 1 {
		t.Errorf("\"2026-12\": %v, want only today", got)
	}
}

func TestFreeTextAndAValueLongerThanAnyNameCompleteToNothing(t *testing.T) {
	alice := model.NewId()
	_, p := person(t, alice, 3)
	if got := complete(t, p, as(alice), Free, "ch", nil); len(got.Values) != 0 {
		t.Errorf("free text: %v", got.Values)
	}
	long := make([]byte, maxTyped+1)
	for i := range long {
		long[i] = 'c'
	}
	if got := complete(t, p, as(alice), Channel, string(long), nil); len(got.Values) != 0 {
		t.Errorf("an over-long value: %v", got.Values)
	}
}

// TestTheProtocolsCompletionIsAnsweredThroughTheProviders drives
// completion/complete through mcp-go, for a prompt argument and a template
// variable.
func TestTheProtocolsCompletionIsAnsweredThroughTheProviders(t *testing.T) {
	alice := model.NewId()
	_, p := person(t, alice, 150)
	p.Prompts = map[string]map[string]Kind{"summarize_channel": {"channel": Channel}}
	s := server.NewMCPServer("test", "0", server.WithCompletions(), server.WithPromptCompletionProvider(p), server.WithResourceCompletionProvider(p))
	for _, ref := range []string{`{"type":"ref/prompt","name":"summarize_channel"}`, `{"type":"ref/resource","uri":"mattermost://channel/{team}/{channel}"}`} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":` + ref + `,"argument":{"name":"channel","value":"Chan"}}}`
		res, ok := s.HandleMessage(as(alice), []byte(msg)).(mcp.JSONRPCResponse)
		if !ok {
			t.Fatalf("%s: not a result", ref)
		}
		got := res.Result.(mcp.CompleteResult).Completion
		if len(got.Values) != MaxValues || got.Total != 150 || !got.HasMore {
			t.Errorf("%s: %d values, total %d, more %v", ref, len(got.Values), got.Total, got.HasMore)
		}
	}
}

// BenchmarkCompleteAChannelOfAPersonWith1000Channels is what one keystroke
// costs a person with 1,000 channels: the first (their channels read from
// the plugin API, here a test double) and the next ones (from the cache).
func BenchmarkCompleteAChannelOfAPersonWith1000Channels(b *testing.B) {
	alice := model.NewId()
	_, p := person(b, alice, 1000)
	ctx := as(alice)
	b.Run("FirstKeystroke", func(b *testing.B) {
		for b.Loop() {
			p.cache = cache{}
			complete(b, p, ctx, Channel, "project 05", nil)
		}
	})
	b.Run("NextKeystrokes", func(b *testing.B) {
		complete(b, p, ctx, Channel, "p", nil)
		for b.Loop() {
			complete(b, p, ctx, Channel, "project 05", nil)
		}
	})
}

func TestAPersonWhoseChannelsChangedIsReadAgainAtTheNextKeystroke(t *testing.T) {
	alice := model.NewId()
	api, p := person(t, alice, 10)
	now := time.Unix(1_700_000_000, 0)
	p.now = func() time.Time { return now }
	complete(t, p, as(alice), Channel, "c", nil)
	complete(t, p, as(alice), Channel, "ch", nil)
	api.AssertNumberOfCalls(t, "GetChannelsForTeamForUser", 1)
	p.Forget(alice) // what the plugin's membership hooks do
	complete(t, p, as(alice), Channel, "cha", nil)
	api.AssertNumberOfCalls(t, "GetChannelsForTeamForUser", 2)
}
