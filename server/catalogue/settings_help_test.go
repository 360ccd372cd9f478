package catalogue

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func TestTheWriteSettingsNameEveryWriteByItsToolsetAndOnlyThoseOthersSeeAsConfirmed(t *testing.T) {
	write := func(title string, e Effect, set config.Toolset) Tool {
		return Tool{Name: strings.ReplaceAll(strings.ToLower(title), " ", "_"), Title: title, Effect: e, Toolset: set}
	}
	got := DescribeWrites([]Tool{
		write("Read a channel", ReadsOnly, config.ToolsetChannels),
		write("Write a workspace file", ChangesOwnWorkspace, config.ToolsetWorkspace),
		write("Save a post", ChangesOwnView, config.ToolsetOwnView),
		write("Set your status", ChangesMattermost, config.ToolsetStatus),
		write("Post in a channel", ChangesMattermost, config.ToolsetPosting),
		write("Remind me of a post", ChangesOwnView, config.ToolsetOwnView),
		write("Delete one of your posts", ChangesMattermost, config.ToolsetPosting),
		write("Join a channel", ChangesMattermost, config.ToolsetChannelChanges),
	})
	for _, c := range []struct{ name, text, want string }{
		{"allow", got.AllowHelp, "Writes others see, each confirmed by the person as set below. " +
			"Posting: post in a channel, delete one of the person's posts. Channel changes: join a channel. Status: set the person's status. " +
			"Writes only the person sees, done without a question. The person's own view: save a post, remind the person of a post. When false"},
		{"allow row", got.AllowRow, "Writes others see, each confirmed by the person. Posting: post in a channel, delete one of the person's posts. " +
			"Channel changes: join a channel. Status: set the person's status. Writes only the person sees, without a question. " +
			"The person's own view: save a post, remind the person of a post. Off:"},
		{"confirm", got.ConfirmHelp, "Before a tool changes what others see (Posting, Channel changes and Status, as"},
		{"confirm row", got.ConfirmRow, "Every write others see (Posting, Channel changes and Status) is shown"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s says\n %s\nwant it to say\n %s", c.name, c.text, c.want)
		}
	}
	for _, text := range []string{got.AllowHelp, got.AllowRow, got.ConfirmHelp, got.ConfirmRow} {
		if strings.Contains(text, "read a channel") || strings.Contains(text, "workspace") || strings.Contains(text, "|") {
			t.Errorf("a tool that changes nothing in Mattermost, or a table's |, is in %q", text)
		}
	}
}

func TestAToolTitleIsSaidAboutThePersonToTheAdmin(t *testing.T) {
	for title, want := range map[string]string{
		"Set your status":          "set the person's status",
		"Remind me of a post":      "remind the person of a post",
		"Edit one of your posts":   "edit one of the person's posts",
		"Pin a post":               "pin a post",
		"Mention yourself or some": "mention yourself or some",
	} {
		if got := adminVoice(title); got != want {
			t.Errorf("%q: %q, want %q", title, got, want)
		}
	}
}
