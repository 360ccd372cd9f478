package mattermost

import (
	"fmt"
	"testing"
)

func TestAMentionIsTheKeyAsAWholeWordInAnyCase(t *testing.T) {
	keys := []string{"@carol", "Carol", "deploy-bot", "@here"}
	cases := []struct {
		msg  string
		want []string
	}{
		{"hey @carol, look", []string{"@carol"}},
		{"@CAROL.", []string{"@carol"}},
		{"thanks Carol!", []string{"Carol"}},
		{"ask @carolyn", nil},
		{"mail carol@example.com", nil},
		{"@carol.smith knows", nil},
		{"carolina is sunny", nil},
		{"ping deploy-bot now", []string{"deploy-bot"}},
		{"deploy-bots", nil},
		{"@here is the plan", []string{"@here"}},
		{"the plan is here", nil},
	}
	for _, c := range cases {
		if got := Mentioned(c.msg, keys); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Mentioned(%q) = %v, want %v", c.msg, got, c.want)
		}
	}
}
