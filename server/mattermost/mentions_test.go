package mattermost

import (
	"fmt"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"
)

func aliceKeys(channel string) MentionKeys {
	return mentionKeysOf(&model.User{Username: "alice", FirstName: "Alice", NotifyProps: model.StringMap{
		model.MentionKeysNotifyProp: "zeppelin, deploy-bot,アリス", model.FirstNameNotifyProp: "true", model.ChannelMentionsNotifyProp: channel,
	}})
}

func TestAMentionIsWhatMattermostCountsAsOne(t *testing.T) {
	keys := aliceKeys("true")
	cases := []struct {
		msg  string
		want []string
	}{
		{"hey @alice, look", []string{"@alice"}},
		{"@ALICE.", []string{"@alice"}},
		{"thanks @alice_", []string{"@alice"}},
		{"@alice: see above", []string{"@alice"}},
		{"@alice...", []string{"@alice"}},
		{"ask @alicex", nil},
		{"mail alice@example.com", nil},
		{"@alice.smith knows", nil},
		{"inline `@alice` code", nil},
		{"```\n@alice\n```", nil},
		{"~~~go\nx := \"@alice\"\n~~~", nil},
		{"text\n\n    @alice indented code", nil},
		{"[docs](https://example.com/@alice)", nil},
		{"![pic](https://example.com/@alice.png)", nil},
		{"[ask @alice](https://example.com)", []string{"@alice"}},
		{"> @alice quoted", []string{"@alice"}},
		{"- a list for @alice", []string{"@alice"}},
		{"**@alice** bold", []string{"@alice"}},
		{":alice: is an emoji", nil},
		{"Alice, look", []string{"Alice"}},
		{"alice, look", nil},
		{"the zeppelin landed", []string{"zeppelin"}},
		{"THE ZEPPELIN", []string{"zeppelin"}},
		{"ping deploy-bot now", []string{"deploy-bot"}},
		{"deploy-bots", nil},
		{"deploy.zeppelin", []string{"zeppelin"}},
		{"アリスさん、こんにちは", []string{"アリス"}},
		{"@here standup", []string{"@here"}},
		{"@channel.", []string{"@channel"}},
		{"the plan is here, for all", nil},
		{"@alice and @all", []string{"@alice", "@all"}},
	}
	for _, c := range cases {
		if got := keys.Mentions(&model.Post{Message: c.msg}, true); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Mentions(%q) = %v, want %v", c.msg, got, c.want)
		}
	}
}

func TestChannelWideMentionsCountOnlyWhereTheyAreAllowed(t *testing.T) {
	post := &model.Post{Message: "@channel @all @here release"}
	if got := aliceKeys("true").Mentions(post, false); got != nil {
		t.Errorf("in a channel that ignores them: %v", got)
	}
	for _, setting := range []string{"false", ""} {
		if got := aliceKeys(setting).Mentions(post, true); got != nil {
			t.Errorf("with the account's channel setting %q: %v", setting, got)
		}
	}
	if got := aliceKeys("true").Mentions(post, true); fmt.Sprint(got) != "[@channel @all @here]" {
		t.Errorf("allowed: %v", got)
	}
}

func TestAMentionInAMessageAttachmentCounts(t *testing.T) {
	p := &model.Post{Message: "build failed"}
	p.AddProp(model.PostPropsAttachments, []*model.SlackAttachment{{Pretext: "", Text: "blame @alice", Fields: []*model.SlackAttachmentField{{Value: "zeppelin"}}}})
	if got := aliceKeys("true").Mentions(p, true); fmt.Sprint(got) != "[@alice zeppelin]" {
		t.Errorf("Mentions = %v", got)
	}
}

func TestIgnoringChannelMentionsFollowsTheChannelSettingAndMuting(t *testing.T) {
	cases := []struct {
		ignore, markUnread string
		want               bool
	}{
		{model.IgnoreChannelMentionsOn, model.ChannelMarkUnreadAll, true},
		{model.IgnoreChannelMentionsOff, model.ChannelMarkUnreadMention, false},
		{model.IgnoreChannelMentionsDefault, model.ChannelMarkUnreadMention, true},
		{model.IgnoreChannelMentionsDefault, model.ChannelMarkUnreadAll, false},
	}
	for _, c := range cases {
		props := model.StringMap{model.IgnoreChannelMentionsNotifyProp: c.ignore, model.MarkUnreadNotifyProp: c.markUnread}
		if got := IgnoresChannelMentions(props); got != c.want {
			t.Errorf("ignore %q, mark unread %q: %v, want %v", c.ignore, c.markUnread, got, c.want)
		}
	}
}

