package mattermost

import (
	"slices"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/shared/markdown"
)

func TestThePreviewedLinkIsTheFirstAutolinkAsMattermostPicksIt(t *testing.T) {
	site := "http://mm.example"
	withCard := &model.Post{Message: "see https://a.example/x"}
	withCard.AddProp(model.PostPropsAttachments, []any{})
	for _, tc := range []struct {
		p          *model.Post
		restricted []string
		want       string
	}{
		{&model.Post{Message: "see https://a.example/x and https://b.example/y"}, nil, "https://a.example/x"},
		{&model.Post{Message: "[text](https://a.example/x) then https://b.example/y"}, nil, "https://b.example/y"},
		{&model.Post{Message: "`https://a.example/x` only code"}, nil, ""},
		{&model.Post{Message: "https://a.example/x https://b.example/y"}, []string{"a.example"}, "https://b.example/y"},
		{&model.Post{Message: "as agreed " + site + "/team/pl/abcdefghijklmnopqrstuvwxyz"}, nil, ""},
		{withCard, nil, ""},
		{&model.Post{Message: "see www.a.example/x"}, nil, "http://www.a.example/x"},
		{&model.Post{Message: "we wwent to www"}, nil, ""},
		{&model.Post{Message: "no link here, only words"}, nil, ""},
	} {
		if got := previewLink(tc.p, site, tc.restricted); got != tc.want {
			t.Errorf("previewLink(%q) = %q, want %q", tc.p.Message, got, tc.want)
		}
	}
}

// Fuzzed with random messages, the quick look never says "no link" where
// Mattermost's markdown finds one.
func FuzzAMessageWithAnAutolinkIsAlwaysParsed(f *testing.F) {
	for _, m := range []string{"see https://a.example/x", "www.a.example", "(WwW.a.example)", "plain", "a:/b w w w"} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, message string) {
		if mayAutolink(message) {
			return
		}
		markdown.Inspect(message, func(node any) bool {
			if _, ok := node.(*markdown.Autolink); ok {
				t.Fatalf("%q has an autolink the quick look missed", message)
			}
			return true
		})
	})
}

func TestTheRootFactsOfOneAggregatedRowReadInKindTimeAndUserOrderFromEitherDatabase(t *testing.T) {
	for _, tc := range []struct {
		name, facts string
	}{
		{"PostgreSQL", `[[2, "root-b", null, null, null, "", 1700000300000, 4], [1, "root-a", null, null, null, "zoe", 1700000200000, 0],
			[1, "root-a", null, null, null, "amy", 1700000100000, 0], [0, "root-a", "urgent", true, false, "", 0, 0]]`},
		{"MySQL", `[[2, "root-b", null, null, null, "", 1700000300000, 4], [1, "root-a", null, null, null, "zoe", 1700000200000, 0],
			[1, "root-a", null, null, null, "amy", 1700000100000, 0], [0, "root-a", "urgent", 1, 0, "", 0, 0]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := rootFactRows([]byte(tc.facts))
			if err != nil {
				t.Fatal(err)
			}
			want := []rootFact{
				{kind: 0, id: "root-a", level: "urgent", requested: true},
				{kind: 1, id: "root-a", user: "amy", at: 1700000100000},
				{kind: 1, id: "root-a", user: "zoe", at: 1700000200000},
				{kind: 2, id: "root-b", at: 1700000300000, n: 4},
			}
			if !slices.Equal(rows, want) {
				t.Fatalf("rows %+v\nwant %+v", rows, want)
			}
		})
	}
	if rows, err := rootFactRows([]byte(`[]`)); err != nil || len(rows) != 0 {
		t.Fatalf("no facts read as %v, %v", rows, err)
	}
	if _, err := rootFactRows([]byte(`[[0, "root-a", "urgent", "yes"]]`)); err == nil {
		t.Fatal("a row of four columns was read")
	}
}
