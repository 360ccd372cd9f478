package tools

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/postcontent"
)

func TestAPostCarryingAttachmentsIsNeverCalledASystemMessage(t *testing.T) {
	var b strings.Builder
	postText(&b, PostView{ID: "p1", Type: model.PostTypeSlackAttachment, Author: "@alice", Permalink: "http://x/pl/p1",
		Content: postcontent.Content{Cards: []postcontent.Card{{Title: "Pipeline #4711 failed"}}}})
	got := b.String()
	if strings.Contains(got, "system message") || !strings.Contains(got, "  message attachment 1 of 1:\n    title: Pipeline #4711 failed\n") {
		t.Fatalf("text:\n%s", got)
	}
}

func TestASystemMessageIsMarkedAsOneInTheHeader(t *testing.T) {
	var b strings.Builder
	postText(&b, PostView{ID: "p1", Type: model.PostTypeJoinChannel, Author: "@alice", Message: "@alice joined the channel.",
		Permalink: "http://x/pl/p1", Content: postcontent.Content{System: true}})
	if got := b.String(); !strings.Contains(got, "(post p1, system message):\n  @alice joined the channel.\n") {
		t.Fatalf("text:\n%s", got)
	}
}

func TestAnEmptyMessageWritesNoEmptyLine(t *testing.T) {
	var b strings.Builder
	postText(&b, PostView{ID: "p1", Author: "@alice", Permalink: "http://x/pl/p1"})
	if got := b.String(); strings.Contains(got, "\n  \n") {
		t.Fatalf("text:\n%q", got)
	}
}
