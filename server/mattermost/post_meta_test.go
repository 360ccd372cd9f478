package mattermost

import (
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
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
	} {
		if got := previewLink(tc.p, site, tc.restricted); got != tc.want {
			t.Errorf("previewLink(%q) = %q, want %q", tc.p.Message, got, tc.want)
		}
	}
}
