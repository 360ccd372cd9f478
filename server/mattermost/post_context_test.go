package mattermost

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
)

func TestCollapsedThreadsFollowTheServerThenThePersonsOwnChoiceAsMattermostDecides(t *testing.T) {
	cases := []struct {
		setting, choice string
		want            bool
	}{
		{model.CollapsedThreadsAlwaysOn, "off", true},
		{model.CollapsedThreadsDisabled, "on", false},
		{model.CollapsedThreadsDefaultOn, "", true},
		{model.CollapsedThreadsDefaultOn, "off", false},
		{model.CollapsedThreadsDefaultOff, "", false},
		{model.CollapsedThreadsDefaultOff, "on", true},
		// A server without the setting has no collapsed threads.
		{"", "on", false},
	}
	for _, c := range cases {
		if got := collapsedFor(c.setting, c.choice); got != c.want {
			t.Errorf("setting %q, choice %q: collapsed %v, want %v", c.setting, c.choice, got, c.want)
		}
	}
}

func TestReactionsAreGroupedInTheOrderEachEmojiWasFirstUsedWithTheFirstPeople(t *testing.T) {
	rs := []*model.Reaction{
		{UserId: "c", EmojiName: "+1", CreateAt: 30},
		{UserId: "a", EmojiName: "tada", CreateAt: 10},
		{UserId: "b", EmojiName: "+1", CreateAt: 20},
		{UserId: "d", EmojiName: "+1", CreateAt: 40},
		{UserId: "e", EmojiName: "tada", CreateAt: 50, DeleteAt: 60},
	}
	got := groupReactions(rs, 2)
	if len(got) != 2 || got[0].Emoji != "tada" || got[0].Count != 1 || got[1].Emoji != "+1" || got[1].Count != 3 ||
		strings.Join(got[1].UserIDs, ",") != "b,c" {
		t.Errorf("groups %+v", got)
	}
}

func TestWithoutTheDatabaseOnlyPostsThatHaveReactionsAreAskedForThem(t *testing.T) {
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	with, without, carried := &model.Post{Id: model.NewId(), HasReactions: true}, &model.Post{Id: model.NewId()}, &model.Post{Id: model.NewId(), HasReactions: true,
		Metadata: &model.PostMetadata{Reactions: []*model.Reaction{{UserId: "u", EmojiName: "eyes"}}}}
	api.On("GetReactions", with.Id).Return([]*model.Reaction{{UserId: "u", EmojiName: "+1"}}, nil).Once()
	got, err := aliceOn(api).PostReactions([]*model.Post{with, without, carried}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[with.Id][0].Emoji != "+1" || got[carried.Id][0].Emoji != "eyes" {
		t.Errorf("reactions %+v", got)
	}
}

func TestTheReactionsQueryTakesThePostIdsThenTheCap(t *testing.T) {
	q, err := reactionsQuery(driverPostgres, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(q, "PostId IN ($1, $2)") || !strings.Contains(q, "rn <= $3") || !strings.Contains(q, "DeleteAt = 0") {
		t.Errorf("query %s", q)
	}
}