// checkerOn is alice's MentionChecker on a server with these channels,
// where only posterOK may use channel mentions and at most maxNotify
// members are notified.
func checkerOn(t *testing.T, maxNotify int64, channels map[string]struct {
	typ     model.ChannelType
	members int64
	props   model.StringMap
}) *MentionChecker {
	t.Helper()
	api := &plugintest.API{}
	t.Cleanup(func() { api.AssertExpectations(t) })
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID, Username: "alice", NotifyProps: model.StringMap{model.ChannelMentionsNotifyProp: "true"}}, nil)
	api.On("GetConfig").Return(&model.Config{TeamSettings: model.TeamSettings{MaxNotificationsPerChannel: model.NewPointer(maxNotify)}})
	for id, ch := range channels {
		api.On("GetChannel", id).Return(&model.Channel{Id: id, Type: ch.typ}, nil)
		api.On("GetChannelMember", id, aliceID).Return(&model.ChannelMember{ChannelId: id, UserId: aliceID, NotifyProps: ch.props}, nil)
		api.On("GetChannelStats", id).Return(&model.ChannelStats{ChannelId: id, MemberCount: ch.members}, nil).Maybe()
	}
	api.On("HasPermissionToChannel", "posterOK", mock.Anything, model.PermissionUseChannelMentions).Return(true).Maybe()
	api.On("HasPermissionToChannel", "posterNo", mock.Anything, model.PermissionUseChannelMentions).Return(false).Maybe()
	m, err := aliceOn(api).MentionChecker()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestChannelMentionsFollowTheChannelThePosterAndTheChannelsSize(t *testing.T) {
	open, ignored, big, dm := model.NewId(), model.NewId(), model.NewId(), model.NewId()
	defaults := model.StringMap{model.IgnoreChannelMentionsNotifyProp: model.IgnoreChannelMentionsDefault, model.MarkUnreadNotifyProp: model.ChannelMarkUnreadAll}
	m := checkerOn(t, 1000, map[string]struct {
		typ     model.ChannelType
		members int64
		props   model.StringMap
	}{
		open:    {model.ChannelTypeOpen, 10, defaults},
		ignored: {model.ChannelTypeOpen, 10, model.StringMap{model.IgnoreChannelMentionsNotifyProp: model.IgnoreChannelMentionsOn}},
		big:     {model.ChannelTypeOpen, 1000, defaults},
		dm:      {model.ChannelTypeDirect, 2, defaults},
	})
	cases := []struct {
		name     string
		post     *model.Post
		mentions bool
	}{
		{"an open channel", &model.Post{ChannelId: open, UserId: "posterOK", Message: "@channel"}, true},
		{"a poster without use_channel_mentions", &model.Post{ChannelId: open, UserId: "posterNo", Message: "@channel"}, false},
		{"a header change", &model.Post{ChannelId: open, UserId: "posterOK", Message: "@all", Type: model.PostTypeHeaderChange}, false},
		{"a channel where alice ignores them", &model.Post{ChannelId: ignored, UserId: "posterOK", Message: "@here"}, false},
		{"a channel of MaxNotificationsPerChannel members", &model.Post{ChannelId: big, UserId: "posterOK", Message: "@all"}, false},
		{"a direct message", &model.Post{ChannelId: dm, UserId: "posterOK", Message: "@channel"}, false},
		{"her name in a large channel", &model.Post{ChannelId: big, UserId: "posterNo", Message: "@alice"}, true},
	}
	for _, c := range cases {
		got, err := m.Mentions(c.post)
		if err != nil {
			t.Fatal(err)
		}
		if (len(got) > 0) != c.mentions {
			t.Errorf("%s: %v, want a mention %v", c.name, got, c.mentions)
		}
	}
}

func FuzzMentionsOfAnyMessageAreKeysOfThePerson(f *testing.F) {
	for _, s := range []string{"", "@alice_", "`@alice`", "[x](@alice)", ":::", "@", "@here.", "アリス", "\xff@alice"} {
		f.Add(s)
	}
	keys := aliceKeys("true")
	valid := map[string]bool{}
	for _, k := range append(append([]string{}, keys.Personal...), keys.ChannelWide...) {
		valid[k] = true
	}
	f.Fuzz(func(t *testing.T, msg string) {
		for _, k := range keys.Mentions(&model.Post{Message: msg}, true) {
			if !valid[k] {
				t.Fatalf("Mentions(%q) names %q, which is no key of alice's", msg, k)
			}
		}
	})
}
