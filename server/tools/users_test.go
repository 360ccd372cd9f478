package tools

import (
	"context"
	"strings"
	"testing"
)

func TestASearchTermLongerThanAnyNameIsRefusedBeforeItReachesMattermost(t *testing.T) {
	// Deps without Mattermost: the refusal comes before anything is asked.
	_, err := Deps{}.searchUsers(context.Background(), searchUsersArgs{Term: strings.Repeat("a", maxTermRunes+1)})
	if err == nil || !strings.Contains(err.Error(), "at most 128") {
		t.Fatalf("got %v", err)
	}
}
