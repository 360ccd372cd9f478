package mattermost

import (
	"fmt"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
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
