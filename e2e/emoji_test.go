package e2e

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"sort"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func createEmoji(t *testing.T, name string) *model.Emoji {
	t.Helper()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	e, _, err := mm.Client(mm.Admin).CreateEmoji(context.Background(), &model.Emoji{Name: name, CreatorId: mm.Admin.ID}, img.Bytes(), name+".png")
	if err != nil {
		t.Fatalf("create emoji %s: %v", name, err)
	}
	return e
}

func TestListEmojiFindsCustomEmojiByNamePrefixPageByPage(t *testing.T) {
	stem := uniq(t, "kite")
	created := []string{createEmoji(t, stem+"_b").Name, createEmoji(t, stem+"-a").Name}
	createEmoji(t, uniq(t, "other"))
	c := connect(t, mm.URL, mm.Users[0].Token)
	var first, second tools.EmojiList
	res := call(t, c, "list_emoji", map[string]any{"prefix": ":" + stem, "limit": 1})
	structuredAs(t, res, &first)
	if res.IsError || len(first.Emoji) != 1 || first.NextCursor == "" || !strings.Contains(text(res), "list_emoji ") {
		t.Fatalf("first page: %s", text(res))
	}
	res = call(t, c, "list_emoji", map[string]any{"prefix": ":" + stem, "limit": 1, "cursor": first.NextCursor})
	structuredAs(t, res, &second)
	if res.IsError || len(second.Emoji) != 1 || !second.Complete {
		t.Fatalf("second page: %s", text(res))
	}
	got := []string{first.Emoji[0].Name, second.Emoji[0].Name}

	found, _, err := mm.Client(mm.Users[0]).SearchEmoji(context.Background(), &model.EmojiSearch{Term: stem, PrefixOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range found {
		want = append(want, e.Name)
	}
	sort.Strings(want)
	sort.Strings(created)
	if strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(want, ",") != strings.Join(created, ",") {
		t.Fatalf("list_emoji = %v, Mattermost finds %v, created %v", got, want, created)
	}
}

func TestListEmojiRefusesAPrefixNoEmojiNameCanStartWith(t *testing.T) {
	res := call(t, connect(t, mm.URL, mm.Users[0].Token), "list_emoji", map[string]any{"prefix": "a%"})
	if !res.IsError || !strings.Contains(text(res), "letters, digits") || !strings.Contains(text(res), "list_emoji") {
		t.Fatalf("a wildcard prefix should be refused with the rule and the next call: %s", text(res))
	}
}
